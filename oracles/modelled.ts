/**
 * The request model (requests/) as the oracles use it: an answer is judged against the request it
 * answers. `modelled(routed)` models the request of an exchange once, however many oracles ask
 * (the model is pure, so a weak cache keyed by the exchange is safe); `breaches(m, rules)` picks
 * the rules of interest a request breaks, and `brokenInWords` puts them in a finding's evidence:
 * the rule id, its level, where it is broken and how.
 */
import type { Exchange } from '../exchange/exchange.ts';
import {
  modelRequest,
  requestOfExchange,
  rule,
  type Breach,
  type ModelledRequest,
} from '../requests/index.ts';
import type { Routed } from './types.ts';

const cache = new WeakMap<Pick<Exchange, 'request'>, ModelledRequest>();

/** The modelled request of a routed exchange (its base path honoured). */
export function modelled(routed: Routed): ModelledRequest {
  return modelledExchange(routed.exchange, routed.basePath ?? '');
}

/**
 * The modelled request of an exchange, from the same cache: the coverage of a validation
 * (engine/coverage.ts) reads every request the oracles read, and models each once.
 */
export function modelledExchange(exchange: Pick<Exchange, 'request'>, basePath = ''): ModelledRequest {
  const hit = cache.get(exchange);
  if (hit) return hit;
  const m = modelRequest(requestOfExchange(exchange as Exchange), { basePath });
  cache.set(exchange, m);
  return m;
}

/** The breaches of a modelled request among `rules` (ids), in the model's order. */
export function breaches(m: ModelledRequest, rules: ReadonlySet<string>): Breach[] {
  return m.broken.filter((b) => rules.has(b.rule));
}

/** At most this many breaches are spelled out in a finding; the rest are counted. */
const SHOWN = 3;

/** "breaks patch-details-min-properties (MUST) at /counterpartyDetails: ..., and 2 more rule(s)". */
export function brokenInWords(list: readonly Breach[]): string {
  const shown = list
    .slice(0, SHOWN)
    .map((b) => `${b.rule} (${b.level}) at ${b.at}: ${b.message}`)
    .join('; ');
  return list.length > SHOWN ? `${shown}; and ${list.length - SHOWN} more` : shown;
}

/** The statement of the first rule broken, for a finding's expected. */
export function firstStatement(list: readonly Breach[]): string {
  return list.length === 0 ? '' : rule(list[0]!.rule).statement;
}
