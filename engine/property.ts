/**
 * Runs a property over generated inputs against the target with fast-check: the explicit
 * boundary examples first, then `runs` random cases from the run's seed. On failure fast-check
 * shrinks to the smallest input that still fails, and the finding carries that input, the rule
 * it was built to keep or break, the seed and path that replay it, and the request.
 *
 * One probe may judge several requirements (a PATCH is checked for acceptance, persistence,
 * merging, ...). The property is run once per requirement that fails: the first violation found
 * fixes the requirement that round shrinks on, so the input reported is the smallest one that
 * breaks that requirement; then the property runs again without it, until a round finds nothing
 * new. A conforming target costs one round.
 *
 * A property whose cases are independent (reads, and writes that must change nothing) opts into
 * the concurrent schedule (`concurrent`): the first round's cases, exactly the ones fast-check's
 * check feeds (found by a dry check that sends nothing), are sent at once (engine/cases.ts), at most
 * MAX_CASES_IN_FLIGHT of them in flight (the session decides how many go out), and their
 * results cached; then fast-check runs as in the sequential schedule and takes each case's result
 * from the cache, so only shrink candidates are sent, one at a time. Seed, path, shrinking and the
 * input reported are those of the sequential schedule, and a conforming target costs the same
 * requests, in parallel. Equivalent cases (the same request) are sent once: their result is
 * reused, in the first round, while shrinking and in the later rounds.
 *
 * A violation counts for the case that sent the exchange it is about (subjectOf: the PATCH of a
 * sequence, though the read after shows it). One judged while a later case ran (several accepted
 * PATCHes confirmed by one read) makes the case that sent it the suspect: the round stops sending,
 * and the suspect is run again by its fast-check path, alone with the reads around it, and shrunk
 * from there. So a finding's input, its request, its curl and its --case replay are one case's.
 * That needs a case sent alone to be judged while it runs: a probe whose read after may come
 * within the settle window without showing the PATCH, and which then reads no more, says so
 * (ProbeContext.lastRead), or its judgement would wait for the next case's PATCH.
 */
import fc from 'fast-check';
import type { Exchange } from '../exchange/exchange.ts';
import type { Labelled } from '../generators/labelled.ts';
import type { Violation } from '../oracles/types.ts';
import type { RequirementId } from '../spec/requirements.ts';
import { CaseRunner, sendCase, type CaseResult, type CaseSchedule } from './cases.ts';
import { coverCases, splitPack, type CasePacking } from './packing.ts';
import type { JudgedViolation, ProbeContext } from './types.ts';

export interface PropertySpec<T> {
  name: string;
  arbitrary: fc.Arbitrary<Labelled<T>>;
  /** Boundary cases, always run before the random ones. */
  examples?: Labelled<T>[];
  /** Random cases after the examples; default: the run's CONFORMANCE_RUNS. */
  runs?: number;
  /** Cap on shrinking probes per round; default MAX_SHRINK_PROBES. */
  maxShrinkProbes?: number;
  /**
   * Sends this input and returns the probe's own violations: none (or undefined) when the target
   * behaves. The oracles' violations of the exchanges it sent are added by the runner.
   * `shrinking`: the input is a candidate of shrinking a failure (a probe that batches its reads
   * sends it on its own, so that the verdict is this input's).
   */
  probe(input: Labelled<T>, shrinking: boolean): Promise<Violation[] | Violation | undefined>;
  /** Set for cases that are independent of each other: the concurrent schedule (above). */
  concurrent?: CaseSchedule<Labelled<T>>;
  /**
   * Set where cases occupying different parts of the input may share one request
   * (engine/packing.ts): the first round's cases (the examples, then the random ones, exactly
   * those fast-check feeds) are sent packed, and a pack that shows a violation is split down to
   * the single cases that show it alone. Then fast-check runs as without it, taking each case's
   * result from its pack: seed, path, shrinking and the input reported are unchanged, and
   * shrinking and a replay (--case) send each case alone.
   */
  packing?: CasePacking<Labelled<T>>;
  /**
   * What a replay needs beyond the seed and path, read from the failing input after it ran:
   * fast-check's commands (fc.commands) shrink by which commands ran, which a replay by path alone
   * cannot know, so a sequence hands on its `replayPath` (written after `~` in --case, and given
   * back to the arbitrary as `target.replayCase.replayPath`).
   */
  replaySuffix?: (input: Labelled<T>) => string | undefined;
  /** Inputs seen to hold before the property (in a batch): passed unsent, in every round and shrinking. */
  known?: (input: Labelled<T>) => boolean;
}

