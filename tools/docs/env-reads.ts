/**
 * Which environment variables the project's source reads, found by reading the source: so the
 * configuration page cannot leave out a variable the code reads (as the README's table once
 * left out CONFORMANCE_RESULTS_DIR). tests/self/docs-tables.spec.ts compares what this finds
 * with what docs/configuration.md lists.
 *
 * What counts as a read: `env.NAME` and `process.env.NAME`, `env['NAME']`, `env[CONSTANT]`
 * where the source defines `CONSTANT = 'NAME'`, and any string literal naming a variable of the
 * suite (`'CONFORMANCE_…'`, `'API_…'`), which is how the configuration reads its own list.
 * The self-tests' own plumbing (tests/self/) is not a setting of the suite and is not scanned.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Directories never scanned: dependencies, generated output, and this tool (it reads nothing). */
const SKIP = new Set([
  'node_modules',
  'dist',
  '.stryker-tmp',
  'reports',
  'test-results',
  'playwright-report',
  'blob-report',
  '.git',
]);
const TOOL = join('tools', 'docs');
const SELF_TESTS = join('tests', 'self');

/**
 * The source files of the project, relative to `root`, in a stable order; the self-tests only
 * with `selfTests` (their plumbing, HOME or PATH of a child process, is no setting of the suite).
 */
export function sourceFiles(root: string, { selfTests = false } = {}): string[] {
  const SKIP_PATHS = new Set(selfTests ? [TOOL] : [TOOL, SELF_TESTS]);
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative(root, path);
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name) && !SKIP_PATHS.has(rel)) walk(path);
      } else if (/\.(ts|mts|mjs|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        out.push(rel.split(sep).join('/'));
      }
    }
  };
  walk(root);
  return out.sort();
}

/** A variable read, and the file that reads it. */
export interface EnvRead {
  name: string;
  file: string;
}

const MEMBER =
  /\benv\s*(?:\.\s*([A-Z_][A-Z0-9_]*|npm_[a-z_]+)\b|\[\s*(['"`])([A-Za-z_][A-Za-z0-9_]*)\2\s*\])/g;
const INDIRECT = /\benv\s*\[\s*([A-Z_][A-Z0-9_]*)\s*\]/g;
const CONSTANT = /\b([A-Z_][A-Z0-9_]*)\s*=\s*(['"`])([A-Za-z_][A-Za-z0-9_]*)\2/g;
const LITERAL = /(['"`])((?:CONFORMANCE|API)_[A-Z0-9_]*)\1/g;

/**
 * The variables `sources` read (file name → text). `env[CONSTANT]` is resolved through the
 * constants any of them define; one that cannot be resolved is reported under its constant's
 * name, so it fails the comparison instead of passing unseen.
 */
export function envReads(sources: Record<string, string>): EnvRead[] {
  const constants = new Map<string, string>();
  for (const text of Object.values(sources))
    for (const m of text.matchAll(CONSTANT)) constants.set(m[1]!, m[3]!);
  const seen = new Set<string>();
  const out: EnvRead[] = [];
  const add = (name: string, file: string): void => {
    const key = `${name}\u0000${file}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ name, file });
  };
  for (const [file, text] of Object.entries(sources)) {
    for (const m of text.matchAll(MEMBER)) add(m[1] ?? m[3]!, file);
    for (const m of text.matchAll(INDIRECT)) add(constants.get(m[1]!) ?? m[1]!, file);
    for (const m of text.matchAll(LITERAL)) add(m[2]!, file);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name) || a.file.localeCompare(b.file));
}

/** The variables the project's source under `root` reads (with `selfTests`, the self-tests' too). */
export function projectEnvReads(root: string, options: { selfTests?: boolean } = {}): EnvRead[] {
  return envReads(
    Object.fromEntries(
      sourceFiles(root, options).map((file) => [file, readFileSync(join(root, file), 'utf8')]),
    ),
  );
}
