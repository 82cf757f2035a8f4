/**
 * The documentation stays true to the code. The tables of docs/ generated from the code's
 * registries (tools/docs/) match what `npm run docs:tables` renders now; every variable the
 * source reads is listed in docs/configuration.md, and no variable listed there is no longer
 * read; the README stays a landing page; every relative link of the README and docs/ resolves,
 * anchors included; and the npm scripts and variables they name (and .env.example, the Action,
 * the image and the workflows name) exist.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { envReads, projectEnvReads } from '../../tools/docs/env-reads.ts';
import { configVariables, otherVariables } from '../../tools/docs/sources.ts';
import { blocksIn, fillBlocks, GENERATED_PAGES, renderPage, renderTables } from '../../tools/docs/tables.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The names the configuration page lists: exact names, and families such as CONFORMANCE_HEADER_<NAME>. */
function documented(): { exact: Set<string>; prefixes: string[] } {
  const names = [
    ...configVariables().map((v) => v.name),
    ...otherVariables().flatMap((v) => v.name.split(', ')),
  ];
  return {
    exact: new Set(names.filter((n) => !n.endsWith('<NAME>'))),
    prefixes: names.filter((n) => n.endsWith('<NAME>')).map((n) => n.slice(0, -'<NAME>'.length)),
  };
}

function isDocumented(name: string): boolean {
  const { exact, prefixes } = documented();
  return exact.has(name) || prefixes.some((p) => name.startsWith(p));
}

test.describe('generated tables', () => {
  test('every page matches what npm run docs:tables renders from the code', async () => {
    for (const page of GENERATED_PAGES) {
      const committed = readFileSync(join(ROOT, page), 'utf8');
      const rendered = await renderPage(ROOT, page);
      expect(committed, `${page}: its generated tables differ from the code; run npm run docs:tables`).toBe(
        rendered,
      );
    }
  });

  test('every table is placed exactly once, and every block names a table', () => {
    const placed = GENERATED_PAGES.flatMap((page) => blocksIn(readFileSync(join(ROOT, page), 'utf8')));
    expect(placed.sort()).toEqual(Object.keys(renderTables()).sort());
    expect(() => fillBlocks('<!-- generated:nope -->\n<!-- /generated -->', renderTables())).toThrow(
      /unknown generated block 'nope'/,
    );
  });

  test('a drifted table is caught: a page with a row removed differs from its rendering', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docs-tables-'));
    try {
      const page = 'docs/configuration.md';
      mkdirSync(join(dir, 'docs'));
      copyFileSync(join(ROOT, '.prettierrc.json'), join(dir, '.prettierrc.json'));
      const text = readFileSync(join(ROOT, page), 'utf8');
      const drifted = text.replace(/^\| `CONFORMANCE_RESULTS_DIR` .*\n/m, '');
      expect(drifted).not.toBe(text);
      writeFileSync(join(dir, page), drifted);
      const rendered = await renderPage(dir, page);
      expect(rendered).not.toBe(drifted);
      expect(rendered).toBe(text);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the probe, oracle and requirement tables name every entry of their registries', () => {
    const tables = renderTables();
    for (const id of ['known-counterparty', 'patch-invalid-bodies', 'malformed-write-bodies'])
      expect(tables.probes).toContain(`[\`${id}\`](../probes/`);
    expect(tables.oracles).toContain('[`read-stability`](../oracles/read-stability.ts)');
    expect(tables.requirements).toContain('`get-known-counterparty-200` | MUST');
    expect(tables.variables).toContain('`CONFORMANCE_RESULTS_DIR` | `--results-dir <dir>`');
  });
});

test.describe('variables', () => {
  test('the scan finds every way the source reads a variable', () => {
    const reads = envReads({
      'a.ts': "const x = process.env.FOO_BAR; const y = env['BAZ_QUX'];",
      'b.ts': "export const HANDOVER = 'SOME_HANDOVER'; read(env[HANDOVER]); read(env[UNKNOWN_CONST]);",
      'c.ts': "const names = ['CONFORMANCE_NEW_THING', 'API_OTHER']; env.file; env.npm_package_json;",
    });
    expect(reads.map((r) => r.name).sort()).toEqual(
      [
        'API_OTHER',
        'BAZ_QUX',
        'CONFORMANCE_NEW_THING',
        'FOO_BAR',
        'SOME_HANDOVER',
        'UNKNOWN_CONST',
        'npm_package_json',
      ].sort(),
    );
  });

  test('every variable the source reads is listed in docs/configuration.md', () => {
    const reads = projectEnvReads(ROOT);
    // The scan is not empty: it finds the ones the issue named, read through lists and constants.
    for (const name of ['CONFORMANCE_RESULTS_DIR', 'CONFORMANCE_PACE_REPORT', 'INIT_CWD'])
      expect(reads.map((r) => r.name)).toContain(name);
    const missing = reads.filter((r) => !isDocumented(r.name)).map((r) => `${r.name} (${r.file})`);
    expect(
      missing,
      'read by the source but listed in no table of docs/configuration.md: add it to ' +
        'tools/docs/sources.ts (or to the configuration list), then run npm run docs:tables',
    ).toEqual([]);
  });

  test('every variable listed besides the configuration is still read by the source', () => {
    const read = new Set(projectEnvReads(ROOT, { selfTests: true }).map((r) => r.name));
    const stale = otherVariables()
      .filter((v) => !v.external)
      .flatMap((v) => v.name.split(', '))
      .filter((n) => !read.has(n));
    expect(stale, 'listed in tools/docs/sources.ts but read nowhere: remove it').toEqual([]);
  });
});

/** README.md and every page of docs/, relative to the root. */
function pages(): string[] {
  return [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
}

/** The text of a page without its fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1]!.trim());
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

test.describe('README and docs', () => {
  test('the README is a landing page: at most 250 lines, linking every page of docs/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    for (const page of pages().filter((p) => p.startsWith('docs/') && p !== 'docs/writing-checks.md'))
      expect(readme, `README.md links ${page}`).toContain(`](${page})`);
    expect(readme).toContain('](docs/writing-checks.md)');
  });

  test('every relative link resolves, anchors included', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        const href = m[1]!;
        if (/^[a-z]+:/.test(href)) continue;
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), path);
        if (!existsSync(target)) {
          broken.push(`${page}: ${href} (no such file)`);
          continue;
        }
        if (
          anchor !== undefined &&
          target.endsWith('.md') &&
          !anchors(readFileSync(target, 'utf8')).has(anchor)
        )
          broken.push(`${page}: ${href} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  test('every npm script and variable the README and docs name exists', () => {
    // The files users copy settings from name only variables the code reads, too.
    const settings = [
      '.env.example',
      'action.yml',
      'Dockerfile',
      ...readdirSync(join(ROOT, '.github', 'workflows')).map((f) => `.github/workflows/${f}`),
    ];
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
        .scripts,
    );
    const unknown: string[] = [];
    for (const page of [...pages(), ...settings]) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const m of text.matchAll(/\bnpm run ([a-z][\w:-]*)/g))
        if (!scripts.includes(m[1]!)) unknown.push(`${page}: npm run ${m[1]}`);
      // `$API_TOKEN_VARIANT` and the like are placeholders of the reports, not variables.
      for (const m of text.matchAll(/(?<![$\w])((?:CONFORMANCE|API)_[A-Z0-9_]+)/g))
        if (!isDocumented(m[1]!)) unknown.push(`${page}: ${m[1]}`);
    }
    expect(unknown).toEqual([]);
  });
});
