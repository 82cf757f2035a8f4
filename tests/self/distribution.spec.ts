/**
 * What the suite ships, checked without GitHub or docker:
 * - the package, as the tarball `npm pack` makes (prepack compiles dist/) installs
 *   (tests/self/pack-fixtures.ts): the compiled bin, every module the command, the Playwright
 *   configurations, the checks and the reporter import, each with its source map, and the data
 *   they read; no TypeScript, none of the project's own tests, servers of the gallery or docs;
 *   nothing it ships imports a development dependency (a user installs none);
 * - action.yml: a composite Action whose inputs are all described and used and whose steps use
 *   no undeclared input, which sets up Node, installs and builds the suite in its own directory,
 *   runs it with the inputs in the environment (never spliced into a script), uploads the reports
 *   whatever happened, and has no token input; its run step, run by bash as GitHub runs it,
 *   turns the inputs into flags and exits with the suite's status;
 * - the workflows: every step using the Action gives only its inputs, and the repository's gate
 *   passes every setting of the suite, ACCOUNT_FIXTURE included, with the token as API_TOKEN;
 * - the Dockerfile: Node 24 pinned to a release, a build stage that compiles, an image of dist/
 *   and the runtime dependencies, the command as entry point, /work as working directory.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { action, actionRunStep, runStepOfAction, type ActionStep } from './action-fixtures.ts';
import { removeTemporaryDirectories, ROOT, temporaryDirectory } from './cli-fixtures.ts';
import { installedApp } from './pack-fixtures.ts';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  license: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  private?: boolean;
};

/** The package as a user gets it: the tarball npm pack makes (prepack builds dist/), installed. */
let installedFiles: { dir: string; files: string[] } | undefined;

async function installedPackage(): Promise<{ dir: string; files: string[] }> {
  if (installedFiles === undefined) {
    const { installed } = await installedApp();
    const files = readdirSync(installed, { recursive: true, encoding: 'utf8' })
      .filter((f) => statSync(join(installed, f)).isFile())
      .sort();
    installedFiles = { dir: installed, files };
  }
  return installedFiles;
}

/** The specifiers a TypeScript or JavaScript module imports (static, dynamic and re-exports). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(
    /(?:^|\s)(?:import|export)\s[^;'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm,
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
 * The files below `root` reachable from `entries` by relative imports, and the packages they
 * import. The Playwright configurations name their global setup and reporter as strings: they
 * are entries.
 */
function closure(root: string, entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    if (!existsSync(join(root, file))) continue; // reported by the caller as missing
    for (const specifier of importsOf(join(root, file))) {
      if (specifier.startsWith('.')) todo.push(normalize(join(dirname(file), specifier)));
      else if (!specifier.startsWith('node:')) packages.add(packageOf(specifier));
    }
  }
  return { files, packages };
}

/** The modules the command and Playwright load by name, as compiled into dist/. */
function entries(files: readonly string[]): string[] {
  return [
    manifest.bin['payflow-conformance']!,
    'dist/playwright.config.js',
    'dist/playwright.merge.config.js',
    ...files.filter((f) => /^dist\/.*(global-setup|conformance-reporter|\.spec)\.js$/.test(f)),
  ];
}

