/**
 * Traffic recorded by a plain client (tests/self/har-recorder.ts: node:http, no code of the suite)
 * judged by `npm run validate` on both sides: each answer against the request it answers (the
 * request model), each PATCH against the reads around it. One session, the same everywhere: a
 * client that reads, updates details, adds an account, sends an empty PATCH, and sends requests
 * without credentials and under another scheme to every read and to a PATCH. Against the five
 * deviations of issue 23 it fails with exactly the requirements they break; against the reference
 * server and the independent implementation it passes with no warning.
 *
 * The command itself judges the recording of the first deviation (exit 1) and of the reference
 * server (exit 0), and writes the record read here; the other recordings are judged in-process by
 * the functions the command calls (cli-fixtures.ts validateInProcess: the same HAR reading,
 * TrafficValidation and record, and the exit status the gate gives), some 1.1 s of CPU less each.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { PROBE_ONLY_REASONS } from '../../engine/validate.ts';
import { ORACLES } from '../../oracles/index.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import {
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
  IndependentServer,
} from '../../servers/independent/server.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  WRITABLE_COUNTERPARTY,
} from '../../servers/reference.ts';
import { spec } from '../../spec/index.ts';
import { REQUIREMENTS, type RequirementId } from '../../spec/requirements.ts';
import {
  nodeTs,
  removeTemporaryDirectories,
  ROOT,
  runNode,
  temporaryDirectory,
  validateInProcess,
} from './cli-fixtures.ts';
import { recordPlainHar, type PlainCall } from './har-recorder.ts';

test.afterAll(() => removeTemporaryDirectories());

/** An account a conforming deployment accepts (the embedded server's first account fixture). */
const NEW_ACCOUNT = {
  accountType: 'BANK_ACCOUNT',
  accountCategory: 'BUSINESS',
  name: 'Recorded Payables',
  country: 'DE',
  currency: 'EUR',
  accountIdentifier: { type: 'IBAN', value: 'DE89370400440532013000' },
};

/** References for the reads of the other operations: well-formed, invented. */
const OTHER_REFERENCES: Readonly<Record<string, string>> = {
  uniqueReferenceIdentifier: 'BILL-0001',
  mandateReference: 'MANDATE-0001',
  collectionReference: 'COLLECTION-0001',
};

/** A client's session, written as a user's script would send it. */
function session(token: string, readable: string, writable: string): PlainCall[] {
  const auth = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const cp = (ref: string) => `/api/v1/counterparties/${ref}`;
  const reads = spec()
    .operations()
    .filter((op) => op.method === 'GET')
    .map((op) =>
      op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'counterpartyReference' ? readable : OTHER_REFERENCES[name]!,
      ),
    );
  return [
    { method: 'GET', path: cp(readable), headers: auth },
    { method: 'GET', path: cp(writable), headers: auth },
    {
      method: 'PATCH',
      path: cp(writable),
      headers: json,
      body: JSON.stringify({ counterpartyDetails: { remarks: 'Recorded by a plain client' } }),
    },
    { method: 'GET', path: cp(writable), headers: auth },
    // New accounts: the earlier ones stay (§4.2 "each item adds an account").
    {
      method: 'PATCH',
      path: cp(writable),
      headers: json,
      body: JSON.stringify({ counterpartyAccounts: [NEW_ACCOUNT] }),
    },
    { method: 'GET', path: cp(writable), headers: auth },
    // An empty patch (§4.2: at least 1 property).
    { method: 'PATCH', path: cp(writable), headers: json, body: '{}' },
    { method: 'GET', path: cp(writable), headers: auth },
    // No credentials, and credentials of another scheme, on every read.
    ...reads.map((path): PlainCall => ({ method: 'GET', path, headers: { Accept: 'application/json' } })),
    ...reads.map((path): PlainCall => ({
      method: 'GET',
      path,
      headers: { Accept: 'application/json', Authorization: 'Basic dXNlcjpwYXNzd29yZA==' },
    })),
    // And a PATCH without credentials, between two reads.
    {
      method: 'PATCH',
      path: cp(writable),
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ counterpartyDetails: { remarks: 'Sent without a token' } }),
    },
    { method: 'GET', path: cp(writable), headers: auth },
  ];
}

interface Validated {
  code: number;
  output: string;
  failed: string[];
  warned: string[];
  record: ConformanceRecord;
}

/**
 * Records the session against the server `start` starts, and validates the file: through the
 * command (`npm run validate`, its exit status and the conformance.json it writes) or in-process.
 */
async function recordAndValidate(
  start: () => Promise<{ base: string; stop: () => Promise<void> }>,
  token: string,
  readable: string,
  writable: string,
  through: 'the command' | 'in-process',
): Promise<Validated> {
  const server = await start();
  let har: string;
  try {
    har = await recordPlainHar(server.base, session(token, readable, writable));
  } finally {
    await server.stop();
  }
  const work = temporaryDirectory('payflow-recorded-');
  const file = join(work, 'recorded.har');
  writeFileSync(file, har);
  let code: number;
  let output: string;
  let record: ConformanceRecord;
  if (through === 'the command') {
    const reports = join(work, 'reports');
    const run = await runNode(nodeTs('bin/validate.ts', file), { CONFORMANCE_REPORTS_DIR: reports }, work);
    ({ code } = run);
    output = run.stdout + run.stderr;
    record = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceRecord;
  } else {
    const v = await validateInProcess([file], {}, work);
    ({ code } = v);
    output = v.line ?? v.summary!;
    record = v.record!;
  }
  expect(recordErrors(record)).toEqual([]);
  const having = (status: string) =>
    record.requirements
      .filter((r) => r.status === status)
      .map((r) => r.id)
      .sort();
  return {
    code,
    output,
    failed: having('failed'),
    warned: having('warned'),
    record,
  };
}