/**
 * Shrinking re-sends requests per candidate. After this many candidates a round stops probing
 * (treats further candidates as passing), so a failure on a long input costs a bounded number of
 * requests; the input reported is the smallest failing one found by then.
 */
export const MAX_SHRINK_PROBES = 400;

/**
 * The exchange a violation is about, whose case it counts for: the write among the exchanges it
 * rests on (a PATCH judged with the reads around it is the PATCH's, though the read after shows
 * it), else the exchange judged.
 */
export function subjectOf(v: Pick<JudgedViolation, 'exchange' | 'context'>): Exchange {
  const write = [v.exchange, ...(v.context ?? [])].find((ex) => ex.request.method.toUpperCase() !== 'GET');
  return write ?? v.exchange;
}

export interface PropertyResult {
  /** The requirements found broken, in the order they were found. */
  failed: RequirementId[];
  /** Cases run in the first round. */
  numRuns: number;
  /** With `packing`: how the first round was sent (undefined without, or in a replay). */
  packed?: PackedStats;
}

/** How the first round of a property was packed. */
export interface PackedStats {
  /** Cases of the first round sent packed (this part's share, split across lanes; equal ones once). */
  cases: number;
  /** Requests that carried them (one per pack). */
  requests: number;
  /** The most cases one request carried. */
  largest: number;
  /** Packs that showed a violation and were split. */
  split: number;
  /** Requests the splitting sent. */
  splitRequests: number;
}

/**
 * The violations of a sending that rest on its own exchanges (subjectOf); `elsewhere` gets the
 * others, judgements of an earlier request that came while it was sent.
 */
function ownViolations(
  r: { violations: JudgedViolation[]; sent?: ReadonlySet<Exchange> },
  elsewhere: (v: JudgedViolation) => void,
): JudgedViolation[] {
  const own: JudgedViolation[] = [];
  for (const v of r.violations) {
    if (!r.sent || r.sent.has(subjectOf(v))) own.push(v);
    else elsewhere(v);
  }
  return own;
}

/** The key of a packed case's result: its value. */
const valueKey = (input: Labelled<unknown>): string => JSON.stringify(input.value) ?? 'undefined';

/**
 * Sends the first round's cases packed (engine/packing.ts) and returns each one's result, keyed
 * by valueKey (equal cases are sent once). Every violation seen while the packs went out is
 * traced to the pack whose request it rests on (the PATCH among the violation's exchanges, else
 * the exchange that shows it), since a read that confirms several requests judges them all at
 * once. A pack with a violation is split down to its single cases, each sent alone; a part's
 * verdict is what rests on its own exchanges, and a judgement of a pack's request that comes while
 * a part is sent goes to that pack. If no case fails alone (the fault needs two cases together),
 * the pack's violations are recorded as they are, without an input to shrink.
 */
