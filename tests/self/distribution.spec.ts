/**
 * What the suite ships, checked without a registry, GitHub or docker (tests/self/pack.spec.ts
 * installs the tarball for real):
 * - the package (`npm pack --dry-run`): every module the command, the Playwright configurations,
 *   the checks and the reporter import is in it, none of the project's own tests, servers of the
 *   gallery or docs; nothing it ships imports a development dependency (a user installs none);
 * - action.yml: a composite Action whose inputs are all described and used and whose steps use
 *   no undeclared input, which sets up Node 20, installs the suite from its own directory, runs
 *   it with the inputs in the environment (never spliced into a script), uploads the reports
 *   whatever happened, and has no token input; its run step, run by bash as GitHub runs it,
 *   turns the inputs into flags and exits with the suite's status;
 * - the workflows: every step using the Action gives only its inputs, and the repository's gate
 *   passes every setting of the suite, ACCOUNT_FIXTURE included, with the token as API_TOKEN;
 * - the Dockerfile: node:20-slim, npm ci without dev dependencies, the command as entry point,
 *   /work as working directory, and what it copies is exactly what the package holds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { action, actionRunStep, type ActionStep } from './action-fixtures.ts';
import { removeTemporaryDirectories, ROOT, temporaryDirectory } from './cli-fixtures.ts';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  private?: boolean;
};

let packedFiles: string[] | undefined;

/** The files `npm pack` would put in the tarball. */
function packed(): string[] {
  if (packedFiles === undefined) {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    packedFiles = (JSON.parse(r.stdout) as [{ files: { path: string }[] }])[0].files
      .map((f) => f.path)
      .sort();
  }
  return packedFiles;
}

/** The specifiers a TypeScript or JavaScript module imports (static, dynamic and re-exports). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(
    /(?:^|\s)(?:import|export)\s[^;'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|^import\s+'([^']+)'/gm,
  ))
    out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** The package name of a bare specifier ('@playwright/test/cli' -> '@playwright/test'). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * The project's files reachable from `entries` by relative imports, and the packages they import.
 * The Playwright configurations name their global setup and reporter as strings: they are entries.
 */
function closure(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of importsOf(join(ROOT, file))) {
      if (specifier.startsWith('.')) todo.push(normalize(join(dirname(file), specifier)));
      else if (!specifier.startsWith('node:')) packages.add(packageOf(specifier));
    }
  }
  return { files, packages };
}

const ENTRIES = [
  manifest.bin['payflow-conformance']!,
  'bin/conformance.ts',
  'bin/validate.ts',
  'bin/merge-shards.ts',
  'playwright.config.ts',
  'playwright.merge.config.ts',
  'suite/global-setup.ts',
  'suite/conformance-reporter.ts',
  ...readdirSync(join(ROOT, 'tests', 'conformance'))
    .filter((f) => f.endsWith('.spec.ts'))
    .map((f) => `tests/conformance/${f}`),
];

test.describe('the package', () => {
  test('is publishable, with the command as its bin', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toEqual({ 'payflow-conformance': 'bin/payflow-conformance.mjs' });
    const shim = readFileSync(join(ROOT, manifest.bin['payflow-conformance']!), 'utf8');
    expect(shim.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(join(ROOT, manifest.bin['payflow-conformance']!)).mode & 0o111).not.toBe(0);
  });

  test('holds every module the command and the suite load, and the files they read', () => {
    const files = packed();
    const { files: needed } = closure(ENTRIES);
    expect([...needed].filter((f) => !files.includes(f))).toEqual([]);
    for (const data of ['spec/openapi.yaml', 'reporter/conformance-record.schema.json', 'package.json'])
      expect(files).toContain(data);
  });

  test("holds none of the project's own tests, the gallery, the docs or generated output", () => {
    const unwanted =
      /^(tests\/self|servers\/(gallery|independent)|docs|bench|oracles\/vectors|reports|test-results|node_modules|\.github)\//;
    expect(packed().filter((f) => unwanted.test(f))).toEqual([]);
    expect(packed().filter((f) => f.endsWith('.tgz'))).toEqual([]);
  });

  test('nothing it ships imports a development dependency: a user installs none', () => {
    const shipped = packed().filter((f) => /\.(ts|mjs)$/.test(f));
    const { packages } = closure(shipped);
    const runtime = Object.keys(manifest.dependencies);
    expect([...packages].filter((p) => !runtime.includes(p)).sort()).toEqual([]);
    // And the check sees imports at all: the suite does import its runtime dependencies.
    expect([...packages]).toEqual(expect.arrayContaining(['@playwright/test', 'tsx', 'fast-check']));
  });
});

