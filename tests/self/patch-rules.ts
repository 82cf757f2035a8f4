/**
 * Whether a labelled invalid PATCH body breaks exactly the one rule it names, judged against the
 * spec's PatchCounterpartyRequest: shared by the tests of every generator of invalid bodies.
 */
import type { ErrorObject } from 'ajv';
import type { Labelled } from '../../generators/labelled.ts';
import { MALFORMED_JSON } from '../../generators/patch-body.ts';
import { spec } from '../../spec/index.ts';

/** ajv reports a missing or unknown property at its parent: name the property itself. */
function errorPath(e: ErrorObject): string {
  const p = e.params as { missingProperty?: string; additionalProperty?: string };
  const child = p.missingProperty ?? p.additionalProperty;
  return child === undefined ? e.instancePath : `${e.instancePath}/${child}`;
}

/** 'counterpartyAccounts[].name' -> /^\/counterpartyAccounts\/\d+\/name$/; 'body' -> the root. */
function pathPattern(field: string): RegExp {
  if (field === 'body') return /^$/;
  const parts = field.split('.').map((p) => p.replace('[]', '/\\d+'));
  return new RegExp(`^/${parts.join('/')}$`);
}

/** Errors that only restate another one (a failed anyOf or if/then alongside its cause). */
const META = new Set(['anyOf', 'if']);

/** Why the case does not break exactly its rule, or undefined. */
export function misjudged(l: Labelled<unknown>): string | undefined {
  if (l.rule.keyword === MALFORMED_JSON) {
    try {
      JSON.parse(String(l.value));
      return 'a "malformed" body parses as JSON';
    } catch {
      return undefined;
    }
  }
  const errors = spec()
    .errors('PatchCounterpartyRequest', l.value)
    .filter((e) => !META.has(e.keyword));
  if (errors.length === 0) return 'the invalid body validates';
  const at = pathPattern(l.rule.field);
  // additionalProperties of a named property (createdBy in details) is reported at that property.
  const own = errors.filter((e) => at.test(errorPath(e)) || at.test(e.instancePath));
  if (!own.some((e) => e.keyword === l.rule.keyword)) {
    return `no ${l.rule.keyword} error at ${l.rule.field}: ${errors.map((e) => `${errorPath(e)} ${e.keyword}`).join(', ')}`;
  }
  // One broken rule: every other error is the same rule seen from the root (anyOf branches).
  const others = errors.filter(
    (e) => !own.includes(e) && !(e.instancePath === '' && e.keyword === 'required'),
  );
  if (others.length > 0)
    return `more than one rule broken: ${others.map((e) => `${errorPath(e)} ${e.keyword}`).join(', ')}`;
  return undefined;
}