async function sendPacked<T>(
  ctx: ProbeContext,
  prop: PropertySpec<T>,
  packing: CasePacking<Labelled<T>>,
  cases: readonly Labelled<T>[],
): Promise<{ results: Map<string, CaseResult>; others: Set<string>; stats: PackedStats }> {
  const seen = new Set<string>();
  const unique = cases.filter((c) => !seen.has(valueKey(c)) && seen.add(valueKey(c)) !== undefined);
  const all = coverCases(unique, packing.slots, packing.valueAt && ((c, slot) => packing.valueAt!(c, slot)));
  const part = ctx.target.part;
  const packs = part === undefined ? all : all.filter((_, i) => i % part.count === part.index);
  const others = new Set(all.filter((p) => !packs.includes(p)).flatMap((p) => p.map(valueKey)));
  const results = new Map<string, CaseResult>();
  const stats: PackedStats = {
    cases: packs.reduce((n, p) => n + p.length, 0),
    requests: packs.length,
    largest: Math.max(0, ...packs.map((p) => p.length)),
    split: 0,
    splitRequests: 0,
  };
  const inputOf = (cases: readonly Labelled<T>[]): Labelled<T> =>
    cases.length === 1 ? cases[0]! : packing.merge(cases);
  // Each pack's exchanges, and every violation with the pack it was delivered in.
  const owner = new Map<Exchange, number>();
  const delivered: { v: JudgedViolation; at: number }[] = [];
  const stop = (error: unknown): never => {
    throw error;
  };
  for (const [i, pack] of packs.entries()) {
    const r = await sendCase(ctx, () => prop.probe(inputOf(pack), false));
    if ('error' in r) stop(r.error);
    else {
      for (const ex of r.exchanges ?? []) owner.set(ex, i);
      for (const v of r.violations) delivered.push({ v, at: i });
    }
  }
  if (packing.settle && packs.length > 0) {
    const settle = packing.settle;
    const r = await sendCase(ctx, async () => {
      await settle();
      return undefined;
    });
    if ('error' in r) stop(r.error);
    else {
      for (const ex of r.exchanges ?? []) owner.set(ex, packs.length - 1);
      for (const v of r.violations) delivered.push({ v, at: packs.length - 1 });
    }
  }
  // The pack whose request a violation rests on: the write among its exchanges, else the
  // exchange judged; undefined for one no pack sent.
  const packOf = (v: JudgedViolation): number | undefined => {
    const rests = [v.exchange, ...(v.context ?? [])];
    const write = rests.find((ex) => ex.request.method !== 'GET' && owner.has(ex));
    return owner.get(write ?? v.exchange);
  };
  const traced = packs.map(() => [] as JudgedViolation[]);
  for (const { v, at } of delivered) traced[packOf(v) ?? at]!.push(v);
  for (const [i, pack] of packs.entries()) {
    const violations = traced[i]!;
    if (violations.length === 0) {
      for (const c of pack) results.set(valueKey(c), { violations: [] });
      continue;
    }
    if (pack.length === 1) {
      results.set(valueKey(pack[0]!), { violations });
      continue;
    }
    stats.split++;
    const alone = new Map<string, CaseResult>();
    stats.splitRequests += await splitPack(pack, async (cases) => {
      const r = await sendCase(ctx, () => prop.probe(inputOf(cases), true));
      if ('error' in r) return stop(r.error);
      // A part's verdict is what rests on its own request; a judgement that came while it was
      // sent but rests on another request goes where that request's verdict is still to be
      // made (a pack not examined yet), else it is recorded as judged.
      const own = ownViolations(r, (v) => {
        const k = packOf(v);
        if (k !== undefined && k > i) traced[k]!.push(v);
        else ctx.report(v);
      });
      if (cases.length === 1) alone.set(valueKey(cases[0]!), { ...r, violations: own });
      return own.length > 0 ? 'failed' : 'passed';
    });
    for (const c of pack) results.set(valueKey(c), alone.get(valueKey(c)) ?? { violations: [] });
    const failsAlone = pack.some((c) => {
      const r = alone.get(valueKey(c));
      return r !== undefined && 'violations' in r && r.violations.length > 0;
    });
    if (!failsAlone) {
      // No case fails alone: the fault shows only with cases together. Recorded as seen.
      ctx.note(
        `${prop.name}: a request carrying ${pack.length} explicit cases showed a violation that none of them shows alone`,
      );
      for (const v of violations) ctx.report(v);
    }
  }
  return { results, others, stats };
}

