/**
 * A StrykerJS test runner plugin whose one test is the conformance suite's own run against the
 * embedded reference server (mutation/suite.ts), in the worker process Stryker keeps alive.
 *
 * Why a plugin and not the command test runner: the command runner starts a process per mutant
 * (Node, tsx and the suite's modules: some 1.5 s of CPU before the first request); here a worker
 * loads the suite once and each mutant is switched on at run time by setting
 * `globalThis.__stryker__.activeMutant` (runtime activation). A mutant in module-level code
 * (a constant of servers/reference.ts: a static mutant) only shows when the module is loaded with
 * it active: Stryker asks for those with `mutantActivation: 'static'`, and since this runner
 * reports it cannot reload its environment (ES modules cannot be unloaded), Stryker starts a
 * fresh worker for each; the runner then activates the mutant before it loads the suite.
 *
 * The suite is imported from Stryker's sandbox (the worker's working directory), where the
 * mutated files are instrumented; this file imports nothing of the project, so it never loads
 * the pristine copies. TypeScript is loaded through tsx, which mutation/plugin.mjs registers in every process.
 *
 * Coverage ('all' or 'perTest' analysis): the dry run counts what the run executes under the
 * one test's id, so every mutant covered by the run is run against the whole suite, and a mutant
 * the run never reaches is reported "no coverage" without a run.
 *
 * Infinite loops: Stryker's hit limit (a mutant switched on far more often than the dry run
 * reached it) makes the run a timeout; a hang without a loop is ended by Stryker's own timeout,
 * which kills the worker: a timeout too.
 *
 * The test's name carries a fingerprint of the suite's sources (every file outside servers/,
 * tests/ and the tooling): Stryker's incremental mode keys a test by its name, so any change to
 * the suite makes every earlier result stale (a changed oracle may move any verdict), while a
 * change to the server re-tests only the mutants in the code that changed.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { commonTokens, declareClassPlugin, PluginKind, tokens } from '@stryker-mutator/api/plugin';
import type { Logger } from '@stryker-mutator/api/logging';
import {
  DryRunStatus,
  MutantRunStatus,
  TestStatus,
  type DryRunOptions,
  type DryRunResult,
  type MutantRunOptions,
  type MutantRunResult,
  type TestRunner,
  type TestRunnerCapabilities,
} from '@stryker-mutator/api/test-runner';
import type { SuiteVerdict } from './suite.ts';

/** The one test's id. */
export const TEST_ID = 'conformance-suite';

/** What the instrumented code reads and writes (INSTRUMENTER_CONSTANTS of @stryker-mutator/api). */
interface StrykerNamespace {
  activeMutant?: string;
  currentTestId?: string;
  hitCount?: number;
  hitLimit?: number;
  mutantCoverage?: { static: Record<string, number>; perTest: Record<string, Record<string, number>> };
}

type SuiteModule = typeof import('./suite.ts');

function ns(): StrykerNamespace {
  const g = globalThis as { __stryker__?: StrykerNamespace };
  return (g.__stryker__ ??= {});
}

/** Directories that are not the suite: the servers under test, the project's own tests, tooling. */
const NOT_THE_SUITE = new Set([
  'servers',
  'tests',
  'bench',
  'bin',
  'docs',
  'node_modules',
  'reports',
  'test-results',
  '.git',
  '.github',
  '.ci',
  '.stryker-tmp',
]);

/** A short hash of the suite's sources (TypeScript and the spec) under `root`. */
export function suiteFingerprint(root: string): string {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!(dir === root && NOT_THE_SUITE.has(entry.name)) && !entry.name.startsWith('.')) walk(path);
      } else if (
        /\.(ts|ya?ml|json)$/.test(entry.name) &&
        !/^(package-lock|tsconfig)\.json$/.test(entry.name)
      ) {
        const rel = relative(root, path).split(sep).join('/');
        // The tooling's own files, other than the test itself, are not the suite.
        if (rel.startsWith('mutation/') && rel !== 'mutation/suite.ts') continue;
        if (!rel.includes('/')) continue;
        files.push(rel);
      }
    }
  };
  walk(root);
  const hash = createHash('sha256');
  for (const rel of files.sort())
    hash
      .update(`${rel}\0`)
      .update(readFileSync(join(root, rel)))
      .update('\0');
  return hash.digest('hex').slice(0, 12);
}

