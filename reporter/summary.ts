/**
 * The machine-readable record of a conformance run, built from check outcomes and the
 * requirement catalogue. Written to reports/conformance.json; the CLI's exit status and the
 * console summary are derived from it.
 */
import { verdicts, type Verdict } from '../checks/engine.ts';
import type { CheckOutcome } from '../checks/types.ts';
import { spec } from '../spec/index.ts';
import { REQUIREMENTS } from '../spec/requirements.ts';

export interface IncompleteCheck {
  test: string;
  error: string;
}

export interface ConformanceRecord {
  tool: 'payflow-conformance';
  interfaceVersion: string;
  target: { baseURL: string; kind: string };
  mode: 'read-only' | 'write';
  seed: number;
  runs: number;
  startedAt: string;
  durationMs: number;
  /** pass: no MUST requirement failed and every check completed. */
  verdict: 'pass' | 'fail';
  counts: Record<'MUST' | 'SHOULD', Record<Verdict['status'], number>>;
  requests: number;
  requirements: (Verdict & { section: string; group: string; statement: string; rationale?: string })[];
  checks: Omit<CheckOutcome, 'findings'>[];
  incomplete: IncompleteCheck[];
}

export function buildRecord(input: {
  outcomes: CheckOutcome[];
  incomplete: IncompleteCheck[];
  env: Record<string, string | undefined>;
  startedAt: Date;
  durationMs: number;
}): ConformanceRecord {
  const vs = verdicts(input.outcomes);
  const empty = (): Record<Verdict['status'], number> => ({
    passed: 0,
    failed: 0,
    warned: 0,
    skipped: 0,
    'not-run': 0,
  });
  const counts = { MUST: empty(), SHOULD: empty() };
  for (const v of vs) counts[v.level][v.status]++;
  const failedMust = vs.some((v) => v.level === 'MUST' && v.status === 'failed');
  return {
    tool: 'payflow-conformance',
    interfaceVersion: spec().version,
    target: {
      baseURL: input.env.API_BASE_URL ?? '',
      kind: input.env.CONFORMANCE_TARGET_KIND ?? 'configured deployment',
    },
    mode: input.env.WRITABLE_COUNTERPARTY_REF ? 'write' : 'read-only',
    seed: Number(input.env.CONFORMANCE_SEED ?? 0),
    runs: Number(input.env.CONFORMANCE_RUNS ?? 0),
    startedAt: input.startedAt.toISOString(),
    durationMs: Math.round(input.durationMs),
    verdict: failedMust || input.incomplete.length > 0 ? 'fail' : 'pass',
    counts,
    requests: input.outcomes.reduce((n, o) => n + o.requests, 0),
    requirements: vs.map((v) => {
      const r = REQUIREMENTS.find((x) => x.id === v.id)!;
      return {
        ...v,
        section: r.section,
        group: r.group,
        statement: r.statement,
        ...('rationale' in r ? { rationale: r.rationale } : {}),
      };
    }),
    checks: input.outcomes.map(({ findings: _f, ...rest }) => rest),
    incomplete: input.incomplete,
  };
}

const MARK: Record<Verdict['status'], string> = {
  passed: 'pass',
  failed: 'FAIL',
  warned: 'warn',
  skipped: 'skip',
  'not-run': 'n/a ',
};

/** The console summary: the verdict, then one line per requirement that did not pass. */
export function formatSummary(record: ConformanceRecord): string {
  const lines: string[] = [];
  const c = record.counts;
  lines.push('');
  lines.push(
    `Conformance ${record.verdict === 'pass' ? 'PASSED' : 'FAILED'} against ${record.target.baseURL} (${record.target.kind}), interface ${record.interfaceVersion}, ${record.mode} run`,
  );
  lines.push(
    `  MUST: ${c.MUST.passed} passed, ${c.MUST.failed} failed, ${c.MUST.skipped} skipped | SHOULD: ${c.SHOULD.passed} passed, ${c.SHOULD.warned} warned, ${c.SHOULD.skipped} skipped | ${record.requests} requests, ${(record.durationMs / 1000).toFixed(1)} s`,
  );
  for (const v of record.requirements) {
    if (v.status === 'passed') continue;
    const why =
      v.status === 'skipped' || v.status === 'not-run' ? ` (${v.reasons.join('; ') || 'no check ran'})` : '';
    lines.push(`  [${MARK[v.status]}] ${v.level} ${v.id} (${v.section}): ${v.statement}${why}`);
    for (const f of v.findings.slice(0, 2)) {
      lines.push(`         ${f.message}`);
      lines.push(`           expected ${f.expected}`);
      lines.push(`           received ${f.received.split('\n')[0]}`);
      if (f.input !== undefined) lines.push(`           input ${JSON.stringify(f.input)}`);
      if (f.rule) lines.push(`           rule ${f.rule.field} ${f.rule.keyword}: ${f.rule.description}`);
      if (f.curl) lines.push(`           ${f.curl}`);
    }
    if (v.findings.length > 2)
      lines.push(`         … ${v.findings.length - 2} more finding(s) in reports/conformance.json`);
  }
  for (const i of record.incomplete) lines.push(`  [ERR ] ${i.test}: ${i.error}`);
  lines.push(`  Seed ${record.seed}: replay with CONFORMANCE_SEED=${record.seed} npm run conformance`);
  lines.push('  Reports: reports/conformance.json, reports/playwright/index.html');
  return lines.join('\n');
}
