/**
 * What the README's screenshot of the report (docs/conformance-report.png) was made from: the
 * SHA-256 of the sources that lay the page out, the renderer (reporter/html.ts, with its
 * stylesheet) and the modules of reporter/ it imports, from import to import, that write markup
 * (those that escape with reporter/escape-html.ts), so that a section added in a file of its own
 * counts without a line here. The modules that only word a line (the headline, the replay line)
 * are left out: a new wording is not a new layout. Recorded beside the
 * image when `npm run screenshot` makes it (docs/conformance-report.layout.json), and compared by
 * tests/self/report-screenshot.spec.ts: a file's time stamp would not do, a clone does not keep it.
 * Line ends are read as LF, so a checkout that writes CRLF hashes the same.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The page's renderer: where the walk of imports starts. */
export const RENDERER = 'reporter/html.ts';
/** What every markup writer escapes with: importing it is what makes a module part of the layout. */
const ESCAPE = 'reporter/escape-html.ts';
export const SCREENSHOT = 'docs/conformance-report.png';
export const SCREENSHOT_LAYOUT = 'docs/conformance-report.layout.json';

/** What docs/conformance-report.layout.json holds. */
export interface ScreenshotLayout {
  /** The SHA-256 of the layout's sources (layoutHash). */
  layout: string;
  /** Those sources, from the project's root. */
  sources: string[];
  /** The gallery variant whose run's report the image shows. */
  variant: string;
  width: number;
  height: number;
}

/** The relative imports of reporter/ a file makes for values (an `import type` lays nothing out). */
function valueImports(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^(import|export)(?!\s+type\b)[^;]*?from\s+'(\.\/[^']+\.ts)';/gms))
    out.push(posix.join(posix.dirname(file), m[2]!));
  return out;
}

/** The sources of the layout, sorted: the renderer and the markup writers of reporter/ it imports, transitively. */
export function layoutSources(root = PROJECT_ROOT): string[] {
  const imports = new Map<string, string[]>();
  const visit = (file: string): void => {
    if (imports.has(file) || !file.startsWith('reporter/')) return;
    const found = valueImports(file, readFileSync(join(root, file), 'utf8'));
    imports.set(file, found);
    for (const next of found) visit(next);
  };
  visit(RENDERER);
  return [...imports]
    .filter(([file, found]) => file === RENDERER || file === ESCAPE || found.includes(ESCAPE))
    .map(([file]) => file)
    .sort();
}

/** The SHA-256 of the layout's sources: each file's name and text, LF line ends. */
export function layoutHash(root = PROJECT_ROOT): { hash: string; sources: string[] } {
  const sources = layoutSources(root);
  const hash = createHash('sha256');
  for (const file of sources) {
    hash.update(`${file}\n`);
    hash.update(readFileSync(join(root, file), 'utf8').replace(/\r\n/g, '\n'));
    hash.update('\n\u0000\n');
  }
  return { hash: hash.digest('hex'), sources };
}
