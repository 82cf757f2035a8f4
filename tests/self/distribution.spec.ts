/**
 * What the suite ships, checked without GitHub or docker:
 * - the package, as the tarball `npm pack` makes (prepack compiles dist/) installs
 *   (tests/self/pack-fixtures.ts; the first test to ask pays for it): the compiled bin, every
 *   module the command, the Playwright
 *   configurations, the checks and the reporter import, each with its source map, and the data
 *   they read; no TypeScript, none of the project's own tests, servers of the gallery or docs;
 *   nothing it ships imports a development dependency (a user installs none);
 * - action.yml: a composite Action whose inputs are all described and used and whose steps use
 *   no undeclared input, which sets up Node, installs and builds the suite in its own directory,
 *   runs it with the inputs in the environment (never spliced into a script), uploads the reports
 *   whatever happened, and has no token input; its run step, run by bash as GitHub runs it,
 *   turns the inputs into flags and exits with the suite's status. Through the installed command
 *   once: a writing run against the embedded server, with a quoted header, that passes. What the
 *   step makes of each other input (quotes, words that must not expand, an unclosed quote, a
 *   wrong or an empty one) is seen by a stand-in of the command that records the arguments it
 *   was given and exits as told; what the command makes of those arguments is its resolution,
 *   called in this process (resolveAsCli), a configuration error being exit 2 and its one line
 *   (cli-config.spec.ts runs one through the command);
 * - the workflows: every step using the Action gives only its inputs, and the repository's gate
 *   passes every setting of the suite, ACCOUNT_FIXTURE included, with the token as API_TOKEN;
 * - the Dockerfile: Node 24 pinned to a release, a build stage that compiles, an image of dist/
 *   and the runtime dependencies, the command as entry point, /work as working directory.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { actionReports } from '../../bin/action.ts';
import { ConfigError } from '../../config/error.ts';
import { WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import { action, actionRunStep, runStepOfAction, type ActionStep } from './action-fixtures.ts';
import { removeTemporaryDirectories, resolveAsCli, ROOT, temporaryDirectory } from './cli-fixtures.ts';
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
      'dist/spec/openapi.json',
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

  test('its run step builds a command line the CLI accepts', async () => {
    // The flags the script passes are flags of `run`: those its --help lists (runUsage, what
    // `payflow-conformance run --help` prints; the installed command runs with them below).
    const run = runStepOfAction.run!;
    const flags = [...run.matchAll(/(--[a-z-]+)/g)].map((m) => m[1]!);
    // Loaded when this test runs: collecting the tests of this file loads none of the command.
    const { runUsage } = await import('../../bin/conformance.ts');
    const help = runUsage();
    for (const flag of new Set(flags)) expect(help, flag).toMatch(new RegExp(`^  ${flag}\\b`, 'm'));
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

/** What the stand-in of the suite's command recorded: its arguments, and CONFORMANCE_STRICT. */
interface Recorded {
  argv: string[];
  strict: string | null;
}

/**
 * The Action's run step as GitHub runs it, its script and its dist/bin/action.js the installed
 * package's, but the suite's command (dist/bin/cli.js) a stand-in that records the arguments
 * the script gave it: what the step does with its inputs, seen as the command receives them,
 * without a run of the suite per case. `cli` is undefined when the step never started it.
 */
async function runStepRecorded(
  inputs: Record<string, string>,
  cwd: string,
  callerEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string; cli: Recorded | undefined }> {
  const { installed } = await installedApp();
  const actionPath = temporaryDirectory('payflow-action-path-');
  mkdirSync(join(actionPath, 'dist', 'bin'), { recursive: true });
  // CommonJS, whatever a directory above says.
  writeFileSync(join(actionPath, 'package.json'), '{ "type": "commonjs" }\n');
  symlinkSync(join(installed, 'dist', 'bin', 'action.js'), join(actionPath, 'dist', 'bin', 'action.js'));
  const record = join(cwd, 'recorded-command.json');
  // It exits with STAND_IN_EXIT (default 0), as the command would have.
  writeFileSync(
    join(actionPath, 'dist', 'bin', 'cli.js'),
    `require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), strict: process.env.CONFORMANCE_STRICT ?? null }));\n` +
      'process.exitCode = Number(process.env.STAND_IN_EXIT ?? 0);\n',
  );
  rmSync(record, { force: true });
  const step = actionRunStep(inputs, cwd, actionPath, callerEnv);
  const r = spawnSync(step.command, step.args, { cwd, env: step.env, encoding: 'utf8' });
  const cli = existsSync(record) ? (JSON.parse(readFileSync(record, 'utf8')) as Recorded) : undefined;
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, cli };
}