const referenceLike = (create: () => ReferenceServer) => async () => {
  const server = create();
  return { base: await server.start(0), stop: () => server.stop() };
};

const AUTH = {
  failed: ['auth-missing-rejected', 'auth-wrong-token-rejected'],
  warned: ['auth-unauthenticated-401'],
};

/** The five deviations of issue 23, each as a gallery variant, and what validation must report. */
const DEVIATIONS: { variant: string; deviation: string; failed: string[]; warned: string[] }[] = [
  {
    variant: 'get-counterparty-unauthenticated',
    deviation: 'no Authorization answered 200 on a counterparty',
    ...AUTH,
  },
  {
    variant: 'direct-debit-unauthenticated',
    deviation: 'no Authorization answered 200 on direct debit',
    ...AUTH,
  },
  { variant: 'auth-not-enforced', deviation: 'no Authorization answered 200 on every operation', ...AUTH },
  {
    variant: 'patch-empty-body-accepted',
    deviation: 'PATCH {} answered 200',
    failed: ['patch-invalid-rejected'],
    warned: [],
  },
  {
    variant: 'patch-accounts-replaced',
    deviation: 'a PATCH with new accounts after which the earlier accounts are gone',
    failed: ['patch-accounts-appended'],
    warned: [],
  },
];

DEVIATIONS.forEach((d, index) => {
  test(`${d.deviation} (${d.variant}): validate fails with ${[...d.failed, ...d.warned].join(', ')} and nothing else`, async () => {
    const variant = GALLERY.find((v) => v.id === d.variant)!;
    const v = await recordAndValidate(
      referenceLike(() => variant.create()),
      REFERENCE_TOKEN,
      REFERENCE_COUNTERPARTY,
      WRITABLE_COUNTERPARTY,
      index === 0 ? 'the command' : 'in-process',
    );
    expect(v.code, v.output).toBe(1);
    expect(v.failed).toEqual([...d.failed].sort());
    expect(v.warned).toEqual([...d.warned].sort());
    // The evidence names the HAR entry, and for a request-side finding the rule the request broke.
    for (const id of d.failed) {
      const finding = v.record.requirements.find((r) => r.id === id)!.findings[0]!;
      expect(finding.harEntry).toEqual(expect.any(Number));
      if (id !== 'patch-accounts-appended')
        expect(finding.message).toMatch(/credentials-present|credentials-bearer-scheme|patch-body-/);
    }
  });
});

test('the same session against the reference server: exit 0, no warning, the request-side requirements passed', async () => {
  const v = await recordAndValidate(
    referenceLike(() => new ReferenceServer()),
    REFERENCE_TOKEN,
    REFERENCE_COUNTERPARTY,
    WRITABLE_COUNTERPARTY,
    'the command',
  );
  expect(v.code, v.output).toBe(0);
  expect(v.failed).toEqual([]);
  expect(v.warned).toEqual([]);
  const status = (id: string) => v.record.requirements.find((r) => r.id === id)!.status;
  for (const id of [
    'auth-missing-rejected',
    'auth-wrong-token-rejected',
    'auth-unauthenticated-401',
    'patch-invalid-rejected',
    'patch-accounts-appended',
    'patch-rejected-unchanged',
  ])
    expect(`${id}: ${status(id)}`).toBe(`${id}: passed`);
});

test('the same session against the independent implementation: exit 0, no warning', async () => {
  const v = await recordAndValidate(
    async () => {
      const server = new IndependentServer({ addressRequestId: false });
      return { base: await server.start(0), stop: () => server.stop() };
    },
    INDEPENDENT_TOKEN,
    INDEPENDENT_COUNTERPARTY,
    INDEPENDENT_WRITABLE_COUNTERPARTY,
    'in-process',
  );
  expect(v.code, v.output).toBe(0);
  expect(v.failed).toEqual([]);
  expect(v.warned).toEqual([]);
});

test('every requirement no oracle judges is probe-only for a stated reason, and docs/validation.md lists it', () => {
  const judged = new Set<string>(ORACLES.flatMap((o) => o.requirements));
  const readme = readFileSync(join(ROOT, 'docs', 'validation.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('What stays **probe-only**'),
    readme.indexOf('- The HAR is checked'),
  );
  const probeOnly = REQUIREMENTS.map((r) => r.id as RequirementId).filter((id) => !judged.has(id));
  expect(probeOnly.filter((id) => PROBE_ONLY_REASONS[id] === undefined)).toEqual([]);
  expect(probeOnly.filter((id) => !section.includes(`\`${id}\``))).toEqual([]);
  expect(Object.keys(PROBE_ONLY_REASONS).filter((id) => judged.has(id))).toEqual([]);
});