/** The parameters of every check of a property: the dry ones that list its first round, and the real ones. */
type CheckParams<T> = fc.Parameters<[Labelled<T>]>;

/** The first round's cases, exactly the ones fast-check's check feeds, found by a check that sends nothing. */
function firstRoundCases<T>(prop: PropertySpec<T>, params: CheckParams<T>): Labelled<T>[] {
  const cases: Labelled<T>[] = [];
  fc.check(
    fc.property(prop.arbitrary, (input) => {
      cases.push(input);
    }),
    params,
  );
  return cases;
}

/** A case of the first round whose exchange a violation judged while a later case ran. */
interface Suspect {
  index: number;
  requirement: RequirementId;
  violation: JudgedViolation;
}

/** What the rounds of one property share, from one round to the next. */
interface Rounds<T> {
  readonly ctx: ProbeContext;
  readonly prop: PropertySpec<T>;
  readonly params: CheckParams<T>;
  readonly maxShrink: number;
  readonly runner: CaseRunner<Labelled<T>> | undefined;
  readonly packed: Awaited<ReturnType<typeof sendPacked<T>>> | undefined;
  /** The requirements found broken, one per round. */
  readonly found: RequirementId[];
  /**
   * Which run of the first round sent an exchange. A violation counts for the case that sent the
   * exchange it rests on: one judged while a later case ran (an accepted PATCH confirmed by the
   * read of a later case) makes that earlier case the suspect, which is then run again by its
   * path, alone with the reads around it, so the input shown, the request, its curl and the
   * replay's --case all come from the one case that failed.
   */
  readonly firstRound: Map<Exchange, number>;
  /**
   * A probe that throws cannot judge its input (the target unreachable, a budget spent): the
   * property stops probing at once, rather than letting fast-check shrink on the error, and the
   * error is thrown once what was found before is recorded.
   */
  stopped: boolean;
  stoppedBy: unknown;
  suspect: Suspect | undefined;
}

/** What one round found: fast-check's details, the last failing case (the shrunk one), the shrink probes made. */
interface Round<T> {
  details: fc.RunDetails<[Labelled<T>]>;
  last: { input: Labelled<T>; violation: JudgedViolation } | undefined;
  shrinkProbes: number;
}

/**
 * One round of fast-check: the first round's cases (or the suspect `rerun` alone), until a
 * requirement not found yet breaks, then shrinking on that requirement.
 */