export class ConformanceTestRunner implements TestRunner {
  static inject = tokens(commonTokens.logger);
  private suite: SuiteModule | undefined;
  private testName = '';

  constructor(private readonly log: Logger) {}

  capabilities(): TestRunnerCapabilities {
    return { reloadEnvironment: false };
  }

  private async load(): Promise<SuiteModule> {
    if (!this.suite) {
      const root = process.cwd();
      this.suite = (await import(pathToFileURL(resolve(root, 'mutation', 'suite.ts')).href)) as SuiteModule;
      this.testName = `the conformance suite, write mode against the embedded server, seed ${this.suite.MUTATION_SEED} @ ${suiteFingerprint(root)}`;
    }
    return this.suite;
  }

  /** Runs the suite once; the time it took and its verdict, or the error that stopped it. */
  private async runOnce(bail: boolean): Promise<{ ms: number; verdict?: SuiteVerdict; error?: string }> {
    const suite = await this.load();
    const started = performance.now();
    try {
      const verdict = await suite.runConformance({ bail });
      return { ms: performance.now() - started, verdict };
    } catch (error) {
      return {
        ms: performance.now() - started,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      };
    }
  }

  async dryRun(options: DryRunOptions): Promise<DryRunResult> {
    const n = ns();
    delete n.activeMutant;
    // The instrumented code keeps the first coverage object it finds: what module-level code
    // reaches while the suite loads is static coverage, the rest belongs to the test.
    n.mutantCoverage ??= { static: {}, perTest: {} };
    await this.load();
    n.currentTestId = TEST_ID;
    let result;
    try {
      result = await this.runOnce(false);
    } finally {
      delete n.currentTestId;
    }
    if (result.error !== undefined) return { status: DryRunStatus.Error, errorMessage: result.error };
    const verdict = result.verdict!;
    const base = { id: TEST_ID, name: this.testName, timeSpentMs: Math.round(result.ms) };
    this.log.info(
      `dry run: ${verdict.probesRun} probes, ${verdict.requests} requests, ${Math.round(result.ms)} ms`,
    );
    return {
      status: DryRunStatus.Complete,
      tests: [
        verdict.failed
          ? { ...base, status: TestStatus.Failed, failureMessage: verdict.reasons.join('\n') }
          : { ...base, status: TestStatus.Success },
      ],
      ...(options.coverageAnalysis === 'off' ? {} : { mutantCoverage: n.mutantCoverage }),
    };
  }

  async mutantRun(options: MutantRunOptions): Promise<MutantRunResult> {
    const n = ns();
    const id = options.activeMutant.id;
    // A static mutant is active while the modules load; a runtime one only while the suite runs.
    if (options.mutantActivation === 'static') n.activeMutant = id;
    await this.load();
    n.activeMutant = id;
    n.hitCount = options.hitLimit === undefined ? undefined : 0;
    n.hitLimit = options.hitLimit;
    let result;
    try {
      result = await this.runOnce(!options.disableBail);
    } finally {
      delete n.activeMutant;
    }
    const hits = n.hitCount;
    delete n.hitCount;
    delete n.hitLimit;
    if (options.hitLimit !== undefined && hits !== undefined && hits > options.hitLimit) {
      return { status: MutantRunStatus.Timeout, reason: `Hit limit reached (${hits}/${options.hitLimit})` };
    }
    if (result.error !== undefined) {
      // The suite itself threw: the mutant broke something the run relies on (a module constant).
      return {
        status: MutantRunStatus.Killed,
        killedBy: [TEST_ID],
        failureMessage: result.error,
        nrOfTests: 1,
      };
    }
    const verdict = result.verdict!;
    if (verdict.failed) {
      return {
        status: MutantRunStatus.Killed,
        killedBy: [TEST_ID],
        failureMessage: verdict.reasons.join('\n'),
        nrOfTests: 1,
      };
    }
    return { status: MutantRunStatus.Survived, nrOfTests: 1 };
  }
}

export const strykerPlugins = [
  declareClassPlugin(PluginKind.TestRunner, 'conformance', ConformanceTestRunner),
];
