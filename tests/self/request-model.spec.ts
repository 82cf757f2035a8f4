/**
 * The request model (requests/): its vectors (requests/vectors/*.json), each case modelled exactly
 * as it says; its catalogue (ids, levels, where, the words each rule rests on, found verbatim in
 * ../shared/interface.md); its enumeration (every rule with a holding and a breaking request,
 * every open point with a request touching it); its equivalences (every rewriting models as its
 * original). The generators are cross-checked against it in request-model-generators.spec.ts.
 */
import { expect, test } from '@playwright/test';
import type { HarEntry } from '../../exchange/har.ts';
import { canonicalJson } from '../../exchange/canonical-json.ts';
import { exchangeFrom } from '../../oracles/vectors/format.ts';
import {
  bodyRuleId,
  brokenRules,
  DETAILS_OR_ACCOUNTS,
  ENUMERATION_OPTIONS,
  equivalents,
  modelRequest,
  OPEN_POINTS,
  openCases,
  openPoints,
  pathOfField,
  requestOfExchange,
  requestOfHarEntry,
  RULES,
  ruleCases,
  type HttpRequest,
  type ModelledRequest,
  type ModelOptions,
} from '../../requests/index.ts';
import { repeatedNames } from '../../requests/json-text.ts';
import { parseMediaType } from '../../requests/media-type.ts';
import { sampleRequest } from '../../requests/samples.ts';
import { siteAt } from '../../requests/schema-sites.ts';
import { loadVectorFiles, requestOf } from '../../requests/vectors/format.ts';
import { spec } from '../../spec/index.ts';
import { quoteProblems } from './interface-quotes.ts';

const BASE = 'https://api.example.test';
const TOKEN = 'Bearer model-test-token';
const RULE_IDS = new Set(RULES.map((r) => r.id));
const POINT_IDS = new Set(OPEN_POINTS.map((p) => p.id));
const OPERATION_IDS = new Set(
  spec()
    .operations()
    .map((o) => o.operationId),
);

/** What a modelled request comes to, for comparisons: the verdict, rules, points, target. */
function summary(m: ModelledRequest) {
  return {
    verdict: m.verdict,
    broken: brokenRules(m),
    open: openPoints(m),
    operation: m.operationId ?? null,
    params: m.params,
    json: m.body.kind === 'json' ? canonicalJson(m.body.json) : m.body.kind,
  };
}

// ------------------------------------------------------------------------------------ vectors

const FILES = loadVectorFiles();

for (const file of FILES) {
  test(`vectors: ${file.family}`, () => {
    const wrong: string[] = [];
    for (const c of file.cases) {
      const named = [...(c.broken ?? []), ...(c.open ?? [])];
      for (const id of named)
        if (!RULE_IDS.has(id) && !POINT_IDS.has(id)) wrong.push(`${c.description}: unknown id ${id}`);
      const m = modelRequest(requestOf(file, c), file.options ?? {});
      const got = summary(m);
      const expected = {
        verdict: c.outside
          ? 'outside'
          : c.valid
            ? 'valid'
            : (c.broken ?? []).length > 0
              ? 'invalid'
              : 'undetermined',
        broken: [...(c.broken ?? [])].sort(),
        open: [...(c.open ?? [])].sort(),
      };
      const said = { verdict: got.verdict, broken: got.broken, open: got.open };
      if (JSON.stringify(said) !== JSON.stringify(expected))
        wrong.push(
          `${c.description}: expected ${JSON.stringify(expected)}, modelled ${JSON.stringify(said)} (${m.broken
            .map((b) => `${b.rule} at ${b.at}: ${b.message}`)
            .join('; ')})`,
        );
      if (c.operation !== undefined && got.operation !== c.operation)
        wrong.push(`${c.description}: operation ${String(got.operation)}, expected ${String(c.operation)}`);
      if (c.params !== undefined && JSON.stringify(got.params) !== JSON.stringify(c.params))
        wrong.push(
          `${c.description}: params ${JSON.stringify(got.params)}, expected ${JSON.stringify(c.params)}`,
        );
    }
    expect(wrong).toEqual([]);
  });
}

