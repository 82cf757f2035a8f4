/**
 * The floor Playwright's runner sets under any run of the suite: a project of four empty tests on
 * two workers (what a run of the suite starts: the runner, then two worker processes), run by
 * Playwright's CLI as the suite's own run is. How long after the spawn the first test's body
 * starts, and when the process exits. No check of the suite can send a request sooner than the
 * first, so this is what a run's timeline (bench/timeline.ts) is to be read against.
 * BENCH_ONLY=floor runs this case alone.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLAYWRIGHT, ROOT, run } from './processes.ts';

/** Runs measured after one that warms the machine's file cache (and Playwright's compile cache). */
export const FLOOR_RUNS = 5;

export interface Floor {
  /** Milliseconds from the spawn to the first test's body, per run. */
  firstTest: number[];
  /** Milliseconds from the spawn to the exit, per run. */
  exit: number[];
  codes: number[];
}

/** Four empty tests on two workers, run `FLOOR_RUNS` times after a warm-up. */
export async function playwrightFloor(runs = FLOOR_RUNS): Promise<Floor> {
  const dir = mkdtempSync(join(tmpdir(), 'payflow-floor-'));
  const log = join(dir, 'starts.log');
  try {
    mkdirSync(join(dir, 'tests'));
    // Resolved from the project's own packages, as the suite's tests are.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(
      join(dir, 'playwright.config.mjs'),
      "export default { testDir: 'tests', workers: 2, fullyParallel: true, reporter: 'null' };\n",
    );
    writeFileSync(
      join(dir, 'tests', 'empty.spec.mjs'),
      [
        "import { appendFileSync } from 'node:fs';",
        "import { test } from '@playwright/test';",
        `for (const n of [1, 2, 3, 4]) test(\`empty \${n}\`, () => appendFileSync(${JSON.stringify(log)}, \`\${Date.now()}\\n\`));`,
        '',
      ].join('\n'),
    );
    const env: NodeJS.ProcessEnv = { ...process.env };
    const floor: Floor = { firstTest: [], exit: [], codes: [] };
    for (let i = 0; i <= runs; i++) {
      rmSync(log, { force: true });
      const r = await run([PLAYWRIGHT, 'test', '--config', join(dir, 'playwright.config.mjs')], env);
      if (i === 0) continue;
      const starts = readFileSync(log, 'utf8').trim().split('\n').map(Number);
      floor.firstTest.push(Math.min(...starts) - r.spawnedAt);
      floor.exit.push(r.ms);
      floor.codes.push(r.code);
    }
    return floor;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The floor as a row of the benchmark's table. */
export function floorRow(f: Floor): [string, string] {
  const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
  return [
    "Playwright's floor: 4 empty tests, 2 workers (median)",
    `first test ${s(median(f.firstTest))} after the spawn (${f.firstTest.map(s).join(', ')}), exit ${s(median(f.exit))}` +
      (f.codes.every((c) => c === 0) ? '' : ` (exit statuses ${f.codes.join(', ')})`),
  ];
}
