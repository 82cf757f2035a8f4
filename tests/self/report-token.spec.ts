/**
 * The bearer token in the reports, end to end (`npm run conformance` against local servers):
 * a short test token that is also part of the deployment's data (`Acme`, and a counterparty
 * named Acme Ltd) is replaced where it stands as the token and nowhere else, so the data is
 * judged and reported as it is; and a wrong token, which gets 401 on every request, is named as
 * the likely cause in the console and the reports.
 */
import { readFileSync } from 'node:fs';
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

test('a wrong token: every authenticated request answered 401, and the console and the reports say the token looks wrong', async () => {
  test.setTimeout(90_000);
  const server = new ReferenceServer({ token: REFERENCE_TOKEN });
  const baseURL = await server.start(0);
  try {
    // Probes of every kind of read (the hint counts what they were answered), not the whole suite.
    const r = await runCli(targetEnv(baseURL, 'expired-token-0042', false), {
      args: [
        '--probe',
        'known-counterparty',
        '--probe',
        'invalid-references',
        '--probe',
        'slash-references',
        '--probe',
        'reads-require-authentication',
      ],
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const record = readJson(join(r.reports, 'conformance.json')) as ConformanceRecord;
    expect(recordErrors(record)).toEqual([]);
    expect(record.hints).toHaveLength(1);
    const hint = record.hints[0]!;
    // Every reference the router can route was refused; those holding a raw slash were not routed.
    expect(hint).toMatch(
      /^no request sent with API_TOKEN succeeded, and \d+ of \d+ were answered 401: API_TOKEN looks wrong or expired$/,
    );
    // The console: one line, next to the gate's reasons it explains.
    const lines = r.stdout.split('\n');
    const at = lines.indexOf(`  Hint: ${hint}`);
    expect(at, r.stdout).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {2}Gate: /);
    expect(readFileSync(join(r.reports, 'conformance.html'), 'utf8')).toContain(
      `<p class="hint"><strong>Hint:</strong> ${hint}</p>`,
    );
    expect(readFileSync(join(r.reports, 'junit.xml'), 'utf8')).toContain(
      `<property name="hint" value="${hint}"/>`,
    );
  } finally {
    await server.stop();
  }
});