/** The arguments the run step gives the command for `settings` (every input, in its order), then `extra`. */
function commandLine(settings: Record<string, string>, extra: string[] = []): string[] {
  const input = (name: string): string => settings[name] ?? action.inputs[name]?.default ?? '';
  return [
    'run',
    ...[
      'base-url',
      'counterparty-ref',
      'writable-counterparty-ref',
      'account-fixture',
      'item-fixtures',
      'seed',
      'runs',
      'reports-dir',
    ].flatMap((name) => [`--${name}`, input(name)]),
    '--report',
    actionReports(input('report')),
    ...(settings.embedded === 'true' ? ['--embedded'] : []),
    ...extra,
  ];
}

test.describe("the Action's run step", () => {
  test.afterAll(removeTemporaryDirectories);

  test('runs the suite with the inputs as flags and exits with its status', async () => {
    test.setTimeout(600_000); // the first to ask packs and installs (tests/self/pack-fixtures.ts)
    const work = temporaryDirectory('payflow-action-');
    // The installed command, run by the step, against the embedded server (asked for), writing
    // (its writable counterparty given): a read and a write probe, strict, the reports where
    // asked, and a header whose value has a space, quoted in args. One worker (--concurrency 1):
    // the run proves the command, not what two workers share. pack.spec.ts runs it against `serve`.
    const r = await runStep(
      {
        embedded: 'true',
        'writable-counterparty-ref': WRITABLE_COUNTERPARTY,
        strict: 'true',
        seed: '7',
        runs: '5',
        'reports-dir': 'out/reports',
        args: `--probe  known-counterparty --probe patch-invalid-references --concurrency 1 --rps 0 --header 'X-Tenant: acme corp'`,
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
      seed: number;
      mode: string;
      settings: Record<string, string>;
    };
    expect(record).toMatchObject({ verdict: 'pass', strict: true, seed: 7, mode: 'write' });
    // The quoted header reached the run as one --header, its value whole: the run sent it.
    expect(record.settings.CONFORMANCE_HEADER_X_TENANT).toBe('acme corp');
    // Playwright's results go below the directory the command ran in.
    expect(statSync(join(work, 'test-results')).isDirectory()).toBe(true);
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

  // The words of args as the command receives them, recorded by a stand-in of the command
  // (runStepRecorded): the splitting is bin/shell-words.ts (tests/self/action-scripts.spec.ts
  // checks it against bash), this is the step's handing of the words to the command. That the
  // command refuses an unknown probe, naming it as it arrived, is cli-config.spec.ts's; the run
  // above shows a quoted header reaching a real run whole.
  test('args is a shell-quoted list: a quoted word with a space stays one argument, nothing expands, an unclosed quote is exit 2', async () => {
    test.setTimeout(600_000); // the first to ask packs and installs (tests/self/pack-fixtures.ts)
    const work = temporaryDirectory('payflow-action-');
    const embedded = { embedded: 'true' };
    const spaced = await runStepRecorded({ ...embedded, args: `--probe 'known counterparty'` }, work);
    expect(spaced.code, spaced.stdout + spaced.stderr).toBe(0);
    expect(spaced.cli?.argv).toEqual(commandLine(embedded, ['--probe', 'known counterparty']));
    const header = await runStepRecorded(
      { ...embedded, args: `--header 'X-Tenant: acme corp' --rps 0` },
      work,
    );
    expect(header.cli?.argv).toEqual(
      commandLine(embedded, ['--header', 'X-Tenant: acme corp', '--rps', '0']),
    );
    // Nothing expands: not a variable of the step's environment, not a glob of the workspace.
    writeFileSync(join(work, 'a-file'), '');
    const literal = await runStepRecorded(
      { ...embedded, args: '--probe "$HOME"\\ x --probe * --probe ~' },
      work,
      { HOME: '/home/someone' },
    );
    expect(literal.cli?.argv).toEqual(
      commandLine(embedded, ['--probe', '$HOME x', '--probe', '*', '--probe', '~']),
    );
    const unclosed = await runStepRecorded({ ...embedded, args: `--header 'X-Tenant: acme` }, work);
    expect(unclosed.code).toBe(2);
    expect(unclosed.stdout).toContain(
      "::error::the args input is not a shell-quoted list: an unclosed ' starting at character 10",
    );
    // Stopped before the command.
    expect(unclosed.cli).toBeUndefined();
  });

  test('a wrong input is exit 2, and an empty one means what its variable set empty means', async () => {
    test.setTimeout(600_000); // the first to ask packs and installs (tests/self/pack-fixtures.ts)
    const work = temporaryDirectory('payflow-action-');
    // The command's own reading of the arguments it was given: its resolution, in this process
    // (resolveAsCli: bin/conformance.ts's parse of the command line and run/resolve.ts).
    const resolved = (cli: Recorded | undefined, env: Record<string, string>) =>
      resolveAsCli(
        cli!.argv.slice(1), // `run` is the command's name, which bin/cli.ts reads
        { ...env, ...(cli!.strict === null ? {} : { CONFORMANCE_STRICT: cli!.strict }) },
        temporaryDirectory('payflow-action-run-'),
      );
    // An empty base-url (a secret that is not set) is no target: stopped before the command,
    // never a run on the embedded server, which only embedded: 'true' asks for.
    const noTarget = await runStepRecorded({ 'counterparty-ref': 'ACME-0001' }, work);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stdout).toContain('::error::the base-url input is empty (is its secret set?)');
    expect(noTarget.cli).toBeUndefined();
    const badEmbedded = await runStepRecorded({ embedded: 'yes' }, work);
    expect(badEmbedded.code).toBe(2);
    expect(badEmbedded.stdout).toContain("::error::the embedded input must be 'true' or 'false', not 'yes'");
    // Both named: the command refuses the two targets.
    const both = await runStepRecorded({ embedded: 'true', 'base-url': 'http://127.0.0.1:9' }, work, {
      STAND_IN_EXIT: '2',
    });
    expect(both.cli?.argv).toEqual(commandLine({ embedded: 'true', 'base-url': 'http://127.0.0.1:9' }));
    await expect(resolved(both.cli, { API_TOKEN: 'token-1' })).rejects.toThrow(/name two targets/);
    // The step's own check: stopped before the command.
    const strict = await runStepRecorded({ 'base-url': 'http://127.0.0.1:9', strict: 'yes' }, work);
    expect(strict.code).toBe(2);
    expect(strict.stdout).toContain("::error::the strict input must be 'true' or 'false', not 'yes'");
    expect(strict.cli).toBeUndefined();
    // A wrong seed reaches the command as its flag; the command refuses it with exit 2 and this
    // line (a configuration error: cli-config.spec.ts runs one through the command), and its
    // status is the step's, the outputs saying no record was written.
    const seed = await runStepRecorded({ embedded: 'true', seed: 'abc' }, work, { STAND_IN_EXIT: '2' });
    expect(seed.cli?.argv).toEqual(commandLine({ embedded: 'true', seed: 'abc' }));
    await expect(resolved(seed.cli, {})).rejects.toThrow(
      new ConfigError("CONFORMANCE_SEED must be a whole number, got 'abc'"),
    );
    expect(seed.code).toBe(2);
    expect(githubOutputs(work)).toMatchObject({ 'exit-status': '2', verdict: '' });
    // Every input is passed, an empty one too, over the step's environment (and any .env): an
    // empty seed is a drawn one, an empty writable-counterparty-ref a read-only run, an empty
    // strict is off.
    const callerEnv = {
      CONFORMANCE_SEED: '4242',
      WRITABLE_COUNTERPARTY_REF: 'W-1',
      CONFORMANCE_STRICT: '1',
      API_TOKEN: 'token-1',
    };
    const inputs = {
      seed: '',
      'writable-counterparty-ref': '',
      strict: '',
      'base-url': 'http://127.0.0.1:9',
      'counterparty-ref': 'ACME-0001',
    };
    const empty = await runStepRecorded(inputs, work, callerEnv);
    expect(empty.code, empty.stdout + empty.stderr).toBe(0);
    expect(empty.cli).toEqual({ argv: commandLine(inputs), strict: '0' });
    const run = await resolved(empty.cli, callerEnv);
    expect(run.config.baseURL).toBe('http://127.0.0.1:9');
    expect(run.config.seedGiven).toBe(false);
    expect(run.config.writableRefs).toBeUndefined();
    expect(run.strict).toBe(false);
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
