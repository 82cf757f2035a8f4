/**
 * Folds probe outcomes into one verdict per requirement of the catalogue. A requirement passes
 * only when an oracle or a probe judged it at least once in the run and nothing broke it;
 * otherwise it is reported as not exercised, with the reasons: the probes aiming at it were
 * skipped (read-only run) or could not complete (the target stopped answering), a probe found
 * it not applicable, or nothing in the run's traffic was what its oracle judges. A requirement
 * outside the run's selection (--probe, --requirement, --operation, --level, --grep) that nothing
 * judged is "not selected", a status of its own: neither passed nor not exercised. One that an
 * oracle judged on the selected probes' traffic anyway is reported as judged, since it was. In an
 * interrupted run, a requirement left unjudged by the
 * interruption (its probes stopped or were not run, its oracle saw nothing) is not exercised with
 * the reason "interrupted"; one a run would not have judged anyway (a read-only run, not
 * applicable) keeps that reason.
 */
import { ORACLE_CATALOG } from '../oracles/described.ts';
import { REQUIREMENTS, requirement, type RequirementId } from '../spec/requirements.ts';
import { INTERRUPTED_REASON } from './types.ts';
import { causeKey, causeOf, inputOf, MAX_INPUTS_PER_CAUSE } from './finding-groups.ts';
import type { Cause, Finding, ProbeOutcome } from './types.ts';

export type VerdictStatus = 'passed' | 'failed' | 'warned' | 'not-exercised' | 'not-selected';

export interface Verdict {
  id: RequirementId;
  level: 'MUST' | 'SHOULD';
  status: VerdictStatus;
  /** Why not exercised, or not selected. */
  reasons: string[];
  findings: (Finding & { probe: string })[];
  /**
   * The findings grouped by cause (engine/finding-groups.ts), in the order first found: how many
   * findings the cause had in the run (those not kept included), the index in `findings` of the
   * representative, and the distinct inputs.
   */
  groups: FindingGroup[];
  /** How many judgements it got in the run. */
  judged: number;
  /**
   * The probes whose exchanges were judged for it in this run (judgedBy), in the run's order: a
   * probe that counted a judgement of it, and the probe that sent each exchange a finding of it
   * rests on. Never one that was skipped or sent nothing. And the oracles that judge it.
   */
  probes: string[];
  oracles: string[];
}

export interface FindingGroup extends Omit<Cause, 'requirement'> {
  count: number;
  /** The index in the verdict's findings of the one shown with its evidence. */
  representative: number;
  /** The other kept findings of the group, by index in the verdict's findings. */
  others: number[];
  inputs: string[];
  /** Distinct inputs beyond those listed. */
  moreInputs: number;
}

/**
 * Groups a requirement's findings by cause. A probe's counted causes (ProbeOutcome.causes) give
 * the counts and inputs, the findings not kept included; an outcome without them (a record of an
 * older run) counts its kept findings.
 */
export function groupFindings(
  findings: readonly (Finding & { probe: string })[],
  outcomes: readonly ProbeOutcome[],
): FindingGroup[] {
  const groups = new Map<string, FindingGroup & { seen: Set<string> }>();
  const addInputs = (
    g: FindingGroup & { seen: Set<string> },
    inputs: readonly string[],
    more: number,
  ): void => {
    for (const input of inputs) {
      if (g.seen.has(input)) continue;
      g.seen.add(input);
      if (g.inputs.length < MAX_INPUTS_PER_CAUSE) g.inputs.push(input);
      else g.moreInputs++;
    }
    g.moreInputs += more;
  };
  // A finding of a property case (an input, a --case replay) represents its group: the input
  // shown, its request, its curl and the replay line are then one case's.
  const replayable = (f: Finding): boolean => f.property !== undefined && f.path !== undefined;
  findings.forEach((f, i) => {
    const cause = causeOf(f);
    const key = causeKey(cause);
    const g = groups.get(key);
    if (g && replayable(f) && !replayable(findings[g.representative]!)) {
      g.others.push(g.representative);
      g.representative = i;
    } else if (g) g.others.push(i);
    else {
      const { requirement: _r, ...shared } = cause;
      groups.set(key, {
        ...shared,
        count: 0,
        representative: i,
        others: [],
        inputs: [],
        moreInputs: 0,
        seen: new Set(),
      });
    }
  });
  for (const o of outcomes) {
    const mine = findings.filter((f) => f.probe === o.probe);
    if (mine.length === 0) continue;
    if (o.causes) {
      for (const c of o.causes) {
        if (c.requirement !== mine[0]!.requirement) continue;
        const g = groups.get(causeKey(c));
        if (!g) continue;
        g.count += c.count;
        addInputs(g, c.inputs, c.moreInputs);
      }
    } else {
      for (const f of mine) {
        const g = groups.get(causeKey(causeOf(f)))!;
        g.count++;
        addInputs(g, [inputOf(f)], 0);
      }
    }
  }
  return [...groups.values()].map(({ seen: _seen, ...g }) => ({
    ...g,
    count: Math.max(g.count, 1 + g.others.length),
  }));
}

