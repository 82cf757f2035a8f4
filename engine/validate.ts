/**
 * Validation of traffic the suite did not send: exchanges from a HAR file or a proxy go, in the
 * order they completed, through the same judge as the suite's own (engine/judge.ts: every
 * exchange oracle, and the PATCH sequences and read pairs of each counterparty), and the
 * judgements are folded into one outcome that engine/verdicts.ts turns into verdicts like a run's.
 *
 * A requirement passes only when an exchange of the traffic was judged for it. What a request
 * shows (its credentials, its body, its path: the request model, requests/) the oracles judge on
 * recorded traffic as on the suite's own. A requirement only a probe judges needs what a recorded
 * exchange does not carry (which token the deployment accepts, which counterparties exist, which
 * account identifiers it takes): it is not exercised, with that reason (PROBE_ONLY_REASONS).
 * Exchanges outside the interface (not below /api/v1/) are counted and listed, not judged.
 */
import type { Exchange } from '../exchange/exchange.ts';
import { escapeControlsIn } from '../exchange/escape.ts';
import { isCut } from '../exchange/kept.ts';
import { LONG_URL_CHARS } from '../exchange/har.ts';
import { route } from '../exchange/route.ts';
import { ORACLES } from '../oracles/index.ts';
import { REQUIREMENTS, type RequirementId } from '../spec/requirements.ts';
import { CoverageCounter, type Coverage } from './coverage.ts';
import { Judge } from './judge.ts';
import { FindingKeeper } from './finding-groups.ts';
import { emptyOutcome, findingOf } from './run.ts';
import type { Finding, ProbeOutcome } from './types.ts';

/** Why a requirement only probes judge is not exercised in validation (the default). */
export const PROBE_ONLY_REASON =
  "judged only by a probe's own plan (what it meant to send), which recorded traffic does not carry: not exercised in validation";

const TOKEN =
  'needs knowing which bearer token the deployment accepts, which a recorded request does not show: judged only by a probe, not exercised in validation';
const EXISTING =
  'needs knowing which counterparties or items exist (a probe checks or invents them first), which recorded traffic does not show: not exercised in validation';
const ITEMS =
  'needs knowing which bills, mandates and collections exist and which bodies the deployment accepts (the document does not show the payloads; ITEM_FIXTURES vouches for them): judged only by a probe, not exercised in validation';

/**
 * Why each requirement only probes judge is not exercised in validation: what it needs that a
 * recorded exchange does not carry (README, "Validating traffic the suite did not send").
 */
export const PROBE_ONLY_REASONS: Partial<Record<RequirementId, string>> = {
  'get-known-counterparty-200': TOKEN,
  'auth-scheme-case-insensitive': TOKEN,
  'collection-routed': TOKEN,
  'bill-list-filters-accepted': TOKEN,
  'bill-list-pagination-zero-accepted': TOKEN,
  'list-without-query-accepted': TOKEN,
  'patch-equivalent-accepted': TOKEN,
  'patch-unknown-not-created': EXISTING,
  'item-unknown-reference-not-another': EXISTING,
  'reference-percent-encoding-equivalent': EXISTING,
  'item-known-readable': ITEMS,
  'item-create-accepted': ITEMS,
  'item-update-accepted': ITEMS,
  'bill-document-accepted': ITEMS,
  'mandate-cancel': ITEMS,
  'patch-valid-accepted':
    'needs knowing the valid token and which account identifiers the deployment accepts (the document does not show their inner fields; ACCOUNT_FIXTURE vouches for them): judged only by a probe, not exercised in validation',
};
/** Why a requirement an oracle judges got nothing to judge. */
export const NO_EXCHANGE_REASON = 'the traffic held no exchange it judges';

/** At most this many exchanges outside the interface are listed (all are counted). */
export const MAX_OUTSIDE_LISTED = 50;

/** What the validated traffic was, for the record. */
export interface TrafficRecord {
  kind: 'har' | 'proxy' | 'suite';
  /** The HAR file, or the proxy's listening URL and its upstream. */
  source: string;
  /** Exchanges seen. */
  exchanges: number;
  /** Exchanges judged (below /api/v1/). */
  judged: number;
  /** Exchanges whose body was over the cap and not judged (the proxy). */
  overCap?: number;
  /**
   * Exchanges not judged because a body of theirs was recorded only as its head (the suite's own
   * HAR past its budget of kept bodies, `_truncated`: exchange/kept.ts).
   */
  cut?: number;
  /** Exchanges whose URL was longer than LONG_URL_CHARS, not judged (exchange/har.ts). */
  longURL?: number;
  /**
   * Requests the proxy answered itself without forwarding them (asterisk-form, another host, a
   * request line it could not read): counted, listed (the first MAX_OUTSIDE_LISTED), not judged.
   */
  refused?: { count: number; requests: string[] };
  /** Exchanges outside the interface: counted, listed (the first MAX_OUTSIDE_LISTED), not judged. */
  outside: { count: number; requests: string[] };
}

/** Judges traffic exchange by exchange; `finish()` returns the outcome, the coverage and the traffic. */
export class TrafficValidation {
  private readonly judge: Judge;
  private readonly coverageCounter: CoverageCounter;
  private readonly outcome: ProbeOutcome;
  // A few findings per cause are kept, every one counted (engine/finding-groups.ts).
  private readonly keeper = new FindingKeeper();
  private readonly traffic: TrafficRecord;
  private nextId = 1;
  private readonly started = performance.now();
  /** Told each violation as it is judged, kept or not: the proxy prints it then (bin/validate.ts). */
  onFinding: ((finding: Finding) => void) | undefined;

