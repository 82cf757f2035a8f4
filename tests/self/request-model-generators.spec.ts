/**
 * The cross-check that is the point of one request model: every value the generators call valid
 * is a valid request to the model, and every value they build to break one rule breaks exactly
 * that rule, in the model's ids (generators/ label a field and a JSON Schema keyword; the model
 * names the rule). PATCH bodies (sampled and the boundary and finite-class lists, with the
 * default and a pinned account fixture), counterparty references, bill queries, item references
 * and the malformed bodies of the other writes.
 */
import { expect, test } from '@playwright/test';
import fc from 'fast-check';
import { counterpartyPath, fillPath, rawSlashCounterpartyPath } from '../../exchange/paths.ts';
import { DEFAULT_ACCOUNT_FIXTURE, type AccountFixture } from '../../generators/account-fixture.ts';
import {
  invalidReference,
  invalidReferenceExamples,
  slashReferenceExamples,
  validReference,
  validReferenceExamples,
} from '../../generators/counterparty-reference.ts';
import { finiteClassCases } from '../../generators/finite-classes.ts';
import type { Labelled } from '../../generators/labelled.ts';
import {
  badBody,
  badBodyExamples,
  billFilterExamples,
  billFilterQuery,
  invalidItemReference,
  invalidItemReferenceExamples,
  ITEM_RESOURCES,
  paginationExamples,
  paginationQuery,
  queryString,
  unknownItemReferenceExamples,
  type RawBody,
} from '../../generators/other-operations.ts';
import { ACCOUNT_REQUIRED, BANK_ACCOUNT_REQUIRED } from '../../generators/patch-accounts.ts';
import {
  invalidPatchBody,
  invalidPatchBodyExamples,
  MALFORMED_JSON,
  validAccountsBody,
  validDetailsBody,
  validDetailsBodyExamples,
} from '../../generators/patch-body.ts';
import { accountPairBodies } from '../../generators/account-pairs.ts';
import { detailsPairBodies } from '../../generators/details-pairs.ts';
import { accountPairOptions } from '../../probes/valid-pairs.ts';
import {
  bodyRuleId,
  brokenRules,
  DETAILS_OR_ACCOUNTS,
  modelRequest,
  openPoints,
  pathOfField,
  type HttpRequest,
  type ModelOptions,
} from '../../requests/index.ts';
import { siteAt } from '../../requests/schema-sites.ts';
import { spec } from '../../spec/index.ts';

/** The covering arrays' rows, as the valid-PATCH probes send them (probes/valid-pairs.ts). */
const pairBodies = (fixture: AccountFixture) => [
  ...detailsPairBodies(),
  ...accountPairBodies(accountPairOptions([fixture])),
];

const SEED = 20261122;
const BASE = 'https://api.example.test';
const TOKEN = 'Bearer model-test-token';

const PINNED: AccountFixture = {
  accountIdentifier: { scheme: 'IBAN', number: 'NL91ABNA0417164300' },
  country: 'NL',
  currency: 'EUR',
};

function patch(body: unknown, raw = false): HttpRequest {
  return {
    method: 'PATCH',
    url: `${BASE}${counterpartyPath('ACME-0001')}`,
    headers: { Authorization: TOKEN, 'Content-Type': 'application/json' },
    body: raw ? String(body) : JSON.stringify(body),
  };
}

/** Every value of a body at a site path, any item. */
function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return [value];
  const [head, ...rest] = path;
  if (head === '[]') return Array.isArray(value) ? value.flatMap((v) => valuesAt(v, rest)) : [];
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !(head! in value)) return [];
  return valuesAt((value as Record<string, unknown>)[head!], rest);
}

/**
 * The rules a generator's labelled value must break, in the model's ids: the one it names, and
 * what the document makes of it besides. A value of minimum length 0 whose pattern wants one
 * character breaks the pattern too (the generators say so: "the pattern's + rejects it too"); a
 * body holding only an unknown property holds neither part either (§7).
 */