async function runRound<T>(s: Rounds<T>, rerun: Suspect | undefined): Promise<Round<T>> {
  const { ctx, prop, runner, packed, found, firstRound } = s;
  const replay = ctx.target.replayCase;
  let target: RequirementId | undefined;
  let last: Round<T>['last'];
  let shrinkProbes = 0;
  // A part of a probe split across lanes sends its share of the round's cases; the others
  // pass unsent (another part sends them). Shrinking, and a replayed case, go in full.
  const part = replay === undefined && rerun === undefined ? ctx.target.part : undefined;
  // A replayed case (--case, or the suspect) is sent alone, as a shrink candidate is: its
  // judgements are made while it runs.
  const alone = replay !== undefined || rerun !== undefined;
  let caseIndex = 0;
  let runIndex = 0;
  const details = await fc.check(
    fc.asyncProperty(prop.arbitrary, async (input) => {
      if (s.stopped || s.suspect !== undefined) return true;
      // Known: no request, so not counted against the cap; a replayed case (--case) is sent anyway.
      const known = replay === undefined && prop.known?.(input) === true;
      if (last !== undefined && !known && ++shrinkProbes > s.maxShrink) return true;
      const index = runIndex++;
      if (known) return true;
      const inFirstRound = last === undefined && !alone;
      const mine = part === undefined || last !== undefined || caseIndex++ % part.count === part.index;
      // A packed case's result is its pack's (or its own, once split); another lane sent the
      // other packs. A suspect run again, or a replayed case, is sent alone.
      const cached = inFirstRound ? packed?.results.get(valueKey(input)) : undefined;
      if (inFirstRound && cached === undefined && packed?.others.has(valueKey(input))) return true;
      if (cached === undefined && !mine) return true;
      const result =
        cached ??
        // A concurrent property's replayed case was sent by the runner already; a suspect is sent again.
        (runner && rerun === undefined
          ? await runner.result(input)
          : await sendCase(ctx, () => prop.probe(input, last !== undefined || alone)));
      if ('error' in result) {
        s.stopped = true;
        s.stoppedBy = result.error;
        return true;
      }
      const firstRun = last === undefined && !alone;
      if (firstRun && result.sent) for (const ex of result.sent) firstRound.set(ex, index);
      const own: JudgedViolation[] = [];
      for (const v of result.violations) {
        const subject = subjectOf(v);
        if (!result.sent || result.sent.has(subject)) own.push(v);
        else if (found.includes(v.requirement) || v.requirement === rerun?.requirement) continue;
        else if (firstRun && firstRound.has(subject) && s.suspect === undefined)
          s.suspect = { index: firstRound.get(subject)!, requirement: v.requirement, violation: v };
        // Of no case of this round (a read before the property, a case shrinking ran): as it is.
        else ctx.report(v);
      }
      if (s.suspect !== undefined) return true;
      const fresh = own.filter((v) => !found.includes(v.requirement));
      const hit = target === undefined ? fresh[0] : fresh.find((v) => v.requirement === target);
      if (!hit) return true;
      target = hit.requirement;
      last = { input, violation: hit };
      return false;
    }),
    rerun !== undefined ? { ...s.params, path: String(rerun.index) } : s.params,
  );
  return { details, last, shrinkProbes };
}

/** Says, before it runs, what of the property a replay or a lane's part runs; false when it runs nothing. */
function announce<T>(ctx: ProbeContext, prop: PropertySpec<T>): boolean {
  // A replay of one case (--case) runs that case of its property, and no other property.
  const replay = ctx.target.replayCase;
  if (replay !== undefined && replay.property !== prop.name) {
    ctx.note(`${prop.name}: not run (replaying one case of ${replay.property})`);
    return false;
  }
  if (ctx.target.part !== undefined && replay === undefined) {
    const { index, count } = ctx.target.part;
    ctx.note(
      `${prop.name}: part ${index + 1} of ${count} (one per lane): sent every ${count}th case of the first round, from case ${index + 1}`,
    );
  }
  return true;
}

/** The explicit cases of the first round packed side by side, and a note of what that cost. */
async function sendFirstRoundPacked<T>(
  ctx: ProbeContext,
  prop: PropertySpec<T>,
  packing: CasePacking<Labelled<T>>,
  params: CheckParams<T>,
): Promise<Awaited<ReturnType<typeof sendPacked<T>>>> {
  const packed = await sendPacked(ctx, prop, packing, firstRoundCases(prop, params));
  const st = packed.stats;
  const explicit = new Set((prop.examples ?? []).map(valueKey));
  const mine = [...packed.results.keys()].filter((k) => explicit.has(k)).length;
  ctx.note(
    `${prop.name}: ${st.cases} case(s) of the first round (${mine} explicit, the rest random) sent in ${st.requests} request(s), up to ${st.largest} in one` +
      (st.split > 0
        ? `; ${st.split} split to find the failing case(s), ${st.splitRequests} request(s) more`
        : ''),
  );
  return packed;
}

/** A fast-check path and what else a replay needs (PropertySpec.replaySuffix), as --case takes them. */
const withSuffix = (path: string, suffix: string | undefined): string =>
  suffix === undefined || suffix === '' ? path : `${path}~${suffix}`;

