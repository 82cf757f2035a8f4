/**
 * Lanes: with several writable counterparties (WRITABLE_COUNTERPARTY_REF=a,b,...), the write
 * probes are split across them, one lane per counterparty, each lane in order in a worker of its
 * own, so that the probes of a lane never see another's PATCH on their counterparty. A probe goes
 * to the lane with the least estimated time so far (the longest first), the estimate being the
 * round trips it makes one after another: what latency, not request count, makes a remote run
 * slow.
 */
import type { Probe, TargetConfig } from './types.ts';

/**
 * Round trips one after another a probe makes, roughly: one per accepted case (their PATCHes
 * follow one another), two per batch of refused cases (the batch together, then a read).
 */
export type RoundTrips = (probe: Probe, target: TargetConfig) => number;

/** A write probe that declares no cost model: a few dozen requests, mostly not on the writable counterparty. */
export const OTHER_WRITE_PROBE = 20;

/** The round trips a probe declares (Probe.roundTrips), else OTHER_WRITE_PROBE. */
export const probeRoundTrips: RoundTrips = (probe, target) => probe.roundTrips?.(target) ?? OTHER_WRITE_PROBE;

/** The lanes of a run: the probes of each, in the order given, and the counterparty it writes. */
export interface Lane {
  ref: string;
  probes: Probe[];
  /** The probes of the lane that are one part of a probe split across the lanes. */
  parts?: Map<Probe, { index: number; count: number }>;
  /** The estimated round trips of its probes. */
  estimate: number;
}

/** The writable counterparties of a target, a lane each ('' for a read-only run: one lane). */
export function laneRefs(target: Pick<TargetConfig, 'writableRef' | 'writableRefs'>): readonly string[] {
  return target.writableRefs ?? (target.writableRef ? [target.writableRef] : ['']);
}

/**
 * Splits `probes` across one lane per writable counterparty. With one counterparty (or none: a
 * read-only run), one lane holds them all, in order.
 */
export function assignLanes(
  probes: readonly Probe[],
  target: TargetConfig,
  roundTrips: RoundTrips = probeRoundTrips,
): Lane[] {
  const refs = laneRefs(target);
  const lanes: Lane[] = refs.map((ref) => ({ ref, probes: [], estimate: 0 }));
  // A probe of ordered accepted PATCHes goes to every lane, a part each: its cases are the long
  // pole, and a part of them on each counterparty divides it by the lanes.
  const split = lanes.length > 1 ? probes.filter((p) => p.splitAcrossLanes) : [];
  lanes.forEach((lane, index) => {
    for (const probe of split) {
      lane.probes.push(probe);
      (lane.parts ??= new Map()).set(probe, { index, count: lanes.length });
      lane.estimate += roundTrips(probe, target) / lanes.length;
    }
  });
  const longestFirst = probes
    .filter((p) => !split.includes(p))
    .map((probe, i) => ({ probe, i, cost: roundTrips(probe, target) }))
    .sort((a, b) => b.cost - a.cost || a.i - b.i);
  const placed = new Map<Probe, number>();
  for (const { probe, cost } of longestFirst) {
    let best = 0;
    for (let l = 1; l < lanes.length; l++) if (lanes[l]!.estimate < lanes[best]!.estimate) best = l;
    lanes[best]!.estimate += cost;
    placed.set(probe, best);
  }
  // Within a lane, the parts first, then the probes in the order they were given in.
  for (const probe of probes) if (placed.has(probe)) lanes[placed.get(probe)!]!.probes.push(probe);
  return lanes;
}

/** The target a probe of `lane` runs with: the lane's counterparty is the writable one. */
export function laneTarget(target: TargetConfig, lane: Lane, probe?: Probe): TargetConfig {
  if (lane.ref === '') return target;
  const part = probe ? lane.parts?.get(probe) : undefined;
  return { ...target, writableRef: lane.ref, ...(part ? { part } : {}) };
}