function expectedRules(l: Labelled<unknown>): string[] {
  const { field, keyword } = l.rule;
  if (keyword === MALFORMED_JSON)
    return [String(l.value).trim() === '' ? 'body-required' : 'body-json-well-formed'];
  const path = pathOfField(field);
  const name = path[path.length - 1];
  if (field === 'counterpartyDetails.counterpartyReference')
    return ['patch-details-counterparty-reference-immutable'];
  if (field === 'counterpartyDetails.createdBy') return ['patch-details-created-by-not-writable'];
  if (
    keyword === 'required' &&
    name &&
    BANK_ACCOUNT_REQUIRED.includes(name) &&
    !ACCOUNT_REQUIRED.includes(name)
  )
    return ['patch-account-country-required-for-bank-account'];
  const id = bodyRuleId(path, keyword);
  if (id === undefined) throw new Error(`no rule for ${field} ${keyword}`);
  const out = [id];
  const body = l.value as Record<string, unknown>;
  if (
    keyword === 'additionalProperties' &&
    path.length === 0 &&
    !('counterpartyDetails' in body) &&
    !('counterpartyAccounts' in body)
  )
    out.push(DETAILS_OR_ACCOUNTS.id);
  if (keyword === 'minLength') {
    const node = siteAt(path)?.node;
    const re = node?.pattern === undefined ? undefined : new RegExp(node.pattern, 'u');
    if (re && valuesAt(l.value, path).some((v) => typeof v === 'string' && !re.test(v)))
      out.push(bodyRuleId(path, 'pattern')!);
  }
  return out.sort();
}

/** The generators' sampled values at `seed`, `scale` times the counts a single seed draws. */
interface Draw {
  seed: number;
  /** How many values each generator draws, as a share of the full counts (1: 200 valid bodies, 1000 invalid). */
  scale: number;
}

const runsOf = (draw: Draw, full: number): number => Math.max(1, Math.round(full * draw.scale));

/** The valid bodies of the generators that the model does not call valid (with `fixture` vouched for). */
function wrongValidBodies(fixture: AccountFixture, draw: Draw, examples = true): string[] {
  const options: ModelOptions = { knownAccounts: [fixture] };
  const bodies = [
    ...fc.sample(validDetailsBody(), { seed: draw.seed, numRuns: runsOf(draw, 200) }),
    ...fc.sample(validAccountsBody(fixture), { seed: draw.seed, numRuns: runsOf(draw, 200) }),
    ...(examples ? [...validDetailsBodyExamples(), ...pairBodies(fixture)] : []),
  ];
  return bodies.flatMap((b) => {
    const m = modelRequest(patch(b.value), options);
    return m.verdict === 'valid'
      ? []
      : [`${m.verdict} ${brokenRules(m)} ${openPoints(m)}: ${JSON.stringify(b.value).slice(0, 160)}`];
  });
}

/** The invalid bodies of the generators that do not break exactly the rule they claim. */
function wrongInvalidBodies(fixture: AccountFixture, draw: Draw, examples = true): string[] {
  const options: ModelOptions = { knownAccounts: [fixture] };
  const labelled = [
    ...fc.sample(invalidPatchBody(fixture), { seed: draw.seed, numRuns: runsOf(draw, 1000) }),
    ...(examples ? [...invalidPatchBodyExamples(fixture), ...finiteClassCases(fixture)] : []),
  ];
  return labelled.flatMap((l) => {
    let expected: string[];
    let modelled: string[];
    try {
      const m = modelRequest(patch(l.value, l.rule.keyword === MALFORMED_JSON), options);
      expected = expectedRules(l);
      modelled = brokenRules(m);
    } catch (error) {
      return [
        `${l.rule.field} ${l.rule.keyword}: threw ${(error as Error).message}: ${JSON.stringify(l.value).slice(0, 160)}`,
      ];
    }
    return JSON.stringify(modelled) === JSON.stringify(expected)
      ? []
      : [
          `${l.rule.field} ${l.rule.keyword} (${l.rule.description}): expected ${expected}, modelled ${modelled}`,
        ];
  });
}