test('the vectors break every rule and touch every open point at least once, and each rule holds in some vector', () => {
  const broken = new Set<string>();
  const touched = new Set<string>();
  const holdsFor = new Set<string>();
  for (const file of FILES)
    for (const c of file.cases) {
      c.broken?.forEach((id) => broken.add(id));
      c.open?.forEach((id) => touched.add(id));
      const m = modelRequest(requestOf(file, c), file.options ?? {});
      const ids = new Set(brokenRules(m));
      for (const r of RULES)
        if (m.operationId !== undefined && r.operations.includes(m.operationId) && !ids.has(r.id))
          holdsFor.add(r.id);
    }
  expect(
    RULES.map((r) => r.id).filter((id) => !broken.has(id)),
    'rules no vector breaks',
  ).toEqual([]);
  expect(
    RULES.map((r) => r.id).filter((id) => !holdsFor.has(id)),
    'rules that hold in no vector',
  ).toEqual([]);
  expect(
    OPEN_POINTS.map((p) => p.id).filter((id) => !touched.has(id)),
    'open points no vector touches',
  ).toEqual([]);
});

// ---------------------------------------------------------------------------------- catalogue

test('every rule and open point: a unique kebab-case id, known operations, and words quoted verbatim', () => {
  const problems: string[] = [];
  const ids = [...RULES.map((r) => r.id), ...OPEN_POINTS.map((p) => p.id)];
  expect(
    ids.filter((id, i) => ids.indexOf(id) !== i),
    'ids given twice',
  ).toEqual([]);
  for (const id of ids) if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id)) problems.push(`${id}: not kebab-case`);
  for (const r of RULES) {
    problems.push(...quoteProblems(r.id, r.quotes));
    if (r.operations.length === 0) problems.push(`${r.id}: applies to no operation`);
    for (const op of r.operations)
      if (!OPERATION_IDS.has(op)) problems.push(`${r.id}: unknown operation ${op}`);
    if (r.statement.trim() === '') problems.push(`${r.id}: no statement`);
    if (!['MUST', 'SHOULD'].includes(r.level) || !['required', 'permitted'].includes(r.refusal))
      problems.push(`${r.id}: level ${r.level}, refusal ${r.refusal}`);
    // A rule a deployment must refuse rests on a MUST.
    if (r.refusal === 'required' && r.level !== 'MUST')
      problems.push(`${r.id}: refusal required at SHOULD level`);
    // A rule of the document (not only of an RFC) quotes the document.
    if (
      r.level === 'MUST' &&
      r.refusal === 'required' &&
      !r.quotes.some((q) => q.source.startsWith('interface.md'))
    )
      problems.push(`${r.id}: a refusal the document does not state`);
  }
  for (const p of OPEN_POINTS) {
    problems.push(...quoteProblems(p.id, p.quotes));
    for (const op of p.operations)
      if (!OPERATION_IDS.has(op)) problems.push(`${p.id}: unknown operation ${op}`);
  }
  expect(problems).toEqual([]);
});

test('the quote check catches a reworded quote, a wrong section and an unknown source', () => {
  expect(
    quoteProblems('x', [
      { source: 'interface.md §4.1', text: 'Returns a counterparty.' },
      { source: 'interface.md §7', text: 'Returns one counterparty.' },
      { source: 'the HTTP spec', text: 'Be nice.' },
    ]),
  ).toEqual([
    'x: "Returns a counterparty." is not in interface.md §4.1',
    'x: "Returns one counterparty." is not in interface.md §7',
    'x: the source the HTTP spec',
  ]);
  expect(quoteProblems('y', [{ source: 'interface.md §4', text: 'Returns one counterparty.' }])).toEqual([]);
});

test('the body rules follow the spec: every constraint of PatchCounterpartyRequest has its rule', () => {
  const expected = [
    ['counterpartyDetails.remarks', 'pattern', 'patch-details-remarks-pattern'],
    ['counterpartyDetails.address.postalCode', 'maxLength', 'patch-address-postal-code-length'],
    ['counterpartyAccounts[].name', 'required', 'patch-account-name-required'],
    ['counterpartyAccounts', 'minItems', 'patch-accounts-min-items'],
    ['body', 'minProperties', DETAILS_OR_ACCOUNTS.id],
    ['counterpartyDetails', 'additionalProperties', 'patch-details-permitted-properties'],
    ['counterpartyAccounts[].currency', 'enum', 'patch-account-currency-enum'],
  ] as const;
  for (const [field, keyword, id] of expected)
    expect(bodyRuleId(pathOfField(field), keyword), field).toBe(id);
  expect(bodyRuleId(pathOfField('counterpartyDetails.remarks'), 'enum')).toBeUndefined();
  // Every string site of the schema with a length has a length rule, and so on.
  for (const r of RULES.filter((x) => x.id.startsWith('patch-') && x.where.in === 'body')) {
    const pointer = (r.where as { pointer: string }).pointer;
    const path =
      pointer === ''
        ? []
        : pointer
            .slice(1)
            .split('/')
            .map((p) => (p === '*' ? '[]' : p));
    expect(siteAt(path) ?? siteAt(path.slice(0, -1)), `${r.id} at ${pointer}`).toBeDefined();
  }
});