export async function runProperty<T>(ctx: ProbeContext, prop: PropertySpec<T>): Promise<PropertyResult> {
  if (!announce(ctx, prop)) return { failed: [], numRuns: 0 };
  const examples = prop.examples ?? [];
  const replay = ctx.target.replayCase;
  let firstRoundRuns = 0;
  // Both checks (the dry one that lists the first round, and the real one) take these
  // parameters: an option added here applies to both, so the cached cases stay check's cases.
  const params: CheckParams<T> = {
    seed: ctx.target.seed,
    ...(replay !== undefined ? { path: replay.path } : {}),
    numRuns: examples.length + (prop.runs ?? ctx.target.runs),
    examples: examples.map((e) => [e] as [Labelled<T>]),
  };
  // Concurrent properties are independent cases, none batched with another: the flag is moot.
  const runner = prop.concurrent
    ? new CaseRunner(ctx, (c: Labelled<T>) => prop.probe(c, false), prop.concurrent)
    : undefined;
  // The cases check feeds a property that holds, found by a check that sends nothing.
  if (runner) await runner.sendAll(firstRoundCases(prop, params));
  // Explicit cases packed side by side (a replay sends its one case alone).
  const packed =
    prop.packing && !runner && replay === undefined
      ? await sendFirstRoundPacked(ctx, prop, prop.packing, params)
      : undefined;
  const s: Rounds<T> = {
    ctx,
    prop,
    params,
    maxShrink: prop.maxShrinkProbes ?? MAX_SHRINK_PROBES,
    runner,
    packed,
    found: [],
    firstRound: new Map(),
    stopped: false,
    stoppedBy: undefined,
    suspect: undefined,
  };
  const { found } = s;
  for (;;) {
    // The suspect of the last round, run again by its path: every case alone.
    const rerun = s.suspect;
    s.suspect = undefined;
    const { details, last, shrinkProbes } = await runRound(s, rerun);
    if (found.length === 0 && rerun === undefined) firstRoundRuns = details.numRuns;
    if (rerun !== undefined && !details.failed) {
      // Alone, the suspect did not fail again: the violation is kept as it was judged.
      ctx.report(rerun.violation);
      found.push(rerun.requirement);
      ctx.note(
        `${prop.name}: ${rerun.requirement} broken on a case whose read came later; run again alone, the case held`,
      );
      if (s.stopped) break;
      continue;
    }
    if (s.suspect !== undefined && !s.stopped) continue;
    if (s.stopped && !details.failed) break;
    if (details.failed && !last) {
      throw new Error(`${prop.name}: property failed without a violation: ${String(details.errorInstance)}`);
    }
    if (!details.failed || !last) break;
    // The last failing run fast-check made is the one it reports: the shrunk counterexample.
    const { input, violation } = last;
    ctx.report(violation, {
      name: prop.name,
      input: input.value,
      rule: input.rule,
      seed: details.seed,
      ...(details.counterexamplePath
        ? { path: withSuffix(details.counterexamplePath, prop.replaySuffix?.(input)) }
        : {}),
    });
    found.push(violation.requirement);
    const cut = shrinkProbes > s.maxShrink ? ` (shrinking stopped after ${s.maxShrink} probes)` : '';
    ctx.note(`${prop.name}: ${violation.requirement} broken, shrunk ${details.numShrinks} time(s)${cut}`);
    if (s.stopped) break;
  }
  if (s.stopped) throw s.stoppedBy;
  const skipped =
    runner && runner.duplicates > 0 ? `, ${runner.duplicates} equivalent case(s) sent once` : '';
  ctx.note(
    `${prop.name}: ${firstRoundRuns} case(s)${skipped}${found.length > 0 ? `, ${found.length} requirement(s) broken` : ''}`,
  );
  return { failed: found, numRuns: firstRoundRuns, ...(packed ? { packed: packed.stats } : {}) };
}
