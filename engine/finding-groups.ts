/**
 * Findings grouped by cause: the findings of one requirement on the same operation, answered
 * with the same status and a received text of the same shape (its strings and numbers left out,
 * so the reference a 500 page echoes does not split a group) are one cause. A deployment that
 * answers 500 to every unknown reference is one group with a count, one representative with its
 * evidence, and the distinct inputs, instead of a page of identical findings.
 *
 * The engine keeps a few findings per cause (FindingKeeper) and counts every one, with its input,
 * so a second cause of the same requirement is never crowded out by the first; the verdicts
 * (engine/verdicts.ts) merge the causes of every probe into groups.
 */
import { escapeControls } from '../exchange/escape.ts';
import { route } from '../exchange/route.ts';
import type { RequirementId } from '../spec/requirements.ts';
import type { Cause, CauseCount, Finding } from './types.ts';

/** Findings kept per cause and probe; the rest are counted, with their inputs. */
export const MAX_FINDINGS_PER_CAUSE = 3;
/** Causes kept per requirement and probe; findings of further causes are counted under the last. */
export const MAX_CAUSES_PER_REQUIREMENT = 20;
/** Distinct inputs listed per cause. */
export const MAX_INPUTS_PER_CAUSE = 10;

/** The shape of a received text: strings other than keys become "…", numbers 0, runs of space one. */
export function shapeOf(received: string): string {
  const shape = received
    .split('\n')[0]!
    // Whole strings, left to right, so a closing quote never opens one; a key (before ':') stays.
    .replace(/"(?:[^"\\]|\\.)*"(\s*:)?/g, (string, key?: string) => (key ? string : '"…"'))
    .replace(/(?<![\w.-])\d+(?:\.\d+)?(?![\w.])/g, '0')
    .replace(/\s+/g, ' ')
    .trim();
  return shape.length > 200 ? `${shape.slice(0, 199)}…` : shape;
}

/**
 * The cause of a finding. Its texts are read escaped (exchange/escape.ts), as the outcome carries
 * them once the probe ends, so a finding counted raw and the same finding read from a report have
 * one cause.
 */
export function causeOf(f: Finding): Cause {
  let operation = 'no request';
  if (f.request) {
    const r = route(f.request.method, escapeControls(f.request.url));
    operation =
      r.route?.operation.operationId ??
      `${f.request.method} ${r.inInterface ? '(no operation)' : 'outside the interface'}`;
  }
  return {
    requirement: f.requirement,
    operation,
    status: f.status ?? 0,
    // Line breaks are layout, not shape: a space, never a literal \n in the report.
    shape: shapeOf(escapeControls(f.received.replace(/\r?\n/g, ' '))),
  };
}

export function causeKey(c: Cause): string {
  return JSON.stringify([c.requirement, c.operation, c.status, c.shape]);
}

/** What tells the findings of one cause apart: the generated input, else the request line. */
export function inputOf(f: Finding): string {
  const text = escapeControls(
    f.input !== undefined
      ? JSON.stringify(f.input)
      : f.request
        ? `${f.request.method} ${pathOf(f.request.url)}`
        : f.message,
  );
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/**
 * Decides which findings of a probe are kept (a few per cause, a bounded number of causes per
 * requirement) and counts every finding per cause.
 */
export class FindingKeeper {
  private readonly causes = new Map<string, CauseCount & { kept: number; seen: Set<string> }>();
  private readonly perRequirement = new Map<RequirementId, string[]>();
  /** Cause and judge pairs seen: the first finding of each is kept, so no judge goes unnamed. */
  private readonly judges = new Set<string>();

  /** Counts the finding; true when it is to be kept. */
  keep(f: Finding): boolean {
    const cause = causeOf(f);
    let key = causeKey(cause);
    const keys = this.perRequirement.get(f.requirement) ?? [];
    this.perRequirement.set(f.requirement, keys);
    if (!this.causes.has(key)) {
      if (keys.length >= MAX_CAUSES_PER_REQUIREMENT) key = keys[keys.length - 1]!;
      else {
        keys.push(key);
        this.causes.set(key, { ...cause, count: 0, inputs: [], moreInputs: 0, kept: 0, seen: new Set() });
      }
    }
    const c = this.causes.get(key)!;
    c.count++;
    const input = inputOf(f);
    if (!c.seen.has(input)) {
      c.seen.add(input);
      if (c.inputs.length < MAX_INPUTS_PER_CAUSE) c.inputs.push(input);
      else c.moreInputs++;
    }
    const judge = `${key}|${f.judgedBy}`;
    const firstOfJudge = !this.judges.has(judge);
    this.judges.add(judge);
    // A finding of a property case is kept whatever came before it (one per property and
    // requirement): it is the one with an input and a --case replay.
    const replayable = f.property !== undefined && f.path !== undefined;
    if (c.kept >= MAX_FINDINGS_PER_CAUSE && !firstOfJudge && !replayable) return false;
    c.kept++;
    return true;
  }

  /** Every cause counted, in the order first seen. */
  counts(): CauseCount[] {
    return [...this.causes.values()].map(({ kept: _kept, seen: _seen, ...c }) => c);
  }

  /** One note per requirement with findings not kept: "<id>: N more finding(s) not kept". */
  notes(): string[] {
    const out: string[] = [];
    for (const [id, keys] of this.perRequirement) {
      const unkept = keys.reduce((n, k) => {
        const c = this.causes.get(k)!;
        return n + c.count - c.kept;
      }, 0);
      if (unkept > 0) out.push(`${id}: ${unkept} more finding(s) not kept (counted in their groups)`);
    }
    return out;
  }
}
