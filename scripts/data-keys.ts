/**
 * The data-key rule: no name that can come from data is looked up in, written into or tested
 * against a plain object. `__proto__`, `constructor`, `toString` and `hasOwnProperty` are ordinary
 * keys in a body, an answer, a header or a HAR, and a plain object answers them from
 * Object.prototype: `FORBIDDEN[site][name]` with `name = 'constructor'` finds a function,
 * `name in table` is true for `toString`, and `out[name] = v` with `name = '__proto__'` replaces
 * the prototype of `out` instead of adding a key (so does `Object.assign(out, data)`, whose
 * [[Set]] runs the `__proto__` setter).
 *
 * Which name comes from data is not known to the types, so the rule works from what is: it takes
 * every key of type `string` as a possible data name. A literal key (`o.name`, `o['name']`), a key
 * of a union of literals (`keyof`, an enum-like union) and a numeric key are the code's own and
 * are not flagged; so is every lookup in a Map, which has no such names. What is flagged, in the
 * product's files (everything outside tests/):
 *
 *   index   `o[k]`, read or written (`=`, `??=`, `+=`), where `o`'s type has a string index
 *           signature (`Record<string, T>`, `{ [k: string]: T }`, `NodeJS.Dict`, `process.env`,
 *           `IncomingHttpHeaders`) or is `any`, and `k`'s type includes `string`;
 *   in      `k in o`, where `k`'s type includes `string` (the prototype chain answers `in`);
 *   assign  `Object.assign(target, ...sources)` where a source's type has a string index
 *           signature or is `any` (spread, `{ ...data }`, defines own keys and is not flagged);
 *   pattern `const { [k]: v } = o`, a computed name in a destructuring, with the same types as
 *           `index`, unless it only takes `k` out of a rest (`{ [k]: _dropped, ...rest }`).
 *
 * Not flagged, because the lookup cannot reach Object.prototype:
 *
 *   - `delete o[k]`, which only ever removes an own property;
 *   - an object made without a prototype: an identifier, or a property (`this.table`), declared
 *     `const` or `readonly` and initialised with `Object.create(null)` or an object literal that
 *     starts with `__proto__: null` (through `as`, `satisfies` and parentheses);
 *   - an own-property guard: the lookup sits where `Object.hasOwn(o, k)` holds, with the same `o`
 *     and `k` written the same way: the consequent of an `if`, of a `?:`, or the right of `&&`;
 *   - an own key: `k` declared by a `for (const k of Object.keys(o))` or
 *     `for (const [k, ...] of Object.entries(o))` over the same `o` (the list sorted, reversed,
 *     filtered or sliced on the way).
 *
 * Anything else is rewritten with a Map, an object made without a prototype, `Object.hasOwn`, or
 * `Object.fromEntries` (which defines keys, as spread does). There is no comment to silence the
 * rule: a lookup it cannot see is safe is written so that it can. An object made without a
 * prototype is known as such only where it is declared: handed on as a parameter it is a plain
 * object again, so a table that travels is a Map.
 *
 * What the types hide, the rule cannot see: a data name cast to a union of literals
 * (`name as keyof typeof TABLE`) is taken as the code's own, and so is a lookup outside the
 * program tsc builds (the few .mjs files).
 *
 * The rule needs the program's types, so it runs with the type check (scripts/typecheck.ts), on
 * the checker tsc builds anyway: the walk costs some 0.1 s, where a program of its own (or a typed
 * ESLint rule) would cost a second type check of the project.
 */
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

export type DataKeyKind = 'index' | 'in' | 'assign' | 'pattern';

export interface DataKeyFinding {
  /** The file, relative to the project's root, with `/` as separator. */
  file: string;
  line: number;
  kind: DataKeyKind;
  /** The expression, on one line, shortened. */
  text: string;
}

const WHY: Record<DataKeyKind, string> = {
  index: 'a string key looked up in a plain object',
  in: "a string key tested with 'in'",
  assign: 'Object.assign from a plain object (its [[Set]] runs the __proto__ setter)',
  pattern: 'a string key destructured from a plain object',
};

/** One finding as a line of the check's output. */
export function formatFinding(f: DataKeyFinding): string {
  return `${f.file}:${f.line}: ${WHY[f.kind]}: ${f.text} (use a Map, Object.create(null) or Object.hasOwn; see scripts/data-keys.ts)`;
}

/** The project's program, as tsc builds it from tsconfig.json. */
export function projectProgram(root: string): ts.Program {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (parsed === undefined) throw new Error(`cannot read ${join(root, 'tsconfig.json')}`);
  return ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    configFileParsingDiagnostics: parsed.errors,
  });
}

/** The files the rule covers: the product's, not the tests' nor the libraries'. */
export function productFile(root: string, file: ts.SourceFile): boolean {
  if (file.isDeclarationFile) return false;
  const rel = relative(root, file.fileName);
  return !rel.startsWith('..') && !rel.split(sep).includes('node_modules') && !rel.startsWith(`tests${sep}`);
}

