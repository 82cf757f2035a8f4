/**
 * The interface document as the tests of quotes read it: ../shared/interface.md, its sections,
 * and whether a quote occurs, word for word, in the section it names. Shared by the tests of every
 * catalogue that quotes the document (the request rules, the operations registry); the
 * requirement catalogue's own test (requirement-quotes.spec.ts) says more of each problem.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Quote } from '../../spec/requirements.ts';

export const INTERFACE = readFileSync(
  join(import.meta.dirname, '..', '..', '..', 'shared', 'interface.md'),
  'utf8',
);

/** The text of section `n` of interface.md with its subsections, or the introduction. */
export function section(n: string | undefined): string | undefined {
  const heads = [...INTERFACE.matchAll(/^#{2,6} (\d+(?:\.\d+)*)\.? /gm)].map((m) => ({
    n: m[1]!,
    at: m.index,
  }));
  if (n === undefined) return INTERFACE.slice(0, heads[0]?.at ?? INTERFACE.length);
  const i = heads.findIndex((h) => h.n === n);
  if (i < 0) return undefined;
  const end = heads.slice(i + 1).find((h) => h.n !== n && !h.n.startsWith(`${n}.`));
  return INTERFACE.slice(heads[i]!.at, end?.at);
}

/** What is wrong with `owner`'s quotes, one line each: none, padded, not in the section named, an unknown source. */
export function quoteProblems(owner: string, quotes: readonly Quote[]): string[] {
  const out: string[] = [];
  if (quotes.length === 0) out.push(`${owner}: quotes nothing`);
  for (const q of quotes) {
    const doc = /^interface\.md (?:§(\d+(?:\.\d+)*)|\(introduction\))$/.exec(q.source);
    if (q.text !== q.text.trim() || q.text === '') out.push(`${owner}: an empty or padded quote`);
    if (doc) {
      const text = section(doc[1]);
      if (text === undefined) out.push(`${owner}: no section ${q.source}`);
      else if (!text.includes(q.text)) out.push(`${owner}: ${JSON.stringify(q.text)} is not in ${q.source}`);
    } else if (!/^RFC \d+ §\d+(?:\.\d+)*$/.test(q.source)) out.push(`${owner}: the source ${q.source}`);
  }
  return out;
}
