/** The route matcher: the operation of spec/openapi.yaml an exchange calls, and its parameters. */
import { expect, test } from '@playwright/test';
import { basePathOf, matchRoute, route } from '../../exchange/route.ts';

const op = (method: string, url: string, base?: string): string | undefined => {
  const m = matchRoute(method, url, base);
  return m?.kind === 'operation' ? m.operation.operationId : m?.kind;
};

test('each of the fourteen operations is found by method and path', () => {
  const cases: [string, string, string][] = [
    ['GET', '/api/v1/counterparties/ACME-1', 'getCounterparty'],
    ['PATCH', '/api/v1/counterparties/ACME-1', 'patchCounterparty'],
    ['POST', '/api/v1/bills', 'ingestBill'],
    ['GET', '/api/v1/bills?status=OPEN&page=0', 'listBills'],
    ['GET', '/api/v1/bills/b-1', 'getBill'],
    ['PATCH', '/api/v1/bills/b-1', 'updateBill'],
    ['POST', '/api/v1/bills/b-1/document', 'uploadBillDocument'],
    ['POST', '/api/v1/mandates', 'createMandate'],
    ['GET', '/api/v1/mandates', 'listMandates'],
    ['GET', '/api/v1/mandates/m-1', 'getMandate'],
    ['DELETE', '/api/v1/mandates/m-1', 'cancelMandate'],
    ['POST', '/api/v1/direct-debit', 'createDirectDebit'],
    ['GET', '/api/v1/direct-debit', 'listDirectDebits'],
    ['GET', '/api/v1/direct-debit/c-1', 'getDirectDebit'],
  ];
  for (const [method, path, id] of cases)
    expect(op(method, `https://x.test${path}`), `${method} ${path}`).toBe(id);
});

test('parameters are decoded; the raw form is kept', () => {
  const m = matchRoute('GET', 'https://x.test/api/v1/counterparties/A%2DB%2Fc%C3%A9');
  expect(m?.kind).toBe('operation');
  if (m?.kind !== 'operation') return;
  expect(m.params.counterpartyReference).toBe('A-B/cé');
  expect(m.rawParams.counterpartyReference).toBe('A%2DB%2Fc%C3%A9');
  // A malformed escape is kept as it came.
  const bad = matchRoute('GET', 'https://x.test/api/v1/counterparties/a%zz');
  expect(bad?.kind === 'operation' && bad.params.counterpartyReference).toBe('a%zz');
});

test('a raw slash in a counterparty reference is a slash match, not an operation', () => {
  const m = matchRoute('PATCH', 'https://x.test/api/v1/counterparties/ab/c%20d');
  expect(m?.kind).toBe('slash');
  if (m?.kind === 'slash') {
    expect(m.operation.operationId).toBe('patchCounterparty');
    expect(m.reference).toBe('ab/c d');
  }
  // The document's rule is about counterparties only.
  expect(matchRoute('GET', 'https://x.test/api/v1/mandates/a/b')).toBeUndefined();
});

test('outside the interface: other paths, unlisted methods, empty segments', () => {
  expect(route('GET', 'https://x.test/health')).toEqual({ route: undefined, inInterface: false });
  expect(route('PUT', 'https://x.test/api/v1/counterparties/ACME')).toEqual({
    route: undefined,
    inInterface: true,
  });
  expect(op('GET', 'https://x.test/api/v1/counterparties/')).toBeUndefined();
  expect(op('GET', 'https://x.test/api/v1/counterparties')).toBeUndefined();
});

test('a base path is honoured; without one, /api/v1/ is found anywhere', () => {
  expect(basePathOf('https://x.test/gateway/')).toBe('/gateway');
  expect(basePathOf('https://x.test')).toBe('');
  expect(op('GET', 'https://x.test/gateway/api/v1/bills', '/gateway')).toBe('listBills');
  expect(op('GET', 'https://x.test/gateway/api/v1/bills')).toBe('listBills');
  // A reference that is itself "api": the base path decides.
  const m = matchRoute('GET', 'https://x.test/api/v1/counterparties/api', '');
  expect(m?.kind === 'operation' && m.params.counterpartyReference).toBe('api');
});
