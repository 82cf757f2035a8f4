/**
 * The operations registry (spec/operations.ts): the one place per operation. Every operation of
 * spec/openapi.yaml has an entry and every entry names one; content where the method writes;
 * each row quoted word for word from interface.md; and no operationId written as a string
 * anywhere else in the product, so every per-operation list derives from here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from '@playwright/test';
import { spec, type Operation } from '../../spec/index.ts';
import {
  checkRegistry,
  isWrite,
  itemKinds,
  operationIdOf,
  operationIds,
  operationOf,
  OPERATIONS,
  operationsWhere,
  purposeOf,
  registeredOperations,
  RESOURCES,
} from '../../spec/operations.ts';
import { quoteProblems } from './interface-quotes.ts';

const ROOT = join(import.meta.dirname, '..', '..');

test('every operation of openapi.yaml has an entry, and every entry names one', () => {
  const ids = spec()
    .operations()
    .map((o) => o.operationId);
  expect(OPERATIONS.map((e) => e.operationId).sort()).toEqual([...ids].sort());
  expect(registeredOperations().map((o) => o.operationId)).toEqual(ids);
});

test('the check refuses a missing entry, an entry of no operation, content on a read and a write without it', () => {
  const ops = spec().operations();
  const refuses = (o: readonly Operation[], e: typeof OPERATIONS, message: RegExp): void =>
    expect(() => checkRegistry(o, e, RESOURCES)).toThrow(message);
  const payout: Operation = {
    ...ops[0]!,
    operationId: 'createPayoutLink',
    method: 'POST',
    path: '/api/v1/payout-links',
  };
  refuses([...ops, payout], OPERATIONS, /POST \/api\/v1\/payout-links \(createPayoutLink\) has no entry/);
  refuses(
    ops,
    [...OPERATIONS, { ...OPERATIONS[0]!, operationId: 'createPayoutLink' }],
    /createPayoutLink is no operation/,
  );
  refuses(
    ops,
    OPERATIONS.map((e) => (e.operationId === 'getBill' ? { ...e, body: 'json-not-shown' as const } : e)),
    /getBill carries content but does not write/,
  );
  refuses(
    ops,
    OPERATIONS.map((e) => (e.operationId === 'ingestBill' ? { ...e, body: undefined } : e)),
    /ingestBill writes but carries no content/,
  );
  refuses(
    ops,
    OPERATIONS.map((e) => (e.operationId === 'getBill' ? { ...e, resource: 'payout' as never } : e)),
    /acts on payout, which is not listed/,
  );
  expect(() => checkRegistry(ops, OPERATIONS, RESOURCES)).not.toThrow();
});

test("each entry's row is quoted word for word from the section of interface.md it names", () => {
  expect(OPERATIONS.flatMap((e) => quoteProblems(e.operationId, [e.row]))).toEqual([]);
  // The row of a §4.3 operation is its table row, method and path as the document writes them.
  for (const op of operationsWhere({ item: true }))
    expect(op.row.text, op.operationId).toContain(`| ${op.method} | \`${op.path}\` |`);
});

test('asked by meaning: the one operation doing an action to a resource, and the lists by kind', () => {
  expect(operationIdOf('counterparty', 'read')).toBe('getCounterparty');
  expect(operationOf('bill', 'attach').path).toBe('/api/v1/bills/{uniqueReferenceIdentifier}/document');
  expect(() => operationOf('counterparty', 'cancel')).toThrow(/0 operations cancel a counterparty/);
  expect(operationIds({ action: 'list' })).toEqual(['listBills', 'listDirectDebits', 'listMandates']);
  expect(operationIds({ writes: true })).toEqual(
    registeredOperations()
      .filter(isWrite)
      .map((o) => o.operationId)
      .sort(),
  );
  expect(operationIds({ content: false, writes: true })).toEqual(['cancelMandate']);
  expect(itemKinds()).toEqual(['bill', 'mandate', 'collection']);
  expect(purposeOf(operationOf('mandate', 'create'))).toBe('create a SEPA direct-debit mandate');
  expect(purposeOf(operationOf('counterparty', 'read'))).toBe('Returns one counterparty.');
  // Every invented reference keeps the pattern of the parameter it is sent as.
  for (const r of RESOURCES.filter((x) => x.invented !== undefined)) {
    const read = operationOf(r.resource, 'read');
    const schema = read.pathParamSchemas.get(read.pathParams.at(-1)!);
    if (schema) expect(spec().ajv.validate(schema, r.invented), r.resource).toBe(true);
  }
});

/** The product's source files: everything but tests, the spec and what is generated or installed. */
function productFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (['node_modules', 'tests', 'spec', 'dist', 'reports', 'test-results', '.git'].includes(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...productFiles(path));
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(path);
  }
  return out;
}

test('no operationId is written as a string outside the registry: every per-operation list derives from it', () => {
  const ids = OPERATIONS.map((e) => e.operationId);
  const literal = new RegExp(`(['"\`])(${ids.join('|')})\\1`);
  const files = productFiles(ROOT)
    .filter((f) => literal.test(readFileSync(f, 'utf8')))
    .map((f) => relative(ROOT, f))
    .sort();
  // The probes' catalog is generated from what each probe declares (npm run catalogs); the item
  // fixtures' `updateBill` is the name of a field of ITEM_FIXTURES, a user's file, not an operation.
  expect(files).toEqual(['generators/item-fixtures.ts', 'probes/catalog.ts']);
});
