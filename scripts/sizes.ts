/**
 * The size bounds of the style guide, measured: no function of more than 120 lines and no file of
 * more than 500 outside servers/, spec/ and tests/ (the servers and the requirement catalogue are
 * long lists of what an interface answers and says; a test's body is its cases). A function is
 * every function-like node with a body (declarations, methods, accessors, constructors,
 * function expressions and arrows), from its first token to its last, blank lines and comments
 * inside it included: what a reader scrolls through. A function inside another counts in both.
 *
 * A bound says when a file or a function holds more than one idea; it is not a target, and what
 * splits a long function is its ideas, not a count. The few functions being split elsewhere at
 * the time are named in EXCEPTIONS, each with the length it may not grow past.
 *
 * The rule runs with the type check (scripts/typecheck.ts), on the program tsc builds anyway; like
 * scripts/data-keys.ts it imports nothing of the project and uses only the syntax Node strips
 * itself.
 */
import { relative, sep } from 'node:path';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 120;
export const MAX_FILE_LINES = 500;

/** The folders the bounds leave alone, from the project's root. */
export const UNBOUNDED = ['servers/', 'spec/', 'tests/'] as const;

/** Functions over the bound that are being split at the same time elsewhere: `file name` → lines. */
export const EXCEPTIONS: ReadonlyMap<string, number> = new Map([]);

export interface SizeFinding {
  /** Relative to the project's root, with `/` as separator. */
  readonly file: string;
  readonly line: number;
  /** The function's name (`file` for the file itself), as EXCEPTIONS keys it. */
  readonly name: string;
  readonly lines: number;
  readonly bound: number;
}

/** What a function is called where it is declared: its name, its variable's or its property's. */
function nameOf(node: ts.SignatureDeclaration, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name !== undefined) return node.name.getText(file);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(file);
  return `(anonymous, line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1})`;
}

const lineOf = (file: ts.SourceFile, pos: number): number => file.getLineAndCharacterOfPosition(pos).line;

/** Every file and function of `file` over its bound, the EXCEPTIONS within theirs aside. */
export function fileSizeFindings(
  file: ts.SourceFile,
  path: string,
  exceptions: ReadonlyMap<string, number> = EXCEPTIONS,
): SizeFinding[] {
  const findings: SizeFinding[] = [];
  const lines = lineOf(file, file.getEnd()) + (file.text.endsWith('\n') ? 0 : 1);
  if (lines > MAX_FILE_LINES)
    findings.push({ file: path, line: 1, name: 'file', lines, bound: MAX_FILE_LINES });
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = lineOf(file, node.getStart(file));
      const span = lineOf(file, node.getEnd()) - first + 1;
      const name = nameOf(node, file);
      const bound = Math.max(MAX_FUNCTION_LINES, exceptions.get(`${path} ${name}`) ?? 0);
      if (span > bound) findings.push({ file: path, line: first + 1, name, lines: span, bound });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return findings;
}

/** The findings in the project's files among `sources` (none in node_modules, none unbounded). */
export function sizeFindings(sources: readonly ts.SourceFile[], root: string): SizeFinding[] {
  return sources.flatMap((file) => {
    const path = relative(root, file.fileName).split(sep).join('/');
    if (file.isDeclarationFile || path.startsWith('..') || path.split('/').includes('node_modules'))
      return [];
    if (UNBOUNDED.some((folder) => path.startsWith(folder)) || !/\.[cm]?ts$/.test(path)) return [];
    return fileSizeFindings(file, path);
  });
}

/** One finding as a line of the check's output. */
export function formatSizeFinding(f: SizeFinding): string {
  const what = f.name === 'file' ? 'the file' : `function ${f.name}`;
  return `${f.file}:${f.line}: ${what} has ${f.lines} lines, over ${f.bound}: split it by its ideas (see scripts/sizes.ts)`;
}
