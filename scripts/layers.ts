/**
 * The layers of the house, declared once (LAYERS), and the import rule that holds them. A room is
 * a folder; the floors stack from the top, and a room imports only rooms on the floors below it,
 * unless its row says otherwise:
 *
 *   only   it imports nothing of the project but these rooms (on its floor or below): the oracles
 *          judge any traffic because they import only exchange/, spec/ and requests/;
 *   also   rooms of its own floor it may import besides (the project's tools use the tests'
 *          fixtures);
 *   never  rooms below it that it never imports (a room named covers the rooms inside it): a probe
 *          that knew a server's code would test the server against its own copy.
 *
 * And no file imports itself through others, whatever their rooms: a circle, even of type-only
 * imports, is one idea spread over two files. Every import counts: `import type`, `export ... from`,
 * `import('...')` in a type or a call. A file in no declared room is a finding too, so a new folder
 * takes its floor here before it holds code.
 *
 * docs/writing-checks.md ("The layers") is generated from LAYERS (`npm run docs:tables`), so the
 * page and the rule cannot disagree. The rule runs with the type check (scripts/typecheck.ts), on
 * the program tsc builds anyway: the walk and the resolution of every import cost some 0.1 s, where
 * a linter's import plugin or a dependency tool would parse and resolve the project a second time
 * in a process of its own, for a dozen lines of rules. Like scripts/data-keys.ts it imports nothing
 * of the project and uses only the syntax Node strips itself.
 */
import { relative, sep } from 'node:path';
import ts from 'typescript';

/** A room of the house and the imports it may make. */
export interface Room {
  /** A folder of the project's root with its trailing slash, or './' for the files at the root. */
  readonly room: string;
  readonly floor: number;
  /** What it holds, as docs/writing-checks.md shows it. */
  readonly holds: string;
  readonly only?: readonly string[];
  readonly also?: readonly string[];
  readonly never?: readonly string[];
}

/** The house, from the top floor down; a folder inside another is a room of its own where named. */
export const LAYERS: readonly Room[] = [
  {
    room: 'tests/self/',
    floor: 7,
    holds: "the project's own tests (`npm test`): they may import anything",
    also: ['bench/', 'scripts/', 'tools/', 'mutation/'],
  },
  {
    room: 'tests/conformance/',
    floor: 7,
    holds: "the conformance suite's spec files: each only calls `suite/define.ts`",
    only: ['suite/'],
  },
  {
    room: 'bench/',
    floor: 7,
    holds: '`npm run bench`, the cost measures and the comparison of two runs',
    also: ['tests/self/', 'mutation/'],
  },
  {
    room: 'scripts/',
    floor: 7,
    holds: '`npm test` and its static checks (this rule among them), the build, the sweep, the gallery diff',
    also: ['tests/self/'],
  },
  {
    room: 'tools/',
    floor: 7,
    holds: 'what writes the generated files: the catalogs and the tables of docs/ (this page among them)',
    also: ['scripts/'],
  },
  { room: 'mutation/', floor: 7, holds: 'mutation testing (`npm run mutation`) and its triage' },
  { room: 'bin/', floor: 6, holds: 'the command (run, validate, merge): flags, preflight, interruption' },
  {
    room: 'suite/',
    floor: 6,
    holds:
      'the Playwright glue: spec definer, target fixture, global setup, the reporter entry, ' +
      '`attachments.ts` (what a check hands the reporter, written once)',
  },
  { room: './', floor: 6, holds: "Playwright's configurations (`playwright.config.ts` and its kin)" },
  {
    room: 'run/',
    floor: 5,
    holds:
      'the run composed: the configuration resolved once, the probe registry handed to the selection, ' +
      "the report writers' names to `--report`, the hand-down to Playwright's processes",
    // The names --report chooses from are the writers' (reporter/writers.ts, which loads no renderer).
    also: ['reporter/'],
  },
  {
    room: 'reporter/',
    floor: 5,
    holds:
      'the typed run record and the gate; the report writers, listed once (`writers.ts`) and written ' +
      'through one path (`write-reports.ts`); the console summary',
  },
  {
    room: 'probes/',
    floor: 4,
    holds:
      'what to send, one family per file; `index.ts` is the one registry; `described.ts` what is known ' +
      'of a probe without loading it (`catalog.ts`); `write-lane.ts` the steps the write probes share',
    never: ['servers/'],
  },
  {
    room: 'engine/',
    floor: 3,
    holds:
      'runs probes, records every exchange and judges it where it records it (`run.ts`), verdicts; ' +
      '`probe-api.ts` is what probes may use of it',
  },
  {
    room: 'config/',
    floor: 3,
    holds: 'variables, flags, extra headers, waivers, strict mode, the selection (given probes)',
  },
  {
    room: 'transport/',
    floor: 2,
    holds:
      'session (pace, budget, retries, breaker), `ledger.ts` (shared by the processes), `attempt.ts` ' +
      '(the steps of one request), the wire, the limiter, the proxy',
  },
  {
    room: 'generators/',
    floor: 2,
    holds: 'what to send: arbitraries and explicit cases, each value labelled with its rule',
    never: ['servers/'],
  },
  {
    room: 'requests/',
    floor: 2,
    holds: 'the request model: what a valid request is, every rule an invalid one breaks',
    only: ['exchange/', 'spec/'],
  },
  {
    room: 'oracles/',
    floor: 2,
    holds: 'judge it: pure functions of an exchange, a PATCH with its reads, or two reads',
    only: ['exchange/', 'spec/', 'requests/'],
  },
  {
    room: 'exchange/',
    floor: 1,
    holds:
      "one Exchange type, the run's log, the route matcher, curl, describe; the credential headers read " +
      '(`auth-headers.ts`) and the one redaction layer (`redact*.ts`)',
  },
  {
    room: 'servers/',
    floor: 1,
    holds: 'the reference server, the gallery, and the fronts the self-tests put before them',
    only: ['spec/'],
  },
  {
    room: 'servers/independent/',
    floor: 1,
    holds: 'the independent server, written from `interface.md` alone',
    only: [],
  },
  {
    room: 'spec/',
    floor: 0,
    holds:
      '`openapi.yaml` read through `spec()` (validators, constraints, operations; loaded from its JSON, ' +
      '`openapi.json`), `operations.ts` (the one registry of operations: what OpenAPI cannot say of each) ' +
      'and `requirements.ts` (the catalogue, with quotes)',
    only: [],
  },
];

