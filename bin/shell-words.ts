/**
 * The words of a command line as a POSIX shell splits it, with no expansion at all: for the
 * Action's `args` input, so that `--header 'X-Tenant: acme'` stays one argument. Written here
 * rather than taken from a library: the packages that do this (shell-quote, string-argv) either
 * expand `$VAR` against an environment or keep quotes inside words, and the Action must do
 * neither; the rules below are few and tested (tests/self/action-scripts.spec.ts).
 *
 * - Blanks (space, tab, newline) separate words; a run of them is one separator.
 * - '...' is literal, every character, a backslash included.
 * - "..." is literal but for a backslash before $ ` " \ or a newline, which it escapes (a
 *   backslash-newline is removed), as in sh.
 * - Outside quotes a backslash escapes the next character (a backslash-newline is removed).
 * - Quoted parts join the word around them: --header='X: y' is one word, `''` an empty word.
 * - Nothing expands: $VAR, $(...), `...`, ~ and globs stay as written; # is not a comment.
 * An unclosed quote or a trailing lone backslash is an error (ShellWordsError), never a guess.
 */
export class ShellWordsError extends Error {
  override readonly name = 'ShellWordsError';
}

const BLANK = new Set([' ', '\t', '\n', '\r']);
const ESCAPABLE_IN_DOUBLE = new Set(['$', '`', '"', '\\', '\n']);

export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  /** Whether a word has started (a quoted empty string starts one). */
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (BLANK.has(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new ShellWordsError(`an unclosed ' starting at character ${i + 1}`);
      word += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= line.length) throw new ShellWordsError(`an unclosed " starting at character ${i + 1}`);
        const d = line[j]!;
        if (d === '"') break;
        if (d === '\\' && j + 1 < line.length && ESCAPABLE_IN_DOUBLE.has(line[j + 1]!)) {
          if (line[j + 1] !== '\n') word += line[j + 1];
          j += 2;
          continue;
        }
        word += d;
        j++;
      }
      i = j + 1;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new ShellWordsError('a lone \\ at the end');
      if (line[i + 1] !== '\n') word += line[i + 1];
      else if (word === '') inWord = false; // a line continuation between words
      i += 2;
    } else {
      word += c;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
