/**
 * The quotes of the requirement catalogue: every requirement rests on at least one passage
 * quoted word for word, and every quote of interface.md still occurs, verbatim, in
 * ../shared/interface.md within the section it names. An edit of the document that rewords or
 * drops a quoted sentence fails here, naming the requirement and the quote, so the catalogue is
 * re-read against the new words rather than silently citing words that are gone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { REQUIREMENTS, type Requirement } from '../../spec/requirements.ts';
import { INTERFACE_TABLES, isTableRow, quotedRow, tableCells } from '../../spec/quote-tables.ts';

/** The repository root; the interface document lives beside the repository, in ../shared. */
const ROOT = join(import.meta.dirname, '..', '..');
const INTERFACE_PATH = join(ROOT, '..', 'shared', 'interface.md');

const INTERFACE_SOURCE = /^interface\.md (?:§(\d+(?:\.\d+)*)|\(introduction\))$/;
const RFC_SOURCE = /^RFC \d+ §\d+(?:\.\d+)*$/;

/** A numbered heading of the document ("## 4. Endpoints", "### 4.1 GET …") and where it starts. */
interface Heading {
  number: string;
  start: number;
}

function headings(doc: string): Heading[] {
  return [...doc.matchAll(/^#{2,6} (\d+(?:\.\d+)*)\.? /gm)].map((m) => ({
    number: m[1]!,
    start: m.index,
  }));
}

/**
 * The text of section `number` with its subsections (§4 holds §4.1 to §4.3), or of the
 * introduction (everything before §1) when `number` is undefined; null when the document has no
 * such section.
 */
function sectionText(doc: string, number: string | undefined): string | null {
  const hs = headings(doc);
  if (number === undefined) return doc.slice(0, hs[0]?.start ?? doc.length);
  const i = hs.findIndex((h) => h.number === number);
  if (i < 0) return null;
  const end = hs.slice(i + 1).find((h) => h.number !== number && !h.number.startsWith(`${number}.`));
  return doc.slice(hs[i]!.start, end?.start ?? doc.length);
}

/** What is wrong with the quotes of `requirements` against `doc`, one line each. */
function quoteProblems(requirements: readonly Requirement[], doc: string): string[] {
  const problems: string[] = [];
  for (const r of requirements) {
    if (r.quotes.length === 0) problems.push(`${r.id}: quotes nothing`);
    const texts = new Set<string>();
    for (const q of r.quotes) {
      const what = `${r.id}: ${JSON.stringify(q.text)} (${q.source})`;
      if (q.text.trim() === '') {
        problems.push(`${r.id}: an empty quote (${q.source})`);
        continue;
      }
      if (q.text !== q.text.trim() || /\s{2}|\n/.test(q.text))
        problems.push(`${what} has leading, trailing, doubled or line-breaking white space`);
      if (texts.has(`${q.source}\u0000${q.text}`)) problems.push(`${what} is quoted twice`);
      texts.add(`${q.source}\u0000${q.text}`);
      const source = INTERFACE_SOURCE.exec(q.source);
      if (source) {
        const section = sectionText(doc, source[1]);
        if (section === null) problems.push(`${what}: interface.md has no section ${source[1]}`);
        else if (!doc.includes(q.text)) problems.push(`${what} does not occur in ../shared/interface.md`);
        else if (!section.includes(q.text))
          problems.push(`${what} occurs in ../shared/interface.md, but not in the section it names`);
      } else if (!RFC_SOURCE.test(q.source)) {
        problems.push(
          `${what}: the source is neither "interface.md §<section>", "interface.md (introduction)" nor "RFC <number> §<section>"`,
        );
      }
    }
  }
  return problems;
}

const doc = readFileSync(INTERFACE_PATH, 'utf8');
const ALL: readonly Requirement[] = REQUIREMENTS;

test('every requirement quotes at least one passage, none of them empty', () => {
  const unquoted = ALL.filter((r) => r.quotes.length === 0).map((r) => r.id);
  expect(unquoted, 'requirements without a quote').toEqual([]);
  const empty = ALL.flatMap((r) =>
    r.quotes
      .filter((q) => q.text.trim() === '' || q.source.trim() === '')
      .map((q) => `${r.id} (${q.source})`),
  );
  expect(empty, 'empty quotes or sources').toEqual([]);
});

