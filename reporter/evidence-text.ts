/**
 * A finding's evidence as plain text, for the console summary and junit.xml: a quoted table row
 * read cell by cell under its header's names, and the answer (status, the header fields that
 * matter, the head of its body) in a few lines.
 */
import type { AnswerEvidence } from '../exchange/answer.ts';
import type { RecordQuote } from './record.ts';

/** A quote's words as text: a table row as "Field: createdAt; Type: string; …", any other as written. */
export function quoteText(q: RecordQuote): string {
  if (!q.table) return q.text;
  return q.table.row.map((cell, i) => `${q.table!.header[i] ?? `column ${i + 1}`}: ${cell}`).join('; ');
}

/** The answer in one line: "HTTP 401; content-type: application/json; www-authenticate: Bearer". */
export function answerLine(a: AnswerEvidence): string {
  const status = a.status > 0 ? `HTTP ${a.status}` : `no answer${a.failure ? ` (${a.failure})` : ''}`;
  return [status, ...Object.entries(a.headers).map(([k, v]) => `${k}: ${v}`)].join('; ');
}

/** The head of the answer's body on one line, at most `max` characters; undefined when it had none. */
export function bodyLine(a: AnswerEvidence, max = 600): string | undefined {
  if (a.body === undefined) return undefined;
  const flat = a.body.replace(/\s*\n\s*/g, ' ');
  const chars = [...flat];
  const cut = chars.length > max || a.bodyChars !== undefined;
  return `${chars.slice(0, max).join('')}${cut ? ` … (${a.bodyChars ?? chars.length} characters in all)` : ''}`;
}
