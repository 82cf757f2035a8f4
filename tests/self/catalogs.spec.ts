/**
 * The catalogs (probes/catalog.ts, oracles/catalog.ts) are what the probes and the oracles
 * declare, and what reads only a catalog loads no implementation. The command (`npm run
 * conformance`) resolves the selection, checks `--probe` and writes the report of a run stopped
 * before its start from the probes' catalog (probes/described.ts), and the verdicts name the
 * oracles from theirs (oracles/described.ts), so the command's own process loads neither the
 * engine, the oracles, the generators nor the probes: about half the CPU of a start (issue 20).
 * A static import that brought any of them back would undo that without failing anything else,
 * so the import graph is held here. spec/openapi.json, the JSON of spec/openapi.yaml that every
 * process loads instead of parsing the YAML, is held to the YAML here too.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { CATALOGS, renderCatalog, renderSpecDocument } from '../../tools/catalogs.ts';
import { spec, SPEC_PATH } from '../../spec/index.ts';
import { REFERENCE_TOKEN, WRITABLE_COUNTERPARTIES } from '../../servers/reference/seed.ts';
import {
  suiteTest,
  removeTemporaryDirectories,
  runNode,
  targetEnv,
  temporaryDirectory,
} from './cli-fixtures.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The project's modules `entry` loads through static imports (and `export ... from`), from the
 * root; `import type` and dynamic import() load nothing at start and are left out.
 */
function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    const rel = relative(ROOT, file);
    if (seen.has(rel)) return;
    seen.add(rel);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(
      /^(?:import|export)\s+(?!type\b)(?:[^'";]*?\s+from\s+)?'(\.{1,2}\/[^']+)'/gm,
    )) {
      const target = resolve(dirname(file), m[1]!);
      if (existsSync(target)) visit(target);
    }
  };
  visit(join(ROOT, entry));
  return seen;
}

// The catalog a process loads is this file's text, so text equal to what the declarations render
// is every field of every entry equal, in order.
for (const catalog of CATALOGS)
  test(`${catalog.file} is what npm run catalogs renders from ${catalog.from}`, async () => {
    const committed = readFileSync(join(ROOT, catalog.file), 'utf8');
    expect(committed, `${catalog.file} differs from ${catalog.from}: run npm run catalogs`).toBe(
      await renderCatalog(catalog, ROOT),
    );
  });

// Every process loads the document from spec/openapi.json; spec/openapi.yaml is what is written.
test('spec/openapi.json is the document of spec/openapi.yaml, and what the spec loads', async () => {
  const committed = readFileSync(join(ROOT, 'spec', 'openapi.json'), 'utf8');
  expect(committed, 'spec/openapi.json differs from spec/openapi.yaml: run npm run catalogs').toBe(
    await renderSpecDocument(SPEC_PATH),
  );
  expect(spec().doc).toEqual(JSON.parse(committed));
  // A change of the YAML shows: the first maxLength of the document, one more.
  const dir = temporaryDirectory('payflow-spec-json-');
  const yaml = readFileSync(SPEC_PATH, 'utf8');
  const changed = yaml.replace(/maxLength: (\d+)/, (_, n: string) => `maxLength: ${Number(n) + 1}`);
  expect(changed).not.toBe(yaml);
  writeFileSync(join(dir, 'openapi.yaml'), changed);
  expect(await renderSpecDocument(join(dir, 'openapi.yaml'))).not.toBe(committed);
});

test("the command's process loads no probe, oracle, generator or engine module", () => {
  const loaded = staticImports('bin/conformance.ts');
  // The walk itself works: it reaches what the command does load.
  expect(loaded).toContain('probes/catalog.ts');
  expect(loaded).toContain('config/selection.ts');
  const heavy = [...loaded].filter(
    (f) =>
      /^(oracles\/|generators\/(?!account-fixture|item-fixtures)|requests\/|engine\/)/.test(f) ||
      (f.startsWith('probes/') && !['probes/described.ts', 'probes/catalog.ts'].includes(f)) ||
      [
        'reporter/build-record.ts',
        // The report writers' list is read, their renderers are loaded only to write (reporter/writers.ts).
        'reporter/html.ts',
        'reporter/junit.ts',
        'servers/reference.ts',
        'transport/session.ts',
      ].includes(f),
  );
  expect(loaded).toContain('reporter/writers.ts');
  expect(heavy, 'modules bin/conformance.ts loads at start').toEqual([]);
  // The partial report of a run stopped before its start is the one place that needs them.
  expect(staticImports('bin/stopped-report.ts')).toContain('reporter/build-record.ts');
});

test("Playwright's runner loads no probe, oracle, generator, engine run or session", () => {
  // What the runner loads: the configuration, global setup and teardown, the reporter, and every
  // spec file (to list the tests). The workers load what runs a probe when a test starts.
  const loaded = new Set(
    [
      'playwright.config.ts',
      'suite/global-setup.ts',
      'suite/conformance-reporter.ts',
      ...readdirSync(join(ROOT, 'tests', 'conformance')).map((f) => `tests/conformance/${f}`),
    ].flatMap((entry) => [...staticImports(entry)]),
  );
  expect(loaded).toContain('suite/define.ts');
  expect(loaded).toContain('reporter/build-record.ts');
  const heavy = [...loaded].filter(
    (f) =>
      /^(oracles\/(?!described|catalog)|generators\/(?!account-fixture|item-fixtures)|requests\/)/.test(f) ||
      (f.startsWith('probes/') && !['probes/described.ts', 'probes/catalog.ts'].includes(f)) ||
      [
        'engine/run.ts',
        'engine/judge.ts',
        'engine/cases.ts',
        'servers/reference.ts',
        'suite/target.ts',
        'transport/session.ts',
        'transport/client.ts',
      ].includes(f),
  );
  expect(heavy, "modules Playwright's runner loads").toEqual([]);
});

test.afterAll(removeTemporaryDirectories);

test('with two writable counterparties, the runner still lists the write probes in their lanes', async () => {
  // The one case where the runner loads the probes (0-writes.spec.ts's top-level await), for their
  // cost models: listed by Playwright's runner alone, nothing is sent (the URL is never called).
  const work = temporaryDirectory('payflow-lanes-');
  const listed = await runNode(
    suiteTest('--list', '--reporter=list', '0-writes.spec'),
    {
      ...targetEnv('http://127.0.0.1:9', REFERENCE_TOKEN),
      WRITABLE_COUNTERPARTY_REF: WRITABLE_COUNTERPARTIES.slice(0, 2).join(','),
      CONFORMANCE_CONCURRENCY: '2',
    },
    work,
  );
  expect(listed.code, listed.stdout + listed.stderr).toBe(0);
  const [first, second] = WRITABLE_COUNTERPARTIES;
  expect(listed.stdout).toContain(`lane 1 (${first})`);
  expect(listed.stdout).toContain(`lane 2 (${second})`);
  // The probe of ordered accepted PATCHes in two parts, one per lane.
  expect(listed.stdout).toContain(`patch-valid-details: `);
  expect(listed.stdout).toMatch(new RegExp(`\\(part 1 of 2, on ${first}\\)`));
  expect(listed.stdout).toMatch(new RegExp(`\\(part 2 of 2, on ${second}\\)`));
});
