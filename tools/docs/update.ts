/**
 * `npm run docs:tables`: rewrites the tables of docs/ generated from the code's registries
 * (tools/docs/tables.ts). With `--check` it writes nothing and exits 1 when a page is out of
 * date, naming it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATED_PAGES, renderPage, writePages } from './tables.ts';

const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const check = process.argv.includes('--check');
if (check) {
  const stale: string[] = [];
  for (const page of GENERATED_PAGES)
    if ((await renderPage(PROJECT_ROOT, page)) !== readFileSync(join(PROJECT_ROOT, page), 'utf8'))
      stale.push(page);
  if (stale.length > 0) {
    console.error(`generated tables out of date in ${stale.join(', ')}: run npm run docs:tables`);
    process.exit(1);
  }
  console.log(`generated tables up to date in ${GENERATED_PAGES.join(', ')}`);
} else {
  const changed = await writePages(PROJECT_ROOT);
  console.log(changed.length === 0 ? 'generated tables already up to date' : `rewrote ${changed.join(', ')}`);
}