type Step = ActionStep;

test.describe('action.yml', () => {
  test('is a composite Action with a name, a description and described inputs', () => {
    expect(action.name).toBeTruthy();
    expect(action.description).toBeTruthy();
    expect(action.runs.using).toBe('composite');
    for (const [name, input] of Object.entries(action.inputs)) {
      expect(input.description, name).toBeTruthy();
      // A composite step gets '' for an input without default: every optional input says its own.
      if (input.required !== true) expect(typeof input.default, name).toBe('string');
    }
    for (const step of action.runs.steps)
      if (step.run !== undefined) expect(step.shell, step.name).toBe('bash');
  });

  test('has an input for each setting, and none for the token', () => {
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining([
        'base-url',
        'counterparty-ref',
        'writable-counterparty-ref',
        'account-fixture',
        'strict',
        'seed',
        'runs',
        'reports-dir',
        'args',
      ]),
    );
    expect(Object.keys(action.inputs).filter((i) => /token|secret|password/i.test(i))).toEqual([]);
    expect(readFileSync(join(ROOT, 'action.yml'), 'utf8')).toMatch(
      /env: API_TOKEN: \$\{\{ secrets\.API_TOKEN \}\}/,
    );
  });

  test('uses every input it declares and declares every input it uses', () => {
    const text = JSON.stringify(action.runs);
    const used = new Set([...text.matchAll(/inputs\.([a-zA-Z0-9_-]+)/g)].map((m) => m[1]!));
    expect([...used].sort()).toEqual(Object.keys(action.inputs).sort());
  });

  test('never splices an input into a script: inputs reach it as environment variables', () => {
    for (const step of action.runs.steps) expect(step.run ?? '', step.name).not.toContain('${{');
    const runStep = action.runs.steps.find((s) => s.run?.includes('payflow-conformance.mjs'));
    expect(runStep, 'a step runs the command').toBeDefined();
    for (const name of Object.keys(action.inputs).filter((n) => n !== 'artifact-name')) {
      const variable = `INPUT_${name.toUpperCase().replaceAll('-', '_')}`;
      expect(runStep!.env?.[variable], variable).toBe(`\${{ inputs.${name} }}`);
      expect(runStep!.run, variable).toContain(`$${variable}`);
    }
  });

  test('sets up Node 20, installs the suite from its own directory, uploads the reports whatever happened', () => {
    const steps = action.runs.steps;
    const node = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(String(node?.with?.['node-version'])).toBe('20');
    const install = steps.find((s) => s.run?.includes('npm ci'));
    expect(install?.['working-directory']).toBe('${{ github.action_path }}');
    expect(install?.run).toContain('--omit=dev');
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.if).toBe('always()');
    expect(String(upload?.with?.path)).toContain('inputs.reports-dir');
    // The install comes before the run, the upload after it; the run's status is the step's.
    const index = (s: Step | undefined): number => steps.indexOf(s!);
    const run = steps.find((s) => s.run?.includes('payflow-conformance.mjs'));
    expect(index(node)).toBeLessThan(index(install));
    expect(index(install)).toBeLessThan(index(run));
    expect(index(run)).toBeLessThan(index(upload));
    expect(run!.run).not.toMatch(/\|\|\s*true|set \+e|continue-on-error/);
    expect(run!.run!.trimEnd().split('\n').at(-1)).toMatch(
      /^node "\$GITHUB_ACTION_PATH\/bin\/payflow-conformance\.mjs" "\$\{args\[@\]\}"$/,
    );
  });

  test('its run step builds a command line the CLI accepts', () => {
    // The flags the script passes are flags of `run`.
    const run = action.runs.steps.find((s) => s.run?.includes('payflow-conformance.mjs'))!.run!;
    const flags = [...run.matchAll(/(--[a-z-]+)/g)].map((m) => m[1]!);
    const help = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'payflow-conformance.mjs'), 'run', '--help'],
      {
        encoding: 'utf8',
      },
    );
    expect(help.status).toBe(0);
    for (const flag of new Set(flags)) expect(help.stdout, flag).toMatch(new RegExp(`^  ${flag}\\b`, 'm'));
  });
});