// -------------------------------------------------------------------------------- enumeration

test('every rule has a holding request (nothing broken) and a breaking one (that rule alone)', () => {
  const cases = ruleCases();
  expect(
    RULES.map((r) => r.id).filter((id) => !cases.some((c) => c.rule === id)),
    'rules without a case',
  ).toEqual([]);
  const wrong: string[] = [];
  for (const c of cases) {
    const holds = modelRequest(c.holds, ENUMERATION_OPTIONS);
    const breaks = modelRequest(c.breaks, ENUMERATION_OPTIONS);
    if (brokenRules(holds).length > 0)
      wrong.push(`${c.rule}: its holding request breaks ${brokenRules(holds).join(', ')}`);
    if (JSON.stringify(brokenRules(breaks)) !== JSON.stringify([c.rule]))
      wrong.push(`${c.rule}: its breaking request breaks [${brokenRules(breaks).join(', ')}]`);
    if (breaks.verdict !== 'invalid') wrong.push(`${c.rule}: breaking, yet ${breaks.verdict}`);
  }
  expect(wrong).toEqual([]);
});

test('every open point has a request that touches it alone, breaking nothing: undetermined', () => {
  const cases = openCases();
  expect(OPEN_POINTS.map((p) => p.id).filter((id) => !cases.some((c) => c.point === id))).toEqual([]);
  for (const c of cases) {
    const m = modelRequest(c.request, ENUMERATION_OPTIONS);
    expect({ point: c.point, ...summary(m) }).toMatchObject({
      point: c.point,
      verdict: 'undetermined',
      broken: [],
      open: [c.point],
    });
  }
});

test('every operation has a sample request: valid, or undetermined only where its payload is not shown', () => {
  for (const op of spec().operations()) {
    const m = modelRequest(sampleRequest(op.operationId), ENUMERATION_OPTIONS);
    expect({ op: op.operationId, ...summary(m) }).toMatchObject({
      op: op.operationId,
      operation: op.operationId,
      broken: [],
      ...(m.verdict === 'valid' ? {} : { verdict: 'undetermined', open: ['body-payload-not-shown'] }),
    });
  }
});

// -------------------------------------------------------------------------------- equivalence

test('every rewriting HTTP and JSON call equivalent models as the request it rewrites', () => {
  const inputs: [HttpRequest, ModelOptions][] = [
    ...FILES.flatMap((f) =>
      f.cases.map((c) => [requestOf(f, c), f.options ?? {}] as [HttpRequest, ModelOptions]),
    ),
    ...ruleCases().flatMap((c) =>
      [c.holds, c.breaks].map((r) => [r, ENUMERATION_OPTIONS] as [HttpRequest, ModelOptions]),
    ),
  ];
  const kinds = new Set<string>();
  const wrong: string[] = [];
  for (const [request, options] of inputs) {
    const original = JSON.stringify(summary(modelRequest(request, options)));
    for (const r of equivalents(request, options)) {
      kinds.add(r.kind);
      if (r.framing === undefined && JSON.stringify(r.request) === JSON.stringify(request))
        wrong.push(`${r.kind}: rewrites nothing in ${request.method} ${request.url}`);
      const rewritten = JSON.stringify(summary(modelRequest(r.request, options)));
      if (rewritten !== original)
        wrong.push(`${r.kind} of ${request.method} ${request.url}: ${original} became ${rewritten}`);
    }
  }
  expect(wrong.slice(0, 10)).toEqual([]);
  expect([...kinds].sort()).toEqual([
    'bearer-spaces',
    'framing',
    'header-name-case',
    'header-value-whitespace',
    'json-escapes',
    'json-key-order',
    'json-number-form',
    'json-whitespace',
    'media-type-case',
    'media-type-charset',
    'media-type-parameters',
    'path-percent-encoding',
    'percent-hex-case',
    'query-order',
    'query-percent-encoding',
    'scheme-case',
  ]);
});