  constructor(
    kind: TrafficRecord['kind'],
    source: string,
    private readonly basePath = '',
    /** Whether a URL is the interface's (--base-url); others are outside it. */
    private readonly inScope: (url: string) => boolean = () => true,
    /** How long a read may trail an accepted write (CONFORMANCE_SETTLE_MS). */
    settleMs = 0,
  ) {
    this.judge = new Judge(undefined, basePath, settleMs);
    this.coverageCounter = new CoverageCounter(basePath);
    this.traffic = { kind, source, exchanges: 0, judged: 0, outside: { count: 0, requests: [] } };
    this.outcome = emptyOutcome(
      kind === 'har' ? 'har-file' : 'proxy',
      kind === 'har' ? `the exchanges of ${source}` : `the exchanges through ${source}`,
      REQUIREMENTS.map((r) => r.id as RequirementId),
    );
  }

  /** Judges one exchange (already redacted: exchange/redact-exchange.ts), in completion order. */
  add(exchange: Omit<Exchange, 'id'>): void {
    const ex: Exchange = { ...exchange, id: this.nextId++ };
    this.traffic.exchanges++;
    this.outcome.requests++;
    if (ex.request.url.length > LONG_URL_CHARS) {
      this.traffic.longURL = (this.traffic.longURL ?? 0) + 1;
      if (this.traffic.longURL <= MAX_OUTSIDE_LISTED)
        this.outcome.notes.push(
          `${describeOrigin(ex)}${ex.request.method} ${ex.request.url.slice(0, 100)}... not judged: its URL has ${ex.request.url.length} characters, more than the ${LONG_URL_CHARS} judged`,
        );
      return;
    }
    if (this.inScope(ex.request.url)) this.coverageCounter.add(ex);
    else this.coverageCounter.addOutside();
    if (
      !this.inScope(ex.request.url) ||
      !route(ex.request.method, ex.request.url, this.basePath).inInterface
    ) {
      this.traffic.outside.count++;
      if (this.traffic.outside.requests.length < MAX_OUTSIDE_LISTED)
        this.traffic.outside.requests.push(`${describeOrigin(ex)}${ex.request.method} ${ex.request.url}`);
      return;
    }
    // What stands for a body cut is not the body: judged, it would read as another body.
    if (isCut(ex)) {
      this.traffic.cut = (this.traffic.cut ?? 0) + 1;
      return;
    }
    this.traffic.judged++;
    this.deliver(this.judge.judge(ex));
  }

  /** A request the proxy answered itself (transport/proxy.ts): counted and listed, not judged. */
  refused(refusal: { request: string; status: number; reason: string }): void {
    const refused = (this.traffic.refused ??= { count: 0, requests: [] });
    refused.count++;
    if (refused.requests.length < MAX_OUTSIDE_LISTED)
      refused.requests.push(`${refusal.request} -> ${refusal.status}: ${refusal.reason}`);
  }

  /** An exchange seen but not judged: its body was over the cap. */
  overCap(exchange: Omit<Exchange, 'id'>): void {
    this.traffic.exchanges++;
    this.outcome.requests++;
    this.coverageCounter.add(exchange);
    this.traffic.overCap = (this.traffic.overCap ?? 0) + 1;
  }

  private deliver(judgements: ReturnType<Judge['judge']>): void {
    for (const { oracle, judgement } of judgements) {
      const id = judgement.requirement;
      this.outcome.judged[id] = (this.outcome.judged[id] ?? 0) + 1;
      if (judgement.held) continue;
      const { held: _held, ...violation } = judgement;
      const finding = findingOf({ ...violation, judgedBy: oracle });
      this.onFinding?.(finding);
      if (this.keeper.keep(finding)) this.outcome.findings.push(finding);
    }
  }

  finish(): { outcome: ProbeOutcome; coverage: Coverage; traffic: TrafficRecord } {
    this.deliver(this.judge.flush());
    const byOracle = new Set(ORACLES.flatMap((o) => o.requirements));
    for (const r of REQUIREMENTS) {
      const id = r.id as RequirementId;
      if (!byOracle.has(id))
        this.outcome.notApplicable.push({
          requirement: id,
          reason: PROBE_ONLY_REASONS[id] ?? PROBE_ONLY_REASON,
        });
      else if ((this.outcome.judged[id] ?? 0) === 0)
        this.outcome.notApplicable.push({ requirement: id, reason: NO_EXCHANGE_REASON });
    }
    this.outcome.notes.push(...this.keeper.notes());
    const causes = this.keeper.counts();
    if (causes.length > 0) this.outcome.causes = causes;
    if (this.traffic.overCap)
      this.outcome.notes.push(`${this.traffic.overCap} exchange(s) not judged: a body over the cap`);
    if (this.traffic.cut)
      this.outcome.notes.push(
        `${this.traffic.cut} exchange(s) not judged: a body recorded only as its head, length and SHA-256 (_truncated)`,
      );
    if (this.traffic.refused)
      this.outcome.notes.push(
        `${this.traffic.refused.count} request(s) answered by the proxy itself, not forwarded: ${this.traffic.refused.requests.slice(0, 3).join('; ')}`,
      );
    this.outcome.durationMs = performance.now() - this.started;
    return {
      outcome: escapeControlsIn(this.outcome),
      coverage: this.coverageCounter.coverage(),
      traffic: escapeControlsIn(this.traffic),
    };
  }
}

function describeOrigin(ex: Exchange): string {
  if (ex.origin.harEntry !== undefined) return `entry ${ex.origin.harEntry}: `;
  if (ex.origin.proxied !== undefined) return `exchange ${ex.origin.proxied}: `;
  return '';
}