test('every quote of interface.md occurs verbatim in ../shared/interface.md, in the section it names', () => {
  expect(quoteProblems(ALL, doc)).toEqual([]);
});

test('a requirement whose section cites interface.md quotes interface.md', () => {
  const missing = ALL.filter(
    (r) => r.section.includes('interface.md') && !r.quotes.some((q) => q.source.startsWith('interface.md')),
  ).map((r) => r.id);
  expect(missing).toEqual([]);
});

test('the check catches a reworded quote, a quote from the wrong section and an unknown source', () => {
  const base = ALL[0]!;
  const broken: Requirement[] = [
    { ...base, id: 'reworded', quotes: [{ source: 'interface.md §4.1', text: 'Returns a counterparty.' }] },
    { ...base, id: 'elsewhere', quotes: [{ source: 'interface.md §7', text: 'Returns one counterparty.' }] },
    {
      ...base,
      id: 'no-section',
      quotes: [{ source: 'interface.md §42', text: 'Returns one counterparty.' }],
    },
    { ...base, id: 'vague', quotes: [{ source: 'the HTTP spec', text: 'Be nice.' }] },
    { ...base, id: 'empty', quotes: [{ source: 'interface.md §4.1', text: ' ' }] },
    { ...base, id: 'none', quotes: [] },
  ];
  expect(quoteProblems(broken, doc)).toEqual([
    'reworded: "Returns a counterparty." (interface.md §4.1) does not occur in ../shared/interface.md',
    'elsewhere: "Returns one counterparty." (interface.md §7) occurs in ../shared/interface.md, but not in the section it names',
    'no-section: "Returns one counterparty." (interface.md §42): interface.md has no section 42',
    'vague: "Be nice." (the HTTP spec): the source is neither "interface.md §<section>", "interface.md (introduction)" nor "RFC <number> §<section>"',
    'empty: an empty quote (interface.md §4.1)',
    'none: quotes nothing',
  ]);
  // A section holds its subsections; the introduction is what comes before §1.
  expect(sectionText(doc, '4')).toContain('Returns one counterparty.');
  expect(sectionText(doc, '4.2')).not.toContain('Returns one counterparty.');
  expect(sectionText(doc, undefined)).toContain('REST over HTTP with JSON bodies');
  expect(sectionText(doc, undefined)).not.toContain('## 1.');
});

/** Every table of the document: the section it stands in, its header row and its rows. */
function documentTables(text: string): { section: string; header: string; rows: string[] }[] {
  const lines = text.split('\n');
  const tables: { section: string; header: string; rows: string[] }[] = [];
  let section = '';
  lines.forEach((line, i) => {
    const heading = /^#{2,6} (\d+(?:\.\d+)*)\.? /.exec(line);
    if (heading) section = heading[1]!;
    if (!/^\|(\s*:?-+:?\s*\|)+$/.test(line) || i === 0) return;
    const rows: string[] = [];
    for (let j = i + 1; j < lines.length && lines[j]!.startsWith('|'); j++) rows.push(lines[j]!);
    tables.push({ section, header: lines[i - 1]!, rows });
  });
  return tables;
}

test("every table of interface.md is declared with its header (spec/quote-tables.ts), and a quoted row is shown under its own table's header", () => {
  const tables = documentTables(doc);
  expect(INTERFACE_TABLES.map((t) => [t.section, t.header])).toEqual(
    tables.map((t) => [t.section, t.header]),
  );
  const rows = ALL.flatMap((r) => r.quotes).filter(
    (q) => q.source.startsWith('interface.md') && isTableRow(q.text),
  );
  expect(rows.length).toBeGreaterThan(10);
  for (const q of rows) {
    const table = tables.find((t) => t.rows.includes(q.text));
    expect(table, `${q.text} stands in a table`).toBeDefined();
    expect(quotedRow(q), q.text).toEqual({ header: tableCells(table!.header), row: tableCells(q.text) });
  }
  // A sentence, an RFC's words and a row of no declared table are shown as written.
  expect(quotedRow({ source: 'interface.md §7', text: 'Errors are JSON.' })).toBeUndefined();
  expect(quotedRow({ source: 'RFC 9110 §15.5.6', text: '| a | b |' })).toBeUndefined();
  expect(quotedRow({ source: 'interface.md §1', text: '| a | b |' })).toBeUndefined();
});
