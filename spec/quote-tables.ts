/**
 * The header rows of interface.md's tables, so that a quoted table row (a requirement's quote,
 * spec/requirements.ts) can be shown as its table's header and that row: "| createdAt | string |
 * yes | UTC timestamp … |" alone does not say which column is which. A report cannot read the
 * document (an installed package does not carry it), so the headers are declared here, word for
 * word; tests/self/requirement-quotes.spec.ts checks each against the table the row stands in.
 * Two tables of one section differ in their number of columns (§3).
 */
import type { Quote } from './requirements.ts';

/** Each table of interface.md: the section it stands in and its header row, as written. */
export const INTERFACE_TABLES: readonly { section: string; header: string }[] = [
  { section: '2.1', header: '| Field | Type | Required | Constraints |' },
  { section: '2.2', header: '| Field | Type | Constraints |' },
  { section: '2.3', header: '| Field | Type | Required (response) | Constraints |' },
  { section: '3', header: '| Resource | Field | Values |' },
  { section: '3', header: '| Resource | State | Trigger | Condition | Next state | Also |' },
  { section: '4.2', header: '| Field | Type | Required | Constraints |' },
  { section: '4.3', header: '| Method | Path | Purpose |' },
  { section: '7', header: '| Condition | Result |' },
  { section: '9', header: '| Version | Changes |' },
];

/** Whether a quote is a row of a markdown table. */
export function isTableRow(text: string): boolean {
  return text.length > 2 && text.startsWith('|') && text.endsWith('|');
}

/** The cells of a markdown table row, trimmed ("| a | b |" -> ["a", "b"]). */
export function tableCells(row: string): string[] {
  return row
    .slice(1, -1)
    .split('|')
    .map((c) => c.trim());
}

/** A quoted row with its table's header, cell by cell. */
export interface QuotedRow {
  header: string[];
  row: string[];
}

/**
 * The header and cells of a quote that is a row of a table of interface.md; undefined for any
 * other quote, and for a row whose table is not declared (the report then shows it as written).
 */
export function quotedRow(quote: Pick<Quote, 'source' | 'text'>): QuotedRow | undefined {
  if (!isTableRow(quote.text)) return undefined;
  const section = /^interface\.md §(\d+(?:\.\d+)*)$/.exec(quote.source)?.[1];
  if (section === undefined) return undefined;
  const row = tableCells(quote.text);
  const table = INTERFACE_TABLES.find(
    (t) => t.section === section && tableCells(t.header).length === row.length,
  );
  return table ? { header: tableCells(table.header), row } : undefined;
}
