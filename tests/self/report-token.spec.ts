/**
 * The bearer token in the reports, end to end (`npm run conformance` against local servers):
 * a short test token that is also part of the deployment's data (`Acme`, and a counterparty
 * named Acme Ltd) is replaced where it stands as the token and nowhere else, so the data is
 * judged and reported as it is; the same run, its one fault waived, passes the gate with a
 * report that matches its schema (the gate end to end; report-gate.spec.ts has the gate's
 * configuration errors, report.spec.ts strict mode failing it); and a wrong token, answered 401
 * as no token is, stops the run before the suite starts, in one line (exit 2), where the right
 * one passes the same start-up check (bin/preflight.ts, called directly). The hint a run gives
 * when most of its requests were refused (a run without the CLI's start-up check, a 403) is
 * tested on made-up outcomes in report-render.spec.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { preflight } from '../../bin/preflight.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
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
  type CliRun,
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

/** The deployment's one fault, waived: its failure must not fail the gate. */
const WAIVERS = `waivers:
  - requirement: reference-invalid-400
    reason: the gateway admits two-character references; fix planned in PAY-1234
    expires: 2099-12-31
`;

test.describe('a deployment whose test token is a word of its data, its one fault waived', () => {
  // One run serves both tests (in order, in one worker): the reads whose answers carry the name
  // and the echoed token, and the probe of the one fault, under a waiver of it. A failing probe
  // costs Playwright a new worker; a whole run proves no more of either (report.spec.ts runs the
  // whole suite against a server that echoes a long token, strict).
  test.describe.configure({ mode: 'default' });
  let server: AcmeServer;
  let r: CliRun;
  let record: ConformanceRecord;

  test.beforeAll(async () => {
    test.setTimeout(90_000);
    server = new AcmeServer();
    const baseURL = await server.start(0);
    r = await runCli(targetEnv(baseURL, SHORT_TOKEN, false), {
      args: ['--probe', 'known-counterparty', '--probe', 'valid-references', '--probe', 'invalid-references'],
      setup: (work) => writeFileSync(join(work, 'conformance-waivers.yaml'), WAIVERS),
    });
    record = readJson(join(r.reports, 'conformance.json')) as ConformanceRecord;
  });

  test.afterAll(async () => {
    await server?.stop();
  });

  const judged = (status: string): string[] =>
    record.requirements.filter((q) => q.status === status).map((q) => q.id);

  test('a short token that is also data: no false schema failure, the data intact, the token never shown as the token', () => {
    // Only the one fault: Acme Ltd is a valid account holder name, not "$API_TOKEN Ltd".
    expect([...judged('failed'), ...judged('warned')], r.stdout).toEqual([]);
    expect(judged('waived'), r.stdout).toEqual(['reference-invalid-400']);
    expect(record.requirements.find((q) => q.id === 'counterparty-schema')!.status).toBe('passed');
    expect(record.hints).toEqual([]);
    expect(r.stdout).not.toContain('Hint:');
    // The data as the deployment sent it; the echoed token (body, Content-Type) as $API_TOKEN.
    const fault = record.requirements.find((q) => q.id === 'reference-invalid-400')!;
    const received = fault.findings.map((f) => f.received).join('\n');
    expect(received).toContain(
      `Acme Ltd is ${REFERENCE_COUNTERPARTY} (you sent Authorization: Bearer $API_TOKEN)`,
    );
    expect(received).toContain('application/json; charset=utf-8; token=$API_TOKEN');
    for (const f of fault.findings) expect(f.curl).toContain('"Authorization: Bearer $API_TOKEN"');
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
  });

  test('a waived failure passes the gate and the report matches its schema; an echoed token is redacted', () => {
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(recordErrors(record)).toEqual([]);
    // The gate passes. A selection of three probes, whose requirements were all judged: the
    // others are not selected rather than unexercised, so the pass is not qualified
    // (verdict-headline.spec.ts and serve.spec.ts show the qualified pass of a read-only run).
    expect(record.verdict).toBe('pass');
    expect(record.gateReasons).toEqual([]);
    expect(record.waivers.entries.map((w) => [w.requirement, w.status])).toEqual([
      ['reference-invalid-400', 'applied'],
    ]);
    expect(r.stdout).toContain('Conformance PASSED');
    expect(r.stdout).toMatch(/\[WAIV\] MUST reference-invalid-400 .*waived until 2099-12-31/);
    expect(r.stdout).toContain('Waivers (');
    // Every selected MUST was judged, so the verdict is the plain pass, with no qualification.
    expect(record.counts.MUST['not-exercised']).toBe(0);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Verdict: Conformance PASSED');
    // The server sent the token back, in a body and in a header (its Content-Type); the reports
    // show $API_TOKEN (the files and the console are scanned for it by the test above; a long
    // token echoed back, by report.spec.ts).
    const echoed = record.requirements
      .find((q) => q.id === 'reference-invalid-400')!
      .findings.map((f) => f.received)
      .join('\n');
    expect(echoed).toContain('(you sent Authorization: Bearer $API_TOKEN)');
    expect(echoed).toContain('(application/json; charset=utf-8; token=$API_TOKEN)');
  });
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

    // The right token: the same start-up check (bin/preflight.ts, which the CLI ran above) is
    // answered with the counterparty after one request, and lets the run go on. Every run of the
    // self-tests with a valid token then runs past it (the one above in this file).
    seen.length = 0;
    const note = await preflight({
      baseURL,
      token: REFERENCE_TOKEN,
      counterpartyRef: REFERENCE_COUNTERPARTY,
      timeoutMs: 10_000,
    });
    expect(note).toBeUndefined();
    expect(seen).toEqual([`GET ${path} with a token`]);
  } finally {
    await front.stop();
  }
});