/**
 * The probes whose exchanges were judged for requirement `id` (Verdict.probes): read from what the
 * run recorded, never from what a probe aims at (a skipped probe aims at much and judged nothing).
 */
export function judgingProbes(
  id: RequirementId,
  outcomes: readonly ProbeOutcome[],
  findings: readonly (Finding & { probe: string })[],
): string[] {
  const senders = new Set(findings.map((f) => f.sentBy ?? f.probe));
  return outcomes
    .filter((o) => senders.has(o.probe) || (o.status === 'ran' && o.requests > 0 && (o.judged[id] ?? 0) > 0))
    .map((o) => o.probe)
    .concat([...senders].filter((p) => !outcomes.some((o) => o.probe === p)));
}

/** The requirements a run was limited to, and the flags that chose them ("--level must"). */
export interface SelectedRequirements {
  requirements: readonly string[];
  label: string;
}

/**
 * `selected`: the run's selection; a requirement outside it that nothing judged is not selected.
 * `interrupted`: the run was stopped by a signal.
 */
export function verdicts(
  outcomes: readonly ProbeOutcome[],
  options: { interrupted?: boolean; selected?: SelectedRequirements } = {},
): Verdict[] {
  const interrupted = options.interrupted ?? false;
  const selected = options.selected;
  return REQUIREMENTS.map((r) => {
    const id = r.id as RequirementId;
    const findings = outcomes.flatMap((o) =>
      o.findings.filter((f) => f.requirement === id).map((f) => ({ ...f, probe: o.probe })),
    );
    const judged = outcomes.reduce((n, o) => n + (o.judged[id] ?? 0), 0);
    const aiming = outcomes.filter((o) => o.requirements.includes(id));
    const oracles = ORACLE_CATALOG.filter((o) => o.requirements.includes(id));
    let status: VerdictStatus;
    if (findings.length > 0) status = requirement(id).level === 'MUST' ? 'failed' : 'warned';
    else if (judged > 0) status = 'passed';
    else if (selected !== undefined && !selected.requirements.includes(id)) status = 'not-selected';
    else status = 'not-exercised';
    const reasons: string[] = [];
    if (status === 'not-selected') reasons.push(`not selected: this run was limited to ${selected!.label}`);
    if (status === 'not-exercised') {
      const add = (reason: string): void => {
        if (!reasons.includes(reason)) reasons.push(reason);
      };
      // A skipped probe is the reason only when no probe aiming at it ran: where one ran, why that
      // one judged nothing is the reason (a read-only run is not why a read saw no counterparty).
      if (aiming.every((o) => o.status === 'skipped'))
        for (const o of aiming) add(o.skipReason ?? `${o.probe} was skipped`);
      for (const o of outcomes) for (const n of o.notApplicable) if (n.requirement === id) add(n.reason);
      for (const o of aiming)
        if (o.incomplete !== undefined)
          add(o.interrupted ? INTERRUPTED_REASON : `${o.probe} could not complete: ${o.incomplete}`);
      // What an oracle did not see says nothing about a run that stopped before sending it.
      if (!interrupted) {
        for (const o of oracles) {
          const why = o.unexercised[id];
          if (why !== undefined) add(why);
        }
      }
      if (reasons.length === 0) {
        if (interrupted) add(INTERRUPTED_REASON);
        else add(aiming.length === 0 ? 'no probe of this run aims at it' : 'nothing in this run judged it');
      }
      // The interruption first: it is why the others did not get their turn.
      const at = reasons.indexOf(INTERRUPTED_REASON);
      if (at > 0) reasons.unshift(...reasons.splice(at, 1));
    }
    return {
      id,
      level: r.level,
      status,
      reasons,
      findings,
      groups: groupFindings(findings, outcomes),
      judged,
      probes: judgingProbes(id, outcomes, findings),
      oracles: oracles.map((o) => o.id),
    };
  });
}