/** One import of the project's, from the file that makes it. */
export interface Import {
  /** Both relative to the project's root, with `/` as separator. */
  readonly from: string;
  readonly to: string;
  readonly line: number;
}

export type LayerKind = 'up' | 'across' | 'only' | 'never' | 'circle' | 'room';

export interface LayerFinding {
  readonly file: string;
  readonly line: number;
  readonly kind: LayerKind;
  readonly message: string;
}

/** The room a file is in: the longest declared folder that holds it; './' at the root. */
export function roomOf(file: string, layers: readonly Room[] = LAYERS): Room | undefined {
  if (!file.includes('/')) return layers.find((r) => r.room === './');
  let best: Room | undefined;
  for (const r of layers)
    if (r.room !== './' && file.startsWith(r.room) && r.room.length > (best?.room.length ?? 0)) best = r;
  return best;
}

/** What a room may import, in words (for the finding and for the page). */
export function mayImport(room: Room): string {
  const code = (rooms: readonly string[]): string => rooms.map((r) => `\`${r}\``).join(', ');
  if (room.only) return room.only.length === 0 ? 'nothing of the project' : `only ${code(room.only)}`;
  const below = room.floor === 0 ? 'nothing of the project' : 'the floors below';
  const also = room.also ? `, and ${code(room.also)}` : '';
  const never = room.never ? `, never ${code(room.never)}` : '';
  return `${below}${also}${never}`;
}

/** The ways `layers` contradicts itself: a row naming no room, an `only` above, an `also` off its floor. */
export function layerErrors(layers: readonly Room[] = LAYERS): string[] {
  const byName = new Map(layers.map((r) => [r.room, r]));
  const errors: string[] = [];
  if (byName.size !== layers.length) errors.push('a room is declared twice');
  for (const r of layers) {
    if (!(r.room === './' || /^[a-z][\w-]*(\/[\w-]+)*\/$/.test(r.room)))
      errors.push(`${r.room}: not a folder written as name/`);
    for (const [field, names] of [
      ['only', r.only],
      ['also', r.also],
      ['never', r.never],
    ] as const)
      for (const name of names ?? []) {
        const other = byName.get(name);
        if (other === undefined) errors.push(`${r.room} ${field}: ${name} is no room`);
        else if (field === 'only' && other.floor > r.floor)
          errors.push(`${r.room} only: ${name} is above it`);
        else if (field === 'also' && other.floor !== r.floor)
          errors.push(`${r.room} also: ${name} is not on its floor`);
      }
  }
  return errors;
}