/** The findings of the rule in `files` of `program`. */
export function dataKeyFindings(
  program: ts.Program,
  root: string,
  files: readonly ts.SourceFile[] = program.getSourceFiles().filter((f) => productFile(root, f)),
): DataKeyFinding[] {
  const checker = program.getTypeChecker();
  const findings: DataKeyFinding[] = [];
  for (const file of files) {
    const report = (node: ts.Node, kind: DataKeyKind): void => {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      const text = node.getText(file).replace(/\s+/g, ' ');
      findings.push({
        file: relative(root, file.fileName).split(sep).join('/'),
        line: line + 1,
        kind,
        text: text.length > 90 ? `${text.slice(0, 87)}...` : text,
      });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isElementAccessExpression(node)) {
        if (
          !ts.isDeleteExpression(node.parent) &&
          riskyLookup(checker, node.expression, node.argumentExpression) &&
          !guarded(node)
        )
          report(node, 'index');
      } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.InKeyword) {
        if (stringKey(checker, node.left) && !nullPrototype(checker, node.right)) report(node, 'in');
      } else if (ts.isCallExpression(node) && isObjectAssign(node)) {
        if (node.arguments.slice(1).some((a) => plainObjectType(checker, checker.getTypeAtLocation(a))))
          report(node, 'assign');
      } else if (
        ts.isBindingElement(node) &&
        node.propertyName !== undefined &&
        ts.isComputedPropertyName(node.propertyName) &&
        ts.isObjectBindingPattern(node.parent)
      ) {
        const source = destructured(node.parent);
        if (
          source !== undefined &&
          !dropsKey(node) &&
          riskyLookup(checker, source, node.propertyName.expression)
        )
          report(node, 'pattern');
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return findings;
}

/** Whether `object[key]` is a lookup the rule flags (before guards). */
function riskyLookup(checker: ts.TypeChecker, object: ts.Expression, key: ts.Expression): boolean {
  if (!stringKey(checker, key)) return false;
  if (!plainObjectType(checker, checker.getTypeAtLocation(object))) return false;
  if (nullPrototype(checker, object)) return false;
  return !ownKeyOf(checker, key, object);
}

/** Whether the key's type includes the non-literal `string` (or is `any`). */
function stringKey(checker: ts.TypeChecker, key: ts.Expression): boolean {
  return stringy(checker.getTypeAtLocation(key));
}

function stringy(type: ts.Type): boolean {
  if (type.flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.Any)) return true;
  if (type.isUnionOrIntersection()) return type.types.some(stringy);
  return false;
}

/** A type whose string keys are answered by an object: a string index signature, or `any`. */
function plainObjectType(checker: ts.TypeChecker, type: ts.Type): boolean {
  if (type.flags & ts.TypeFlags.Any) return true;
  const apparent = checker.getApparentType(type);
  if (apparent.isUnion()) return apparent.types.some((t) => plainObjectType(checker, t));
  return checker
    .getIndexInfosOfType(apparent)
    .some((info) => info.keyType.flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral));
}

function isObjectAssign(call: ts.CallExpression): boolean {
  const callee = call.expression;
  return (
    ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'Object' &&
    callee.name.text === 'assign'
  );
}

/** The expression an object binding pattern destructures, where it is a declaration's. */
function destructured(pattern: ts.ObjectBindingPattern): ts.Expression | undefined {
  const parent = pattern.parent;
  return ts.isVariableDeclaration(parent) ? parent.initializer : undefined;
}

/**
 * `const { [k]: _dropped, ...rest } = o`: the value is discarded (its name starts with `_`, as
 * for the unused-variable lint) and the pattern only takes `k` out of the rest, which holds the
 * own keys of `o` but `k`, whatever `k` is.
 */
function dropsKey(element: ts.BindingElement): boolean {
  const pattern = element.parent as ts.ObjectBindingPattern;
  return (
    ts.isIdentifier(element.name) &&
    element.name.text.startsWith('_') &&
    pattern.elements.some((e) => e.dotDotDotToken !== undefined)
  );
}

function unwrap(node: ts.Expression): ts.Expression {
  let e = node;
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isTypeAssertionExpression(e)
  )
    e = e.expression;
  return e;
}

/**
 * Whether `object` is known to have no prototype: a const or readonly declaration initialised
 * with `Object.create(null)` or with a literal starting `__proto__: null`.
 */
