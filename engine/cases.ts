/**
 * Sending a probe's cases: each case through ctx.runCase, so the oracles' violations of what it
 * sent come back with its own; independent cases at once (at most MAX_CASES_IN_FLIGHT in flight,
 * in order within a lane), equivalent ones (the same request, requestKey) once. runCases records
 * a list of explicit cases in their order; engine/property.ts runs fast-check's first round of a
 * concurrent property through the same CaseRunner.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import pLimit from 'p-limit';
import type { Exchange } from '../exchange/exchange.ts';
import type { Violation } from '../oracles/types.ts';
import type { HttpRequest } from '../transport/client.ts';
import type { JudgedViolation, ProbeContext } from './types.ts';

/** How independent cases may be sent together. */
export interface CaseSchedule<C> {
  /**
   * What identifies what a case sends (requestKey of its request): cases with equal keys are
   * equivalent and sent once. Default: the input itself (fast-check's rendering of it).
   */
  key?(c: C): string;
  /**
   * Cases with the same lane never overlap, in order: a PATCH of an invented reference and the
   * reads around it are judged as one sequence of that reference (engine/judge.ts).
   */
  lane?(c: C): string;
}

/**
 * At most this many cases of one probe are in flight (or waiting for the session) at once, so a
 * property of thousands of cases keeps memory flat; the session decides how many go out.
 */
export const MAX_CASES_IN_FLIGHT = 64;

/**
 * The identity of a request, as sent: method, path, headers, authentication and body (not its
 * role in the probe, nor how the credentials are recorded). A digest, so the key never holds a
 * token.
 */
export function requestKey(req: HttpRequest): string {
  const auth =
    req.auth === undefined || typeof req.auth === 'string' ? (req.auth ?? 'token') : req.auth.authorization;
  const headers = Object.entries(req.headers ?? {})
    .map(([k, v]) => [k.toLowerCase(), v])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
  const raw = req.rawBody instanceof Uint8Array ? Buffer.from(req.rawBody).toString('base64') : req.rawBody;
  const body = req.json !== undefined ? ['json', JSON.stringify(req.json)] : ['raw', raw ?? null];
  return createHash('sha256')
    .update(JSON.stringify([req.method.toUpperCase(), req.path, auth, headers, body]))
    .digest('hex');
}

/**
 * What one case gave: every violation (the oracles', then the probe's own), and the exchanges it
 * sent, in the order they completed and as a set; or the error it threw.
 */
export type CaseResult =
  | { violations: JudgedViolation[]; exchanges?: Exchange[]; sent?: ReadonlySet<Exchange> }
  | { error: unknown };

/**
 * Runs cases through ctx.runCase, each equivalent case once, at most MAX_CASES_IN_FLIGHT at a
 * time and in order within a lane. Once a case throws, cases not yet started are not started.
 */
export class CaseRunner<C> {
  private readonly results = new Map<string, Promise<CaseResult | undefined>>();
  private readonly lanes = new Map<string, Promise<unknown>>();
  private readonly limit = pLimit(MAX_CASES_IN_FLIGHT);
  private halted = false;
  /** Cases not sent because an equivalent one was. */
  duplicates = 0;

  constructor(
    private readonly ctx: ProbeContext,
    private readonly probe: (c: C) => Promise<Violation[] | Violation | undefined>,
    private readonly schedule: CaseSchedule<C>,
  ) {}

  /**
   * Each case's key, computed once: sending, fetching and recording a case each ask for it, and a
   * key is a digest of the whole request (requestKey) or fast-check's rendering of the input.
   */
  private readonly keys = new Map<C, string>();

  key(c: C): string {
    let key = this.keys.get(c);
    if (key === undefined) {
      key = this.schedule.key ? this.schedule.key(c) : fc.stringify(c);
      this.keys.set(c, key);
    }
    return key;
  }

  /** Starts every case (equivalent ones once) and resolves when all have settled. */
  async sendAll(cases: readonly C[]): Promise<void> {
    const started: Promise<unknown>[] = [];
    for (const c of cases) {
      const key = this.key(c);
      if (this.results.has(key)) {
        this.duplicates++;
        continue;
      }
      const result = this.limit(() => this.inLane(c, true));
      this.results.set(key, result);
      started.push(result);
    }
    await Promise.all(started);
  }

  /** The result of a case: the cached one of an equivalent case, or sent now. */
  async result(c: C): Promise<CaseResult> {
    const key = this.key(c);
    const cached = await this.results.get(key);
    if (cached) return cached;
    const result = this.inLane(c) as Promise<CaseResult>;
    this.results.set(key, result);
    return result;
  }

  /** Sends a case after the others of its lane; unless `unlessHalted` is set and a case threw. */
  private inLane(c: C, unlessHalted = false): Promise<CaseResult | undefined> {
    const lane = this.schedule.lane?.(c);
    if (lane === undefined) return this.send(c, unlessHalted);
    const result = (this.lanes.get(lane) ?? Promise.resolve()).then(() => this.send(c, unlessHalted));
    this.lanes.set(lane, result);
    return result;
  }

  private async send(c: C, unlessHalted: boolean): Promise<CaseResult | undefined> {
    if (unlessHalted && this.halted) return undefined;
    const result = await sendCase(this.ctx, () => this.probe(c));
    if ('error' in result) this.halted = true;
    return result;
  }
}

export async function sendCase(
  ctx: ProbeContext,
  probe: () => Promise<Violation[] | Violation | undefined>,
): Promise<CaseResult> {
  try {
    const { result, violations, exchanges, sent } = await ctx.runCase(probe);
    const own = result === undefined ? [] : Array.isArray(result) ? result : [result];
    // The oracles' first: where an oracle and the probe find one requirement broken by the same
    // case, the finding a property keeps is the oracle's, which recorded traffic gets too (what
    // the request shows is judged alike whoever sent it); the probe's stands where only it knows.
    return {
      violations: [...violations, ...own.map((v) => ({ ...v, judgedBy: ctx.probe.id }))],
      exchanges,
      ...(sent ? { sent } : {}),
    };
  } catch (error) {
    return { error };
  }
}

export interface CasesSpec<C> {
  /**
   * Sends one case and returns the probe's own violations (not ctx.fail, which would record
   * them in the order cases complete); the oracles' are added by the runner.
   */
  probe(c: C): Promise<Violation[] | Violation | undefined>;
  schedule?: CaseSchedule<C>;
}

/**
 * Sends explicit cases that are independent of each other concurrently (as the first round of
 * a concurrent property), then records each case's violations, its own and the oracles', in the
 * cases' order, so the findings kept do not depend on which answer came first. A case that threw
 * is thrown once the cases before it are recorded, as a loop of the cases would. Returns how many
 * equivalent cases were sent once.
 */
export async function runCases<C>(
  ctx: ProbeContext,
  cases: readonly C[],
  spec: CasesSpec<C>,
): Promise<number> {
  const runner = new CaseRunner(ctx, spec.probe, spec.schedule ?? {});
  await runner.sendAll(cases);
  const recorded = new Set<string>();
  for (const c of cases) {
    const result = await runner.result(c);
    if ('error' in result) throw result.error;
    // An equivalent case shares its result: recorded once.
    const key = runner.key(c);
    if (recorded.has(key)) continue;
    recorded.add(key);
    for (const v of result.violations) {
      if (v.judgedBy === ctx.probe.id) ctx.fail(v);
      else ctx.report(v);
    }
  }
  return runner.duplicates;
}
