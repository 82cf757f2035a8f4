/**
 * `npm run conformance` end to end: exit 0 on the reference server, 1 on a faulty one (naming
 * the requirement), 2 with one line on a configuration error, and a read-only run sends only GET.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { GALLERY } from '../../servers/gallery/index.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  WRITABLE_COUNTERPARTY,
} from '../../servers/reference.ts';
import { requirement } from '../../spec/requirements.ts';
import { recordingProxy, runCli, type CliRun } from './cli-fixtures.ts';

/** The CLI in a temporary directory (seed 7, 15 cases per property, no rate limit); `dotenv` is written there as .env. */
function conformance(
  env: Record<string, string | undefined>,
  dotenv?: string,
  args: string[] = [],
  viaTsx = false,
): Promise<CliRun> {
  return runCli(env, {
    args,
    viaTsx,
    ...(dotenv === undefined ? {} : { setup: (work: string) => writeFileSync(join(work, '.env'), dotenv) }),
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

test('exits 0 against the embedded reference server and writes the report', async () => {
  // Started as `npm run conformance` starts it (tsx's command); the other CLI tests use tsx's loader.
  const r = await conformance({}, undefined, [], true);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toContain('seed 7');
  expect(r.stdout).toContain('Conformance PASSED');
  const record = JSON.parse(readFileSync(join(r.reports, 'conformance.json'), 'utf8'));
  expect(record.verdict).toBe('pass');
  expect(record.seed).toBe(7);
  // The embedded server is throwaway: its runs write, so every requirement is judged.
  expect(record.mode).toBe('write');
  const notPassed = (record.requirements as { id: string; status: string }[])
    .filter((v) => v.status !== 'passed')
    .map((v) => `${v.id}: ${v.status}`);
  expect(notPassed).toEqual([]);
});

test('exits 1 against a faulty server and names the broken MUST requirement', async () => {
  const variant = GALLERY.find((v) => v.trips.some((id) => requirement(id).level === 'MUST'))!;
  const server = variant.create();
  const baseURL = await server.start(0);
  try {
    // The probes that judge what the variant breaks, as a user narrowing a failure selects them
    // (--requirement): the same exit status and summary line at a fraction of a whole failing
    // run, where every failed probe costs a new Playwright worker. The whole suite through the
    // CLI is the test above (a pass) and report.spec.ts's strict run against a faulty server.
    const r = await conformance(
      {
        API_BASE_URL: baseURL,
        API_TOKEN: REFERENCE_TOKEN,
        COUNTERPARTY_REF: REFERENCE_COUNTERPARTY,
        WRITABLE_COUNTERPARTY_REF: WRITABLE_COUNTERPARTY,
      },
      undefined,
      variant.trips.flatMap((id) => ['--requirement', id]),
    );
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('Conformance FAILED');
    for (const id of variant.trips) expect(r.stdout).toContain(id);
    expect(r.stdout).not.toContain(REFERENCE_TOKEN);
  } finally {
    await server.stop();
  }
});

const configErrors: [string, Record<string, string>, RegExp][] = [
  ['missing token', { API_BASE_URL: 'http://127.0.0.1:9', COUNTERPARTY_REF: 'abc' }, /API_TOKEN is required/],
  [
    'malformed URL',
    { API_BASE_URL: 'http//nowhere', API_TOKEN: 't', COUNTERPARTY_REF: 'abc' },
    /API_BASE_URL/,
  ],
  ['bad run count', { CONFORMANCE_RUNS: 'many' }, /CONFORMANCE_RUNS/],
  ['unknown argument', {}, /unknown argument/],
];
for (const [name, env, message] of configErrors) {
  test(`exits 2 with one line on a configuration error: ${name}`, async () => {
    const r = name === 'unknown argument' ? await runCli(env, { args: ['--bogus'] }) : await conformance(env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
}

test('exits 2 when the target cannot be reached', async () => {
  const server = createServer();
  const url = await listen(server);
  await new Promise((resolve) => server.close(resolve)); // the port is now closed
  const r = await conformance({ API_BASE_URL: url, API_TOKEN: 't', COUNTERPARTY_REF: 'abc' });
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/cannot reach API_BASE_URL/);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
});

test('reads .env from the working directory; the real environment wins', async () => {
  const dotenv = 'CONFORMANCE_RUNS=not-a-number\n';
  const fromFile = await conformance({ CONFORMANCE_RUNS: undefined }, dotenv);
  expect(fromFile.code).toBe(2);
  expect(fromFile.stderr).toMatch(/CONFORMANCE_RUNS must be a whole number, got 'not-a-number'/);
  const fromEnv = await conformance({ CONFORMANCE_RUNS: 'from-env' }, dotenv);
  expect(fromEnv.code).toBe(2);
  expect(fromEnv.stderr).toMatch(/got 'from-env'/);
});

test('a read-only run sends nothing but GET; a write run does send writes', async () => {
  const reference = new ReferenceServer();
  const upstream = await reference.start(0);
  const proxy = await recordingProxy(upstream);
  try {
    const env = {
      API_BASE_URL: proxy.url,
      API_TOKEN: REFERENCE_TOKEN,
      COUNTERPARTY_REF: REFERENCE_COUNTERPARTY,
    };
    const readOnly = await conformance(env);
    expect(readOnly.code, readOnly.stdout + readOnly.stderr).toBe(0);
    expect([...proxy.methods]).toEqual(['GET']);
    // The PATCH requirements are reported as skipped, with the reason.
    const record = JSON.parse(readFileSync(join(readOnly.reports, 'conformance.json'), 'utf8')) as {
      requirements: { id: string; status: string; reasons: string[] }[];
    };
    const patch = record.requirements.filter((r) => r.id.startsWith('patch-'));
    expect(patch.length).toBeGreaterThan(5);
    for (const r of patch) {
      expect(r.status, r.id).toBe('not-exercised');
      expect(r.reasons.join(' '), r.id).toMatch(/read-only run: set WRITABLE_COUNTERPARTY_REF/);
    }
    proxy.methods.clear();
    // The whole suite read-only, above; writing, the probes that send PATCH, POST and DELETE.
    const writing = await conformance(
      { ...env, WRITABLE_COUNTERPARTY_REF: WRITABLE_COUNTERPARTY },
      undefined,
      ['--probe', 'patch-valid-details', '--probe', 'writes-require-authentication'],
    );
    expect(writing.code, writing.stdout + writing.stderr).toBe(0);
    expect([...proxy.methods].sort()).toEqual(expect.arrayContaining(['GET', 'PATCH', 'POST', 'DELETE']));
  } finally {
    await proxy.close();
    await reference.stop();
  }
});