/** The Action's run step as GitHub runs it (tests/self/action-fixtures.ts), synchronously. */
function runStep(
  inputs: Record<string, string>,
  cwd: string,
  callerEnv: Record<string, string> = {},
): { code: number; stdout: string; stderr: string } {
  const step = actionRunStep(inputs, cwd, callerEnv);
  const r = spawnSync(step.command, step.args, { cwd, env: step.env, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test.describe("the Action's run step", () => {
  test.afterAll(removeTemporaryDirectories);

  test('runs the suite with the inputs as flags and exits with its status', async () => {
    test.setTimeout(180_000);
    const work = temporaryDirectory('payflow-action-');
    // Against the embedded server (no base-url), one probe, strict, the reports where asked.
    const r = runStep(
      {
        strict: 'true',
        seed: '7',
        runs: '5',
        'reports-dir': 'out/reports',
        args: '--probe  known-counterparty --rps 0',
      },
      work,
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(
      /seed 7 \(given\), 5 case\(s\) per property, strict, only --probe known-counterparty\b/,
    );
    const record = JSON.parse(readFileSync(join(work, 'out', 'reports', 'conformance.json'), 'utf8')) as {
      verdict: string;
      strict: boolean;
    };
    expect(record).toMatchObject({ verdict: 'pass', strict: true });
  });

  test('a wrong input is exit 2, and an empty one means what its variable set empty means', () => {
    const work = temporaryDirectory('payflow-action-');
    const strict = runStep({ strict: 'yes' }, work);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toContain("::error::the strict input must be 'true' or 'false', not 'yes'");
    const seed = runStep({ seed: 'abc' }, work);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toBe("conformance: CONFORMANCE_SEED must be a whole number, got 'abc'\n");
    // Every input is passed, an empty one too, over the step's environment (and any .env): an
    // empty seed is a drawn one, an empty writable-counterparty-ref a read-only run. (Port 9 of
    // 127.0.0.1 refuses: the run stops at its reachability check, after its first line.)
    const empty = runStep(
      {
        seed: '',
        'writable-counterparty-ref': '',
        'base-url': 'http://127.0.0.1:9',
        'counterparty-ref': 'ACME-0001',
      },
      work,
      { CONFORMANCE_SEED: 'from-the-env', WRITABLE_COUNTERPARTY_REF: 'W-1', API_TOKEN: 'token-1' },
    );
    expect(empty.code, empty.stdout + empty.stderr).toBe(2);
    expect(empty.stdout.split('\n')[0]).toMatch(/, target http:\/\/127\.0\.0\.1:9, read-only, seed \d+, /);
    expect(empty.stderr).toMatch(/^conformance: cannot reach API_BASE_URL http:\/\/127\.0\.0\.1:9 /);
    // Globs in the extra arguments stay as they are.
    const glob = runStep({ args: '--probe *' }, work);
    expect(glob.code).toBe(2);
    expect(glob.stderr).toMatch(/^conformance: unknown probe '\*' \(--probe\)/);
  });
});

interface Workflow {
  on: unknown;
  jobs: Record<string, { steps: Step[]; env?: Record<string, string> }>;
  env?: Record<string, string>;
}

const WORKFLOWS = readdirSync(join(ROOT, '.github', 'workflows')).filter((f) => /\.ya?ml$/.test(f));

test.describe('the workflows', () => {
  test('parse, and a step using the Action gives only its declared inputs', () => {
    expect(WORKFLOWS.length).toBeGreaterThan(0);
    for (const file of WORKFLOWS) {
      const workflow = parse(readFileSync(join(ROOT, '.github', 'workflows', file), 'utf8')) as Workflow;
      expect(workflow.on, file).toBeDefined();
      for (const job of Object.values(workflow.jobs))
        for (const step of job.steps.filter((s) => s.uses === './'))
          for (const input of Object.keys(step.with ?? {}))
            expect(Object.keys(action.inputs), `${file}: ${input}`).toContain(input);
    }
  });

  test("the repository's gate uses the Action with every setting, ACCOUNT_FIXTURE included, and the token as API_TOKEN", () => {
    const workflow = parse(
      readFileSync(join(ROOT, '.github', 'workflows', 'conformance.yml'), 'utf8'),
    ) as Workflow;
    const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
    const gate = steps.find((s) => s.uses === './');
    expect(gate, 'a step uses the Action').toBeDefined();
    const given = Object.keys(gate!.with ?? {});
    const settings = Object.keys(action.inputs).filter((i) => i !== 'args');
    expect(settings.filter((i) => !given.includes(i))).toEqual([]);
    expect(gate!.with!['account-fixture']).toBe('${{ secrets.ACCOUNT_FIXTURE }}');
    expect(gate!.with!['base-url']).toBe('${{ secrets.API_BASE_URL }}');
    expect(gate!.env?.API_TOKEN).toBe('${{ secrets.API_TOKEN }}');
  });

  test('the sharded workflow passes ACCOUNT_FIXTURE, and a seed that fits the 32 bits a seed has', () => {
    const workflow = parse(
      readFileSync(join(ROOT, '.github', 'workflows', 'conformance-sharded.yml'), 'utf8'),
    ) as Workflow;
    expect(workflow.env?.ACCOUNT_FIXTURE).toBe('${{ secrets.ACCOUNT_FIXTURE }}');
    // github.run_id is past 2^31 on GitHub today: CONFORMANCE_SEED would refuse it.
    expect(workflow.env?.CONFORMANCE_SEED).toBe('${{ github.run_number }}');
  });
});

/** A COPY source: a path, or a `*` pattern in its last segment (all this Dockerfile uses). */
function expand(source: string): string[] {
  if (!source.includes('*')) return existsSync(join(ROOT, source)) ? [source] : [];
  const dir = dirname(source);
  const name = new RegExp(
    `^${source
      .slice(dir.length + 1)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '[^/]*')}$`,
  );
  return readdirSync(join(ROOT, dir))
    .filter((f) => name.test(f))
    .map((f) => join(dir, f));
}

test.describe('the Dockerfile', () => {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const instructions = lines.map((l) => {
    const [keyword, ...rest] = l.trim().split(/\s+/);
    return { keyword: keyword!.toUpperCase(), args: rest };
  });

  test('builds on node:20-slim, installs the runtime dependencies only, runs the command in /work', () => {
    expect(instructions[0]).toEqual({ keyword: 'FROM', args: ['node:20-slim'] });
    const run = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args.join(' '));
    expect(run.some((r) => r.startsWith('npm ci --omit=dev'))).toBe(true);
    const entry = instructions.find((i) => i.keyword === 'ENTRYPOINT')!;
    const root = instructions.find((i) => i.keyword === 'WORKDIR')!.args[0]!;
    expect(JSON.parse(entry.args.join(' '))).toEqual([
      'node',
      `${root}/${manifest.bin['payflow-conformance']}`,
    ]);
    expect(instructions.filter((i) => i.keyword === 'WORKDIR').at(-1)!.args).toEqual(['/work']);
  });

  test('copies exactly what the package holds, and every path it copies exists', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    const pattern = (p: string): RegExp =>
      new RegExp(`^${p.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}(/|$)`);
    const isIgnored = (f: string): boolean => ignored.some((p) => pattern(p).test(f));
    const copied = new Set<string>();
    for (const { keyword, args } of instructions) {
      if (keyword !== 'COPY') continue;
      for (const source of args.slice(0, -1)) {
        const matches = expand(source.replace(/\/$/, ''));
        expect(matches.length, `COPY ${source}`).toBeGreaterThan(0);
        for (const m of matches) {
          const path = join(ROOT, m);
          const files = statSync(path).isDirectory()
            ? readdirSync(path, { recursive: true, encoding: 'utf8' })
                .map((f) => join(m, f))
                .filter((f) => statSync(join(ROOT, f)).isFile())
            : [m];
          for (const f of files) if (!isIgnored(f)) copied.add(f);
        }
      }
    }
    const expected = packed().filter((f) => f !== 'README.md');
    expect([...copied].filter((f) => f !== 'package-lock.json').sort()).toEqual(expected);
    expect(existsSync(join(ROOT, 'package-lock.json'))).toBe(true);
  });
});
