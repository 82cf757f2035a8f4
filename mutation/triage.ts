/**
 * The triage of surviving mutants (mutation/triage.yaml) and the score over the mutants not
 * triaged as equivalent. Pure functions of the triage file, Stryker's mutation.json and
 * ../shared/interface.md; mutation/check.ts prints them, tests/self/mutation-triage.spec.ts
 * checks the file's form.
 *
 * An entry names one mutant by what does not move when lines do: the file, the member of the
 * class (or the top-level declaration) it is in, Stryker's mutator, the original text and the
 * replacement (white space collapsed; a long original, such as a whole block, abbreviated with a
 * hash of the whole). Identical mutants of identical code in the same member share an entry.
 *
 * Verdicts:
 *   - killed-now: the suite did not notice the mutant, and now does: a new or sharper oracle,
 *     probe or generated class, proven without Stryker by the gallery variant named (`variant`,
 *     an id of servers/gallery/), which reproduces the deviation by hand.
 *   - equivalent: the mutant behaves as the original for every request; `reason` says why the
 *     two programs cannot be told apart from outside.
 *   - silent: the mutant behaves differently where the document leaves the behaviour open;
 *     `quote` is the sentence of interface.md that leaves it open, word for word, and `reason`
 *     says how.
 *   - missed: a deviation the document settles that the suite does not yet detect: an open blind
 *     spot, named with what it would take (`reason`). It counts against the score.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const VERDICTS = ['killed-now', 'equivalent', 'silent', 'missed'] as const;
export type TriageVerdict = (typeof VERDICTS)[number];

export interface TriageEntry {
  file: string;
  /** The class member or top-level declaration the mutant is in (a handler of the reference server, named after its operation). */
  in: string;
  mutator: string;
  original: string;
  replacement: string;
  verdict: TriageVerdict;
  reason: string;
  /** silent: the sentence of interface.md that leaves the behaviour open, word for word. */
  quote?: string;
  /** killed-now: the gallery variant that reproduces the deviation. */
  variant?: string;
}

/** A mutant as mutation.json records it (mutation-testing-report-schema), with its file's source. */
export interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  statusReason?: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

export interface MutationReport {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

/** Keyed text longer than this is abbreviated to its start and a hash of the whole. */
const MAX_KEY_TEXT = 120;

/** White space collapsed; a long text as its first 80 characters, an ellipsis and a hash. */
export function keyText(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= MAX_KEY_TEXT) return t;
  return `${t.slice(0, 80)} … #${createHash('sha256').update(t).digest('hex').slice(0, 10)}`;
}

/** The stable key of an entry or a mutant. */
export function keyOf(k: Pick<TriageEntry, 'file' | 'in' | 'mutator' | 'original' | 'replacement'>): string {
  return JSON.stringify([k.file, k.in, k.mutator, keyText(k.original), keyText(k.replacement)]);
}

/** Offsets of the starts of each line of `source` (line 1 at index 0). */
function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') starts.push(i + 1);
  return starts;
}

/** The original text a mutant replaced (Stryker's locations: lines from 1, columns from 1). */
export function originalOf(source: string, m: ReportMutant): string {
  const starts = lineStarts(source);
  const at = (p: { line: number; column: number }): number => starts[p.line - 1]! + p.column - 1;
  return source.slice(at(m.location.start), at(m.location.end));
}

/**
 * The member a line is in: inside a class, the nearest member declared above it at the class's
 * indentation (`protected async patchCounterparty(`, `constructor(`, `private readonly x =`);
 * elsewhere the top-level declaration (`export function isJsonMediaType(`, `export const
 * MAX_JSON_BODY`).
 */