/** References the generators call valid that are not, and invalid ones that break something else. */
function wrongReferences(draw: Draw, examples = true): string[] {
  const get = (path: string): HttpRequest => ({
    method: 'GET',
    url: `${BASE}${path}`,
    headers: { Authorization: TOKEN },
  });
  const family = (keyword: string): string => (keyword === 'pattern' ? 'pattern' : 'length');
  const wrong: string[] = [];
  for (const r of [
    ...(examples ? validReferenceExamples() : []),
    ...fc.sample(validReference(), { seed: draw.seed, numRuns: runsOf(draw, 200) }),
  ]) {
    const m = modelRequest(get(counterpartyPath(r.value)));
    if (m.verdict !== 'valid' || m.params.counterpartyReference !== r.value)
      wrong.push(`valid ${JSON.stringify(r.value)}: ${m.verdict}`);
  }
  for (const r of [
    ...(examples ? invalidReferenceExamples() : []),
    ...fc.sample(invalidReference(), { seed: draw.seed, numRuns: runsOf(draw, 300) }),
  ]) {
    const got = brokenRules(modelRequest(get(counterpartyPath(r.value))));
    if (JSON.stringify(got) !== JSON.stringify([`path-counterparty-reference-${family(r.rule.keyword)}`]))
      wrong.push(`${r.rule.description} ${JSON.stringify(r.value.slice(0, 20))}: ${got}`);
  }
  if (examples)
    for (const r of slashReferenceExamples()) {
      const m = modelRequest(get(rawSlashCounterpartyPath(r.value)));
      if (JSON.stringify(brokenRules(m)) !== '["path-counterparty-reference-no-slash"]')
        wrong.push(`slash ${r.value}: ${brokenRules(m)}`);
    }
  return wrong;
}

/** Queries, item references and bodies of the other operations that model otherwise than they claim. */
function wrongOtherOperations(draw: Draw, examples = true): string[] {
  const get = (url: string): HttpRequest => ({ method: 'GET', url, headers: { Authorization: TOKEN } });
  const wrong: string[] = [];
  const queries = [
    ...(examples ? [...billFilterExamples('ACME-0001'), ...paginationExamples()] : []),
    ...fc.sample(billFilterQuery('ACME-0001'), { seed: draw.seed, numRuns: runsOf(draw, 100) }),
    ...fc.sample(paginationQuery(), { seed: draw.seed, numRuns: runsOf(draw, 100) }),
  ];
  for (const q of queries) {
    const m = modelRequest(get(`${BASE}/api/v1/bills${queryString(q.value)}`));
    if (m.verdict !== 'valid')
      wrong.push(`query ${JSON.stringify(q.value)}: ${m.verdict} ${brokenRules(m)} ${openPoints(m)}`);
  }
  for (const resource of ITEM_RESOURCES) {
    const op = spec()
      .operations()
      .find((o) => o.operationId === resource.operationId)!;
    const url = (ref: string) => `${BASE}${fillPath(op.path, { [resource.param]: ref })}`;
    for (const r of unknownItemReferenceExamples(resource, draw.seed)) {
      const m = modelRequest(get(url(r.value)));
      if (m.verdict !== 'valid') wrong.push(`${resource.kind} ${r.value}: ${m.verdict}`);
    }
    if (resource.schema === undefined) continue;
    const rule = `path-${resource.param.replace(/([A-Z])/g, '-$1').toLowerCase()}-pattern`;
    for (const r of [
      ...(examples ? invalidItemReferenceExamples(resource) : []),
      ...fc.sample(invalidItemReference(resource), { seed: draw.seed, numRuns: runsOf(draw, 100) }),
    ]) {
      const got = brokenRules(modelRequest(get(url(r.value))));
      if (JSON.stringify(got) !== JSON.stringify([rule]))
        wrong.push(`${resource.kind} ${JSON.stringify(r.value.slice(0, 30))}: ${got}`);
    }
  }
  const writes = spec()
    .operations()
    .filter((o) => ['POST', 'PATCH'].includes(o.method) && o.operationId !== 'patchCounterparty');
  const bodies: Labelled<RawBody>[] = [
    ...(examples ? badBodyExamples() : []),
    ...fc.sample(badBody(), { seed: draw.seed, numRuns: runsOf(draw, 200) }),
  ];
  for (const op of writes) {
    const document = op.operationId === 'uploadBillDocument';
    for (const b of bodies) {
      const json = b.value.contentType === 'application/json';
      const expected =
        b.rule.keyword === 'required'
          ? ['body-required']
          : b.rule.keyword === 'type'
            ? ['body-json-structured']
            : json
              ? ['body-json-well-formed']
              : document
                ? ['body-document-media-type']
                : ['body-json-well-formed', 'header-content-type-json'];
      const m = modelRequest({
        method: op.method,
        url: `${BASE}${fillPath(op.path, { uniqueReferenceIdentifier: 'BILL-1' })}`,
        headers: { Authorization: TOKEN, 'Content-Type': b.value.contentType },
        body: b.value.text,
      });
      if (JSON.stringify(brokenRules(m)) !== JSON.stringify(expected))
        wrong.push(
          `${op.operationId} ${b.rule.description.slice(0, 40)}: expected ${expected}, modelled ${brokenRules(m)}`,
        );
    }
  }
  return wrong;
}