test.describe('the package', () => {
  test('is publishable, with the compiled command as its bin and a build before every pack', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('Apache-2.0');
    expect(existsSync(join(ROOT, 'LICENSE'))).toBe(true);
    expect(manifest.bin).toEqual({ 'payflow-conformance': 'dist/bin/cli.js' });
    expect(manifest.scripts.prepack).toBe('npm run build');
    // The bin's source starts with the line that makes it a command; tsc keeps it.
    expect(readFileSync(join(ROOT, 'bin', 'cli.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    // No TypeScript loader at run time: the package runs its compiled JavaScript.
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
  });

  test('holds every module the command and the suite load, compiled, and the files they read', async () => {
    test.setTimeout(600_000); // the first to ask packs and installs (tests/self/pack-fixtures.ts)
    const { dir, files } = await installedPackage();
    expect(statSync(join(dir, manifest.bin['payflow-conformance']!)).mode & 0o111).not.toBe(0);
    expect(readFileSync(join(dir, manifest.bin['payflow-conformance']!), 'utf8')).toMatch(
      /^#!\/usr\/bin\/env node\n/,
    );
    const { files: needed } = closure(dir, entries(files));
    expect([...needed].filter((f) => !files.includes(f))).toEqual([]);
    for (const data of [
      'dist/spec/openapi.yaml',
      'dist/reporter/conformance-record.schema.json',
      'package.json',
      'LICENSE',
      'CHANGELOG.md',
    ])
      expect(files).toContain(data);
    // Every module with its source map, which maps back to the TypeScript source.
    for (const js of files.filter((f) => f.endsWith('.js'))) expect(files, js).toContain(`${js}.map`);
    const map = JSON.parse(readFileSync(join(dir, 'dist', 'suite', 'define.js.map'), 'utf8')) as {
      sources: string[];
    };
    expect(map.sources).toEqual(['../../suite/define.ts']);
  });

  test("holds only dist/ and the package's documents: no TypeScript, none of the project's own tests, the gallery, the docs or generated output", async () => {
    test.setTimeout(600_000);
    const { files } = await installedPackage();
    const top = new Set(files.map((f) => f.split('/')[0]!));
    expect([...top].sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'dist', 'package.json']);
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    const unwanted =
      /^dist\/(tests\/self|servers\/(gallery|independent)|docs|bench|scripts|mutation|[^/]+\/vectors|reports|test-results)\//;
    expect(files.filter((f) => unwanted.test(f))).toEqual([]);
    expect(files.filter((f) => /^dist\/playwright\.(self|quick)\.config\.js$/.test(f))).toEqual([]);
  });

  test('nothing it ships imports a development dependency: a user installs none', async () => {
    test.setTimeout(600_000);
    const { dir, files } = await installedPackage();
    const { packages } = closure(
      dir,
      files.filter((f) => f.endsWith('.js')),
    );
    const runtime = Object.keys(manifest.dependencies);
    expect([...packages].filter((p) => !runtime.includes(p)).sort()).toEqual([]);
    // And the check sees imports at all: the suite does import its runtime dependencies.
    expect([...packages]).toEqual(expect.arrayContaining(['@playwright/test', 'fast-check', 'undici']));
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
    const runStep = runStepOfAction;
    expect(runStep, 'a step runs the command').toBeDefined();
    // The two inputs of other steps: the Node version (setup-node) and the artifact's name (upload).
    for (const name of Object.keys(action.inputs).filter(
      (n) => n !== 'artifact-name' && n !== 'node-version',
    )) {
      const variable = `INPUT_${name.toUpperCase().replaceAll('-', '_')}`;
      expect(runStep!.env?.[variable], variable).toBe(`\${{ inputs.${name} }}`);
      expect(runStep!.run, variable).toContain(`$${variable}`);
    }
  });

  test('every action it uses is pinned by commit SHA, its release tag beside it', () => {
    const uses = readFileSync(join(ROOT, 'action.yml'), 'utf8')
      .split('\n')
      .filter((l) => /^\s*(- )?uses:/.test(l));
    expect(uses.length).toBe(action.runs.steps.filter((s) => s.uses !== undefined).length);
    for (const line of uses) expect(line).toMatch(/uses: actions\/[a-z-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  test('sets up the Node of its node-version input (default 24, the newest LTS), installs and builds the suite in its own directory, uploads the reports whatever happened', () => {
    const steps = action.runs.steps;
    expect(action.inputs['node-version']?.default).toBe('24');
    const node = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(String(node?.with?.['node-version'])).toBe('${{ inputs.node-version }}');
    const install = steps.find((s) => s.run?.includes('npm ci'));
    expect(install?.['working-directory']).toBe('${{ github.action_path }}');
    // The package as npm pack ships it: compiled by the build the Action runs.
    expect(install?.run).toMatch(/npm ci\b.*&& npm run build$/);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.if).toBe('always()');
    expect(String(upload?.with?.path)).toContain('inputs.reports-dir');
    // The install comes before the run, the upload after it; the run's status is the step's.
    const index = (s: Step | undefined): number => steps.indexOf(s!);
    const run = runStepOfAction;
    expect(index(node)).toBeLessThan(index(install));
    expect(index(install)).toBeLessThan(index(run));
    expect(index(run)).toBeLessThan(index(upload));
    expect(run!.run).not.toMatch(/\|\|\s*true|set \+e|continue-on-error/);
    // The suite's status, kept while the outputs are written, is the step's.
    const lines = run!.run!.trimEnd().split('\n');
    expect(lines).toContain('node "$GITHUB_ACTION_PATH/dist/bin/cli.js" "${args[@]}" || status=$?');
    expect(lines.at(-1)).toBe('exit "$status"');
    expect(run!.run).not.toMatch(/\beval\b/);
  });

  test('its run step builds a command line the CLI accepts', () => {
    // The flags the script passes are flags of `run`.
    const run = runStepOfAction.run!;
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

/** The outputs the last run step in `work` appended to its GITHUB_OUTPUT file (the last of each name). */
function githubOutputs(work: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(join(work, 'github-output'), 'utf8').split('\n').filter(Boolean)) {
    const eq = line.indexOf('=');
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** The Action's run step as GitHub runs it (tests/self/action-fixtures.ts), synchronously. */
async function runStep(
  inputs: Record<string, string>,
  cwd: string,
  callerEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { installed } = await installedApp();
  const step = actionRunStep(inputs, cwd, installed, callerEnv);
  const r = spawnSync(step.command, step.args, { cwd, env: step.env, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test.describe("the Action's run step", () => {
  test.afterAll(removeTemporaryDirectories);

  test('runs the suite with the inputs as flags and exits with its status', async () => {
    test.setTimeout(600_000); // the first to ask packs and installs (tests/self/pack-fixtures.ts)
    const work = temporaryDirectory('payflow-action-');
    // Against the embedded server (no base-url), one probe, strict, the reports where asked.
    const r = await runStep(
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
    // Every output the Action declares is set, from that record, and maps to the run step's.
    const outputs = githubOutputs(work);
    for (const [name, output] of Object.entries(action.outputs ?? {})) {
      expect(output.value, name).toBe(`\${{ steps.run.outputs.${name} }}`);
      expect(outputs[name], name).toBeDefined();
    }
    expect(outputs).toMatchObject({
      'exit-status': '0',
      verdict: 'pass',
      failed: '0',
      'must-failed': '0',
      report: 'out/reports/conformance.html',
      record: 'out/reports/conformance.json',
    });
    const counts = (record as unknown as { counts: Record<'MUST' | 'SHOULD', Record<string, number>> })
      .counts;
    expect(Number(outputs.passed)).toBe(counts.MUST.passed! + counts.SHOULD.passed!);
    expect(Number(outputs['must-not-exercised'])).toBe(counts.MUST['not-exercised']);
  });

  test('args is a shell-quoted list: a quoted word with a space stays one argument, nothing expands, an unclosed quote is exit 2', async () => {
    test.setTimeout(600_000); // the first to ask packs and installs (tests/self/pack-fixtures.ts)
    const work = temporaryDirectory('payflow-action-');
    // Each is refused by the CLI before any request, naming the argument as it arrived.
    const spaced = await runStep({ args: `--probe 'known counterparty'` }, work);
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toMatch(/^conformance: unknown probe 'known counterparty' \(--probe\)/);
    const literal = await runStep({ args: '--probe "$HOME"\\ x' }, work, { HOME: '/home/someone' });
    expect(literal.code).toBe(2);
    expect(literal.stderr).toMatch(/^conformance: unknown probe '\$HOME x' \(--probe\)/);
    const unclosed = await runStep({ args: `--header 'X-Tenant: acme` }, work);
    expect(unclosed.code).toBe(2);
    expect(unclosed.stdout).toContain(
      "::error::the args input is not a shell-quoted list: an unclosed ' starting at character 10",
    );
    // A header with a space reaches the run as one --header: the run passes with it.
    const header = await runStep(
      { seed: '7', runs: '3', args: `--probe known-counterparty --header 'X-Tenant: acme corp' --rps 0` },
      work,
    );
    expect(header.code, header.stdout + header.stderr).toBe(0);
    expect(githubOutputs(work)['exit-status']).toBe('0');
  });

  test('a wrong input is exit 2, and an empty one means what its variable set empty means', async () => {
    test.setTimeout(600_000); // the first to ask packs and installs (tests/self/pack-fixtures.ts)
    const work = temporaryDirectory('payflow-action-');
    const strict = await runStep({ strict: 'yes' }, work);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toContain("::error::the strict input must be 'true' or 'false', not 'yes'");
    const seed = await runStep({ seed: 'abc' }, work);
    expect(seed.code).toBe(2);
    expect(seed.stderr).toBe("conformance: CONFORMANCE_SEED must be a whole number, got 'abc'\n");
    // Every input is passed, an empty one too, over the step's environment (and any .env): an
    // empty seed is a drawn one, an empty writable-counterparty-ref a read-only run. (Port 9 of
    // 127.0.0.1 refuses: the run stops at its reachability check, after its first line.)
    const empty = await runStep(
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
    const glob = await runStep({ args: '--probe *' }, work);
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
    const settings = Object.keys(action.inputs).filter((i) => i !== 'args' && i !== 'node-version');
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

test.describe('the Dockerfile', () => {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const instructions = lines.map((l) => {
    const [keyword, ...rest] = l.trim().split(/\s+/);
    return { keyword: keyword!.toUpperCase(), args: rest };
  });
  /** The instructions of each stage, from its FROM. */
  const stages = instructions.reduce<(typeof instructions)[]>((all, i) => {
    if (i.keyword === 'FROM') all.push([]);
    all.at(-1)!.push(i);
    return all;
  }, []);

  test('builds on Node 24 (the newest LTS line) pinned to an exact release, in both stages', () => {
    expect(stages.length).toBe(2);
    const images = stages.map((stage) => stage[0]!.args[0]!);
    for (const image of images) expect(image).toMatch(/^node:24\.\d+\.\d+-slim(@sha256:[0-9a-f]{64})?$/);
    expect(new Set(images).size).toBe(1);
  });

  test('compiles the package in a build stage; the image holds its dist/ and the runtime dependencies only', () => {
    const [build, image] = stages as [typeof instructions, typeof instructions];
    const runs = (stage: typeof instructions): string[] =>
      stage.filter((i) => i.keyword === 'RUN').map((i) => i.args.join(' '));
    expect(build[0]!.args.slice(1)).toEqual(['AS', 'build']);
    expect(runs(build)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^npm ci\b/), 'npm run build']),
    );
    expect(runs(image).some((r) => r.startsWith('npm ci --omit=dev'))).toBe(true);
    const copies = image.filter((i) => i.keyword === 'COPY').map((i) => i.args.join(' '));
    expect(copies).toEqual(['package.json package-lock.json ./', '--from=build /src/dist/ dist/']);
    const entry = image.find((i) => i.keyword === 'ENTRYPOINT')!;
    const root = image.find((i) => i.keyword === 'WORKDIR')!.args[0]!;
    expect(JSON.parse(entry.args.join(' '))).toEqual([
      'node',
      `${root}/${manifest.bin['payflow-conformance']}`,
    ]);
    expect(image.filter((i) => i.keyword === 'WORKDIR').at(-1)!.args).toEqual(['/work']);
    expect(image.find((i) => i.keyword === 'USER')?.args).toEqual(['node']);
  });

  test('the build context leaves out what the build makes or must not see', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.env', 'reports', '.git']));
  });
});