export function memberAt(source: string, line: number): string {
  const lines = source.split('\n');
  const member =
    /^ {2}(?:(?:public|protected|private|static|async|readonly|override|get|set)\s+)*(constructor|[A-Za-z_$][\w$]*)\s*[(<:=?!;]/;
  const keyword =
    /^(?:if|for|while|switch|return|throw|try|catch|else|do|const|let|var|await|yield|new|delete|typeof|void)$/;
  const top =
    /^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(function\*?|const|let|class|interface|type)\s+([A-Za-z_$][\w$]*)/;
  let candidate: string | undefined;
  for (let i = line - 1; i >= 0; i--) {
    const text = lines[i]!;
    const m = member.exec(text);
    if (m && candidate === undefined && !keyword.test(m[1]!)) candidate = m[1]!;
    const t = top.exec(text);
    if (t) return t[1] === 'class' ? (candidate ?? t[2]!) : t[2]!;
  }
  return '(top)';
}

/** The triage key of a mutant of a report. */
export function mutantKey(file: string, source: string, m: ReportMutant): string {
  return keyOf({
    file,
    in: memberAt(source, m.location.start.line),
    mutator: m.mutatorName,
    original: originalOf(source, m),
    replacement: m.replacement ?? '',
  });
}

/** What is wrong with one entry, judged alone (the gallery's ids and the document given). */
export function entryProblems(
  e: TriageEntry,
  galleryIds: ReadonlySet<string>,
  interfaceText: string | undefined,
): string[] {
  const problems: string[] = [];
  const what = `${e.file} ${e.in} ${e.mutator} ${JSON.stringify(keyText(e.original))} -> ${JSON.stringify(keyText(e.replacement))}`;
  for (const field of ['file', 'in', 'mutator', 'original', 'reason'] as const) {
    if (typeof e[field] !== 'string' || e[field].trim() === '') problems.push(`${what}: no ${field}`);
  }
  if (typeof e.replacement !== 'string') problems.push(`${what}: no replacement`);
  if (!VERDICTS.includes(e.verdict)) problems.push(`${what}: verdict must be one of ${VERDICTS.join(', ')}`);
  const allowed = new Set([
    'file',
    'in',
    'mutator',
    'original',
    'replacement',
    'verdict',
    'reason',
    'quote',
    'variant',
  ]);
  for (const k of Object.keys(e)) if (!allowed.has(k)) problems.push(`${what}: unknown field ${k}`);
  if (e.verdict === 'killed-now') {
    if (!e.variant) problems.push(`${what}: killed-now names no gallery variant`);
    else if (!galleryIds.has(e.variant)) problems.push(`${what}: no gallery variant ${e.variant}`);
  } else if (e.variant !== undefined) problems.push(`${what}: only a killed-now entry names a variant`);
  if (e.verdict === 'silent') {
    if (!e.quote)
      problems.push(`${what}: a silent entry quotes the sentence of interface.md that leaves it open`);
  }
  if (e.quote !== undefined && interfaceText !== undefined && !interfaceText.includes(e.quote))
    problems.push(`${what}: the quote is not word for word in interface.md: ${JSON.stringify(e.quote)}`);
  return problems;
}

/** Reads and checks the form of the triage file (a YAML list of entries); throws on a malformed one. */
export function loadTriage(path: string): TriageEntry[] {
  const doc = parse(readFileSync(path, 'utf8')) as unknown;
  const list = (doc as { mutants?: unknown } | null)?.mutants ?? [];
  if (!Array.isArray(list)) throw new Error(`${path}: expected a top-level "mutants:" list`);
  return list as TriageEntry[];
}

/** Problems of the whole file: each entry's, and keys given twice. */
export function triageProblems(
  entries: readonly TriageEntry[],
  galleryIds: ReadonlySet<string>,
  interfaceText: string | undefined,
): string[] {
  const problems = entries.flatMap((e) => entryProblems(e, galleryIds, interfaceText));
  const seen = new Set<string>();
  for (const e of entries) {
    const key = keyOf(e);
    if (seen.has(key)) problems.push(`triaged twice: ${key}`);
    seen.add(key);
  }
  return problems;
}

export interface MutantRow {
  file: string;
  line: number;
  key: string;
  status: string;
  mutator: string;
  original: string;
  replacement: string;
  entry?: TriageEntry;
}

export interface ScoreSummary {
  total: number;
  byStatus: Record<string, number>;
  /** Detected: killed and timed out. */
  detected: number;
  /** Survived or no coverage, with or without an entry. */
  undetected: MutantRow[];
  /** Undetected with no entry: each needs one. */
  untriaged: MutantRow[];
  /** Undetected whose entry says killed-now: the check it names does not kill it. */
  claimedKilled: MutantRow[];
  /** Triaged equivalent or silent (left out of the score). */
  equivalent: MutantRow[];
  /** Triaged missed: open blind spots (counted against the score). */
  missed: MutantRow[];
  /** Detected mutants triaged equivalent or silent: the suite tells apart what the entry calls the same. */
  contradicted: MutantRow[];
  /** Entries matching no mutant of the report. */
  stale: TriageEntry[];
  /** (killed + timeout) / (valid mutants - equivalent or silent), in percent. */
  score: number;
  /** Stryker's own score: (killed + timeout) / valid mutants, in percent. */
  strykerScore: number;
  /** Detected only by a SHOULD warning (the failure message names no MUST and no incomplete probe). */
  shouldOnly: number;
}

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);

