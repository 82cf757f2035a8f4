/**
 * The bearer token in the reports, end to end (`npm run conformance` against local servers):
 * a short test token that is also part of the deployment's data (`Acme`, and a counterparty
 * named Acme Ltd) is replaced where it stands as the token and nowhere else, so the data is
 * judged and reported as it is; and a wrong token, answered 401 as no token is, stops the run
 * before the suite starts, in one line (exit 2). The hint a run gives when most of its requests
 * were refused (a run without the CLI's start-up check, a 403) is tested on made-up outcomes in
 * report-render.spec.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/summary.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  type Counterparty,
  type RequestContext,
} from '../../servers/reference.ts';
import { HostileFront } from '../../servers/gallery/hostile.ts';
import {
  filesBelow,
  readJson,
  removeTemporaryDirectories,
  runCli,
  scannableContents,
  targetEnv,
} from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

/** A test deployment's token that is also a word of its data. */
const SHORT_TOKEN = 'Acme';

/**
 * The deployment of a company called Acme, whose test token is `Acme`: its readable counterparty
 * is Acme Ltd. It is wrong in one way, to put its answers in the report: a two-character
 * reference (invalid) is looked up and answered 404, not 400, with a body that names Acme Ltd and
 * echoes the Authorization header, and a Content-Type and another header that echo the token.
 */
class AcmeServer extends ReferenceServer {
  constructor() {
    super({ token: SHORT_TOKEN });
  }

  protected override seed(): Counterparty[] {
    return super
      .seed()
      .map((cp) =>
        cp.counterpartyReference === REFERENCE_COUNTERPARTY
          ? { ...cp, accountHolderName: 'Acme Ltd', remarks: 'Acme Ltd since 2019' }
          : cp,
      );
  }

  protected override isValidReference(reference: string): boolean {
    return reference.length === 2 ? /^[-_a-zA-Z0-9]+$/.test(reference) : super.isValidReference(reference);
  }

  protected override counterpartyNotFound(ctx: RequestContext): void {
    const auth = ctx.req.headers.authorization ?? 'none';
    this.sendError(
      ctx.res,
      404,
      'COUNTERPARTY_NOT_FOUND',
      `No such counterparty; Acme Ltd is ${REFERENCE_COUNTERPARTY} (you sent Authorization: ${auth})`,
      {
        'Content-Type': `application/json; charset=utf-8; token=${SHORT_TOKEN}`,
        'X-Echo-Authorization': auth,
      },
    );
  }
}

test('a short token that is also data: no false schema failure, the data intact, the token never shown as the token', async () => {
  test.setTimeout(90_000);
  const server = new AcmeServer();
  const baseURL = await server.start(0);
  try {
    // The reads whose answers carry the name and the echoed token, and the probe of the one fault.
    const r = await runCli(targetEnv(baseURL, SHORT_TOKEN, false), {
      args: ['--probe', 'known-counterparty', '--probe', 'valid-references', '--probe', 'invalid-references'],
    });
    const record = readJson(join(r.reports, 'conformance.json')) as ConformanceRecord;
    // Only the one fault: Acme Ltd is a valid account holder name, not "$API_TOKEN Ltd".
    const failed = record.requirements.filter((q) => q.status === 'failed' || q.status === 'warned');
    expect(
      failed.map((q) => q.id),
      r.stdout,
    ).toEqual(['reference-invalid-400']);
    expect(r.code).toBe(1);
    expect(record.requirements.find((q) => q.id === 'counterparty-schema')!.status).toBe('passed');
    expect(record.hints).toEqual([]);
    expect(r.stdout).not.toContain('Hint:');
    // The data as the deployment sent it; the echoed token (body, Content-Type) as $API_TOKEN.
    const received = failed[0]!.findings.map((f) => f.received).join('\n');
    expect(received).toContain(
      `Acme Ltd is ${REFERENCE_COUNTERPARTY} (you sent Authorization: Bearer $API_TOKEN)`,
    );
    expect(received).toContain('application/json; charset=utf-8; token=$API_TOKEN');
    for (const f of failed[0]!.findings) expect(f.curl).toContain('"Authorization: Bearer $API_TOKEN"');
    // Wherever "Acme" appears, in any file of the run or on the console, it is the data "Acme Ltd".
    const files = [...filesBelow(r.reports), ...filesBelow(r.results)];
    const places = [
      ...files.flatMap(scannableContents).map((c) => ({ where: c.where, text: c.bytes.toString('utf8') })),
      { where: 'stdout', text: r.stdout },
      { where: 'stderr', text: r.stderr },
    ];
    const asToken = places.filter((p) => /\bAcme\b/.test(p.text.replace(/Acme Ltd/g, '')));
    expect(asToken.map((p) => p.where)).toEqual([]);
    expect(readFileSync(join(r.reports, 'conformance.html'), 'utf8')).toContain('Acme Ltd is');
  } finally {
    await server.stop();
  }
});

test('a wrong token: the run stops after two requests, exit 2, one line saying the token is not accepted; the right token runs', async () => {
  test.setTimeout(90_000);
  const seen: string[] = [];
  const front = new HostileFront((req) => {
    seen.push(
      `${req.method} ${req.url} ${req.headers.authorization === undefined ? 'without' : 'with'} a token`,
    );
    return 'forward';
  });
  const baseURL = await front.start();
  try {
    const wrong = await runCli(targetEnv(baseURL, 'expired-token-0042', false), {
      args: ['--probe', 'known-counterparty', '--probe', 'reads-require-authentication'],
    });
    expect(wrong.code, wrong.stdout + wrong.stderr).toBe(2);
    const path = `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`;
    expect(seen).toEqual([`GET ${path} with a token`, `GET ${path} without a token`]);
    expect(wrong.stderr.trimEnd().split('\n')).toEqual([
      `conformance: API_TOKEN is not accepted by ${baseURL}: GET ${path} with it was answered 401 with a Bearer challenge, as without a token; ` +
        'the suite stopped after these two requests. Check API_TOKEN (expired, or meant for another deployment). ' +
        'If it is valid, the deployment refuses valid tokens, which does not conform either, but with a token it cannot know to be valid the suite cannot tell the two apart',
    ]);
    // No list of findings, no report: nothing of the suite ran.
    expect(wrong.stdout).not.toContain('FAIL');
    expect(existsSync(join(wrong.reports, 'conformance.json'))).toBe(false);

    seen.length = 0;
    const right = await runCli(targetEnv(baseURL, REFERENCE_TOKEN, false), {
      args: ['--probe', 'known-counterparty', '--probe', 'reads-require-authentication'],
    });
    expect(right.code, right.stdout + right.stderr).toBe(0);
    expect(seen.length).toBeGreaterThan(2);
    const record = readJson(join(right.reports, 'conformance.json')) as ConformanceRecord;
    expect(recordErrors(record)).toEqual([]);
    expect(record.hints).toEqual([]);
  } finally {
    await front.stop();
  }
});