/** Whether `from` may import `to`, and if not, why (the finding's kind). */
function verdict(from: Room, to: Room): LayerKind | undefined {
  if (from === to) return undefined;
  if (from.only) return from.only.includes(to.room) ? undefined : 'only';
  if (from.never?.some((n) => to.room.startsWith(n))) return 'never';
  if (to.floor < from.floor) return undefined;
  if (to.floor === from.floor) return from.also?.includes(to.room) ? undefined : 'across';
  return 'up';
}

/** The files of `imports` that import themselves through others: each circle once, its files sorted. */
export function circles(imports: readonly Import[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const i of imports) {
    if (!next.has(i.from)) next.set(i.from, new Set());
    next.get(i.from)!.add(i.to);
  }
  // Tarjan's strongly connected components, iterative (the graph has a few hundred files).
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  for (const start of [...next.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; edges: string[] }[] = [];
    const enter = (node: string): void => {
      index.set(node, index.size);
      low.set(node, index.get(node)!);
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: [...(next.get(node) ?? [])] });
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const edge = top.edges.pop();
      if (edge !== undefined) {
        if (!index.has(edge)) enter(edge);
        else if (onStack.has(edge)) low.set(top.node, Math.min(low.get(top.node)!, index.get(edge)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== top.node);
      if (component.length > 1 || next.get(top.node)?.has(top.node)) found.push(component.sort());
    }
  }
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The findings of the rule on `imports` among `files` (every file the project holds). */
export function layerFindings(
  files: readonly string[],
  imports: readonly Import[],
  layers: readonly Room[] = LAYERS,
): LayerFinding[] {
  const findings: LayerFinding[] = [];
  for (const file of files)
    if (roomOf(file, layers) === undefined)
      findings.push({
        file,
        line: 1,
        kind: 'room',
        message: `${file} is in no room of the layers: give its folder a floor in LAYERS`,
      });
  for (const i of imports) {
    const from = roomOf(i.from, layers);
    const to = roomOf(i.to, layers);
    if (from === undefined || to === undefined) continue;
    const kind = verdict(from, to);
    if (kind !== undefined)
      findings.push({
        file: i.from,
        line: i.line,
        kind,
        message:
          `${from.room} (floor ${from.floor}) imports ${i.to} of ${to.room} (floor ${to.floor}); ` +
          `${from.room} may import ${mayImport(from).replaceAll('`', '')}`,
      });
  }
  for (const circle of circles(imports))
    findings.push({
      file: circle[0]!,
      line: 1,
      kind: 'circle',
      message: `a circle of imports: ${circle.join(', ')} (move what they share to a file of its own)`,
    });
  return findings;
}

/** One finding as a line of the check's output. */
export function formatLayerFinding(f: LayerFinding): string {
  return `${f.file}:${f.line}: ${f.message} (see scripts/layers.ts)`;
}

const posix = (root: string, file: string): string => relative(root, file).split(sep).join('/');

/** The module names `file` imports, each with its line: declarations, re-exports, import() and import types. */
function specifiers(file: ts.SourceFile): { name: string; line: number }[] {
  const found: { name: string; line: number }[] = [];
  const add = (node: ts.Node, literal: ts.Node | undefined): void => {
    if (literal !== undefined && ts.isStringLiteralLike(literal))
      found.push({
        name: literal.text,
        line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1,
      });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node, node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node, node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node, node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node, node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * The project's files among `sources` (relative to `root`, none in node_modules nor a declaration
 * file) and their imports of one another, resolved as tsc resolves them.
 */
export function importGraph(
  root: string,
  sources: readonly ts.SourceFile[],
  options: ts.CompilerOptions,
): { files: string[]; imports: Import[] } {
  const ours = (path: string): boolean => {
    const rel = posix(root, path);
    return !rel.startsWith('..') && !rel.split('/').includes('node_modules');
  };
  const cache = ts.createModuleResolutionCache(root, (f) => f, options);
  const files: string[] = [];
  const imports: Import[] = [];
  for (const source of sources) {
    if (source.isDeclarationFile || !ours(source.fileName)) continue;
    const from = posix(root, source.fileName);
    files.push(from);
    for (const { name, line } of specifiers(source)) {
      const resolved = ts.resolveModuleName(name, source.fileName, options, ts.sys, cache).resolvedModule;
      if (resolved === undefined || resolved.isExternalLibraryImport || !ours(resolved.resolvedFileName))
        continue;
      imports.push({ from, to: posix(root, resolved.resolvedFileName), line });
    }
  }
  return { files, imports };
}

/** The rule's findings on a program's files (the project's, as tsc builds it). */
export function programLayerFindings(program: ts.Program, root: string): LayerFinding[] {
  const { files, imports } = importGraph(root, program.getSourceFiles(), program.getCompilerOptions());
  return layerFindings(files, imports);
}
