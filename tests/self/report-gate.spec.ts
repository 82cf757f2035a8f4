/**
 * The gate end to end: a failure under an active waiver passes the gate (the report of a
 * passing target matches the schema too), a token the server echoes back is redacted from the
 * reports and the console, and a malformed waiver file, a missing one or a bad
 * CONFORMANCE_STRICT stops the CLI with exit 2 and one line before any request is sent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/summary.ts';
import {
  readJson,
  removeTemporaryDirectories,
  runCli,
  SECRET_TOKEN,
  ShowcaseServer,
  targetEnv,
} from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

const byStatus = (r: ConformanceRecord, status: string): string[] =>
  r.requirements
    .filter((v) => v.status === status)
    .map((v) => v.id)
    .sort();

test('a waived failure passes the gate and the report matches its schema; an echoed token is redacted', async () => {
  // This server echoes the Authorization header back in its 404 bodies.
  const echoing = new ShowcaseServer(SECRET_TOKEN, true);
  const url = await echoing.start(0);
  const waivers = `waivers:
  - requirement: reference-invalid-400
    reason: known
    expires: 2099-12-31
  - requirement: timestamp-format
    reason: known
    expires: 2099-12-31
`;
  const setup = (work: string): void => writeFileSync(join(work, 'conformance-waivers.yaml'), waivers);
  try {
    // The probes that judge the three requirements the server breaks (--requirement), which
    // also send the unknown references it answers 404 with the token: a failing probe costs a
    // new Playwright worker, and a whole run against this server proves no more of the gate
    // (report.spec.ts runs the whole suite against it, strict).
    const lenient = await runCli(targetEnv(url, SECRET_TOKEN, false), {
      setup,
      args: ['reference-invalid-400', 'timestamp-format', 'sunset-document-format'].flatMap((id) => [
        '--requirement',
        id,
      ]),
    });
    expect(lenient.code, lenient.stdout + lenient.stderr).toBe(0);
    const passing = readJson(join(lenient.reports, 'conformance.json')) as ConformanceRecord;
    expect(recordErrors(passing)).toEqual([]);
    // The gate passes. A selection of three requirements, all judged: the write requirements are
    // not selected rather than unexercised, so the pass is not qualified (verdict-headline.spec.ts
    // and serve.spec.ts show the qualified pass of a read-only run).
    expect(passing.verdict).toBe('pass');
    expect(byStatus(passing, 'waived')).toEqual(['reference-invalid-400', 'timestamp-format']);
    expect(byStatus(passing, 'warned')).toEqual(['sunset-document-format']);
    expect(passing.gateReasons).toEqual([]);
    expect(lenient.stdout).toContain('Conformance PASSED');
    // Every selected MUST was judged, so the verdict is the plain pass, with no qualification.
    expect(passing.counts.MUST['not-exercised']).toBe(0);
    expect(lenient.stdout.trimEnd().split('\n').at(-1)).toBe('Verdict: Conformance PASSED');
    expect(lenient.stdout).toContain('Waivers (');

    // The server sent the token back; the reports and the console show $API_TOKEN instead.
    const received = JSON.stringify(passing.requirements.map((r) => r.findings.map((f) => f.received)));
    expect(received).toContain('you sent Authorization: Bearer $API_TOKEN');
    for (const name of ['conformance.json', 'conformance.html', 'junit.xml'])
      expect(readFileSync(join(lenient.reports, name), 'utf8')).not.toContain(SECRET_TOKEN);
    expect(lenient.stdout + lenient.stderr).not.toContain(SECRET_TOKEN);
  } finally {
    await echoing.stop();
  }
});

test('a malformed waiver file, a missing one, or a bad CONFORMANCE_STRICT: exit 2, one line, no request sent', async () => {
  let requests = 0;
  const counting = createServer((_req, res) => {
    requests++;
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
  const address = counting.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const env = targetEnv(`http://127.0.0.1:${address.port}`, SECRET_TOKEN, false);
  try {
    const [malformed, missing, strict] = await Promise.all([
      runCli(env, {
        setup: (work) =>
          writeFileSync(
            join(work, 'conformance-waivers.yaml'),
            'waivers:\n  - requirement: timestamp-format\n    reason: known\n    expires: next week\n',
          ),
      }),
      runCli({ ...env, CONFORMANCE_WAIVERS: 'ci/waivers.yaml' }),
      runCli({ ...env, CONFORMANCE_STRICT: 'maybe' }),
    ]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toBe(
      "conformance: waiver file conformance-waivers.yaml, line 4: expires must be a date YYYY-MM-DD, got 'next week' (waiver of timestamp-format)\n",
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^conformance: CONFORMANCE_WAIVERS names ci\/waivers.yaml, which does not exist/,
    );
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toBe(
      "conformance: CONFORMANCE_STRICT must be 1 or 0 (or true/false), got 'maybe'\n",
    );
    expect(requests).toBe(0);
  } finally {
    await new Promise((resolve) => counting.close(resolve));
  }
});