test('a rewriting says its basis and level; the SHOULD ones name the requirement that asks them', () => {
  const request: HttpRequest = {
    method: 'GET',
    url: `${BASE}/api/v1/bills?status=OPEN&page=0`,
    headers: { Authorization: TOKEN },
  };
  const all = equivalents(request);
  expect(all.find((r) => r.kind === 'scheme-case')).toMatchObject({
    level: 'SHOULD',
    requirement: 'auth-scheme-case-insensitive',
  });
  expect(all.find((r) => r.kind === 'header-name-case')).toMatchObject({
    level: 'MUST',
    basis: 'RFC 9110 §5.1',
  });
  expect(all.find((r) => r.kind === 'query-order')?.request.url).toBe(
    `${BASE}/api/v1/bills?page=0&status=OPEN`,
  );
  const patch = equivalents({
    method: 'PATCH',
    url: `${BASE}/api/v1/counterparties/ACME-0001`,
    headers: { Authorization: TOKEN, 'Content-Type': 'application/json' },
    body: '{"counterpartyDetails":{"remarks":"A/B"}}',
  });
  expect(patch.find((r) => r.kind === 'json-escapes')?.request.body).toBe(
    '{"\\u0063\\u006f\\u0075\\u006e\\u0074\\u0065\\u0072\\u0070\\u0061\\u0072\\u0074\\u0079\\u0044\\u0065\\u0074\\u0061\\u0069\\u006c\\u0073":{"\\u0072\\u0065\\u006d\\u0061\\u0072\\u006b\\u0073":"\\u0041\\/\\u0042"}}',
  );
  expect(patch.find((r) => r.kind === 'path-percent-encoding')?.request.url).toBe(
    `${BASE}/api/v1/counterparties/%41%43%4D%45%2D%30%30%30%31`,
  );
  expect(patch.find((r) => r.kind === 'framing')).toMatchObject({
    framing: 'chunked',
    basis: 'RFC 9112 §6.1',
  });
});

// ------------------------------------------------------------------------------- the machinery

test('a HAR entry keeps its repeated fields; an Exchange gives its request as the log keeps it', () => {
  const entry = {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: `${BASE}/api/v1/counterparties/ACME-0001`,
      httpVersion: 'HTTP/2',
      headers: [
        { name: ':authority', value: 'api.example.test' },
        { name: 'authorization', value: TOKEN },
        { name: 'Authorization', value: TOKEN },
      ],
    },
    response: { status: 200, statusText: 'OK', headers: [], content: { size: 0, mimeType: '' } },
  } as unknown as HarEntry;
  expect(brokenRules(modelRequest(requestOfHarEntry(entry)))).toEqual(['header-not-repeated']);
  // An Exchange joins repeated fields into one line, as the log keeps them: the joined value
  // is no single credential, which the model says instead.
  const logged = exchangeFrom({
    request: { method: 'GET', url: entry.request.url, headers: { Authorization: `${TOKEN}, ${TOKEN}` } },
    status: 200,
  });
  expect(brokenRules(modelRequest(requestOfExchange(logged)))).toEqual(['credentials-bearer-token-syntax']);
});

test('modelling is pure: the same request gives the same answer, and the request is not touched', () => {
  const deepFreeze = <T>(o: T): T => {
    if (o !== null && typeof o === 'object' && !ArrayBuffer.isView(o)) {
      Object.values(o).forEach(deepFreeze);
      Object.freeze(o);
    }
    return o;
  };
  for (const c of ruleCases()) {
    const request = deepFreeze(structuredClone(c.breaks));
    const a = modelRequest(request, ENUMERATION_OPTIONS);
    const b = modelRequest(request, ENUMERATION_OPTIONS);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  }
});

test('media types are read as RFC 9110 writes them', () => {
  expect(parseMediaType('Application/JSON ; Charset="UTF-8" ;; x=y')).toEqual({
    essence: 'application/json',
    type: 'application',
    subtype: 'json',
    parameters: [
      ['charset', 'UTF-8'],
      ['x', 'y'],
    ],
  });
  expect(parseMediaType('text/plain; q="a\\"b"')?.parameters).toEqual([['q', 'a"b']]);
  expect(parseMediaType('application/json; charset')?.problem).toContain('not name=value');
  expect(parseMediaType('application/json garbage')?.problem).toContain('unexpected');
  expect(parseMediaType('json')).toBeUndefined();
});

test('repeated names are found at every depth, after unescaping, and only within one object', () => {
  expect(repeatedNames('{"a":{"b":1,"\\u0062":2},"c":[{"d":1},{"d":1,"d":2}],"e":{"b":1}}')).toEqual([
    '/a/b',
    '/c/1/d',
  ]);
  expect(repeatedNames('{"a":"{\\"a\\":1,\\"a\\":2}"}')).toEqual([]);
});