const FULL: Draw = { seed: SEED, scale: 1 };
const FIXTURES = [
  ['the default fixture', DEFAULT_ACCOUNT_FIXTURE],
  ['a pinned fixture', PINNED],
] as const;

for (const [name, fixture] of FIXTURES) {
  test(`every valid body of the generators is a valid request (${name})`, () => {
    expect(wrongValidBodies(fixture, FULL)).toEqual([]);
  });

  test(`every invalid body of the generators breaks exactly the rule it claims (${name})`, () => {
    expect(wrongInvalidBodies(fixture, FULL).slice(0, 10)).toEqual([]);
  });
}

test('references: the valid ones are valid, the invalid ones break their length or pattern, a slash routes', () => {
  expect(wrongReferences(FULL)).toEqual([]);
});

test('the other operations: documented queries and invented references are valid, bad references and bodies break what they claim', () => {
  expect(wrongOtherOperations(FULL).slice(0, 10)).toEqual([]);
});

/**
 * The same cross-checks over many seeds, a few values each: a value one seed in a hundred draws
 * (a generated property named `constructor` stopped a run on a conforming server, 1 seed in 100
 * of `npm run sweep`) is drawn here on every npm test. The seeds are fixed (a verdict never
 * depends on the day), spread over the 31 bits a run's seed has; `npm run sweep` draws fresh ones
 * against whole runs.
 */
test.describe('over many seeds', () => {
  const SEEDS = fc.sample(fc.integer({ min: 0, max: 0x7fffffff }), { seed: SEED, numRuns: 100 });
  const SWEEP = (seed: number): Draw => ({ seed, scale: 0.05 });
  const collect = (check: (draw: Draw) => string[]): string[] =>
    SEEDS.flatMap((seed) => check(SWEEP(seed)).map((w) => `seed ${seed}: ${w}`)).slice(0, 10);

  for (const [name, fixture] of FIXTURES) {
    test(`valid and invalid PATCH bodies (${name})`, () => {
      expect(collect((d) => wrongValidBodies(fixture, d, false))).toEqual([]);
      expect(collect((d) => wrongInvalidBodies(fixture, d, false))).toEqual([]);
    });
  }

  test('references and the other operations', () => {
    expect(collect((d) => wrongReferences(d, false))).toEqual([]);
    expect(collect((d) => wrongOtherOperations(d, false))).toEqual([]);
  });
});