/** Scores a report against the triage. */
export function summarize(report: MutationReport, entries: readonly TriageEntry[]): ScoreSummary {
  const byKey = new Map(entries.map((e) => [keyOf(e), e]));
  const used = new Set<string>();
  const rows: MutantRow[] = [];
  const byStatus = new Map<string, number>();
  let shouldOnly = 0;
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      byStatus.set(m.status, (byStatus.get(m.status) ?? 0) + 1);
      const key = mutantKey(file, source, m);
      const entry = byKey.get(key);
      if (entry) used.add(key);
      rows.push({
        file,
        line: m.location.start.line,
        key,
        status: m.status,
        mutator: m.mutatorName,
        original: keyText(originalOf(source, m)),
        replacement: keyText(m.replacement ?? ''),
        ...(entry ? { entry } : {}),
      });
      if (m.status === 'Killed' && m.statusReason && !/^(MUST |.* could not complete)/m.test(m.statusReason))
        shouldOnly++;
    }
  }
  const valid = rows.filter((r) => DETECTED.has(r.status) || UNDETECTED.has(r.status));
  const undetected = valid.filter((r) => UNDETECTED.has(r.status));
  const isEquivalent = (r: MutantRow): boolean =>
    r.entry?.verdict === 'equivalent' || r.entry?.verdict === 'silent';
  const equivalent = undetected.filter(isEquivalent);
  const detected = valid.length - undetected.length;
  const denominator = valid.length - equivalent.length;
  return {
    total: rows.length,
    byStatus: Object.fromEntries(byStatus),
    detected,
    undetected,
    untriaged: undetected.filter((r) => !r.entry),
    claimedKilled: undetected.filter((r) => r.entry?.verdict === 'killed-now'),
    equivalent,
    missed: undetected.filter((r) => r.entry?.verdict === 'missed'),
    contradicted: valid.filter((r) => DETECTED.has(r.status) && isEquivalent(r)),
    stale: entries.filter((e) => !used.has(keyOf(e))),
    score: denominator === 0 ? 100 : (100 * detected) / denominator,
    strykerScore: valid.length === 0 ? 100 : (100 * detected) / valid.length,
    shouldOnly,
  };
}

/** A triage entry for an untriaged mutant, to fill in (printed by mutation/check.ts). */
export function entryTemplate(r: MutantRow): string {
  const [file, member] = JSON.parse(r.key) as [string, string];
  return [
    `  - file: ${file}`,
    `    in: ${member}`,
    `    mutator: ${r.mutator}`,
    `    original: ${JSON.stringify(r.original)}`,
    `    replacement: ${JSON.stringify(r.replacement)}`,
    `    verdict: # killed-now (with variant:), equivalent, or silent (with quote:)`,
    `    reason: # line ${r.line}, ${r.status}`,
  ].join('\n');
}