function nullPrototype(checker: ts.TypeChecker, object: ts.Expression): boolean {
  const e = unwrap(object);
  if (!ts.isIdentifier(e) && !ts.isPropertyAccessExpression(e)) return false;
  const symbol = checker.getSymbolAtLocation(ts.isIdentifier(e) ? e : e.name);
  const declaration = symbol?.valueDeclaration;
  if (declaration === undefined) return false;
  let initializer: ts.Expression | undefined;
  if (ts.isVariableDeclaration(declaration)) {
    const list = declaration.parent;
    if (!ts.isVariableDeclarationList(list) || !(list.flags & ts.NodeFlags.Const)) return false;
    initializer = declaration.initializer;
  } else if (ts.isPropertyDeclaration(declaration)) {
    const readonly = ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Readonly;
    if (!readonly) return false;
    initializer = declaration.initializer;
  }
  return initializer !== undefined && madeWithoutPrototype(unwrap(initializer));
}

/** `Object.create(null)`, or an object literal whose first member is `__proto__: null`. */
export function madeWithoutPrototype(e: ts.Expression): boolean {
  if (ts.isCallExpression(e)) {
    const callee = e.expression;
    return (
      ts.isPropertyAccessExpression(callee) &&
      ts.isIdentifier(callee.expression) &&
      callee.expression.text === 'Object' &&
      callee.name.text === 'create' &&
      e.arguments.length === 1 &&
      e.arguments[0]!.kind === ts.SyntaxKind.NullKeyword
    );
  }
  if (!ts.isObjectLiteralExpression(e)) return false;
  const first = e.properties[0];
  return (
    first !== undefined &&
    ts.isPropertyAssignment(first) &&
    (ts.isIdentifier(first.name) || ts.isStringLiteral(first.name)) &&
    first.name.text === '__proto__' &&
    first.initializer.kind === ts.SyntaxKind.NullKeyword
  );
}

const SUBSETS = new Set(['sort', 'toSorted', 'reverse', 'toReversed', 'filter', 'slice']);

/**
 * Whether `key` is an identifier declared by a for...of over `Object.keys(object)` or
 * `Object.entries(object)` (the first element of the pattern) of the same object.
 */
function ownKeyOf(checker: ts.TypeChecker, key: ts.Expression, object: ts.Expression): boolean {
  const k = unwrap(key);
  if (!ts.isIdentifier(k)) return false;
  const declaration = checker.getSymbolAtLocation(k)?.valueDeclaration;
  if (declaration === undefined) return false;
  let variable: ts.Node = declaration;
  if (ts.isBindingElement(declaration)) {
    const pattern = declaration.parent;
    if (!ts.isArrayBindingPattern(pattern) || pattern.elements[0] !== declaration) return false;
    variable = pattern.parent;
  }
  if (!ts.isVariableDeclaration(variable)) return false;
  const loop = variable.parent.parent;
  if (!ts.isForOfStatement(loop)) return false;
  let over = unwrap(loop.expression);
  // A sorted, reversed, filtered or sliced list of the keys holds only keys of the object.
  while (
    ts.isCallExpression(over) &&
    ts.isPropertyAccessExpression(over.expression) &&
    SUBSETS.has(over.expression.name.text)
  )
    over = unwrap(over.expression.expression);
  if (!ts.isCallExpression(over) || over.arguments.length !== 1) return false;
  const callee = over.expression;
  const keysOrEntries =
    ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'Object' &&
    callee.name.text === (ts.isBindingElement(declaration) ? 'entries' : 'keys');
  return keysOrEntries && sameText(over.arguments[0]!, object);
}

function sameText(a: ts.Expression, b: ts.Expression): boolean {
  return unwrap(a).getText() === unwrap(b).getText();
}

/** Whether an `Object.hasOwn(o, k)` of the same `o` and `k` holds where `access` is evaluated. */
function guarded(access: ts.ElementAccessExpression): boolean {
  let child: ts.Node = access;
  for (let node = access.parent; node !== undefined && !ts.isSourceFile(node); node = node.parent) {
    if (ts.isFunctionLike(node)) return false;
    let condition: ts.Expression | undefined;
    if (ts.isIfStatement(node) && node.thenStatement === child) condition = node.expression;
    else if (ts.isConditionalExpression(node) && node.whenTrue === child) condition = node.condition;
    else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken &&
      node.right === child
    )
      condition = node.left;
    if (condition !== undefined && asserts(condition, access)) return true;
    child = node;
  }
  return false;
}

/** Whether `condition` (a conjunction) includes `Object.hasOwn(o, k)` for `access`'s `o[k]`. */
function asserts(condition: ts.Expression, access: ts.ElementAccessExpression): boolean {
  const c = unwrap(condition);
  if (ts.isBinaryExpression(c) && c.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken)
    return asserts(c.left, access) || asserts(c.right, access);
  if (!ts.isCallExpression(c) || c.arguments.length !== 2) return false;
  const callee = c.expression;
  return (
    ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'Object' &&
    callee.name.text === 'hasOwn' &&
    sameText(c.arguments[0]!, access.expression) &&
    sameText(c.arguments[1]!, access.argumentExpression)
  );
}
