/**
 * Extra request headers (config/headers.ts): CONFORMANCE_HEADER_*, CONFORMANCE_SECRET_HEADER_*
 * and --header reach every request the suite sends, and a secret one's value reaches no report,
 * curl command or console line, even when the target echoes it.
 *
 * The parsing and the client are tested in this process; one run through the CLI, of one probe
 * (the credential cases of every read), proves that the headers reach every request of the CLI's
 * start-up check and of its Playwright workers, and that the echoed key reaches no output.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import { parseExtraHeaders } from '../../config/headers.ts';
import { curlCommand } from '../../exchange/curl.ts';
import { ExchangeLog } from '../../exchange/log.ts';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { ReferenceServer, REFERENCE_TOKEN } from '../../servers/reference.ts';
import { HttpClient } from '../../transport/client.ts';
import { TargetSession } from '../../transport/session.ts';
import {
  filesBelow,
  removeTemporaryDirectories,
  runCli,
  scannableContents,
  targetEnv,
} from './cli-fixtures.ts';
import { forward } from '../../servers/forward.ts';

const KEY = 'gw-key-7Hq2Lx9Vb4Nc';

test.afterAll(removeTemporaryDirectories);

test.describe('parsing', () => {
  test('names come from the variable, - written as _; flags win; empty gives none', () => {
    const headers = parseExtraHeaders(
      { CONFORMANCE_HEADER_X_TENANT: 'acme', CONFORMANCE_HEADER_X_EMPTY: '', OTHER: 'x' },
      ['X-Region: eu-west', 'X-Tenant: other'],
    );
    expect(headers.map((h) => [h.name, h.value, h.secret])).toEqual([
      ['X-Tenant', 'other', false],
      ['X-Region', 'eu-west', false],
    ]);
  });

  test('secret by its variable, or by a name that says it is a credential', () => {
    const headers = parseExtraHeaders({
      CONFORMANCE_SECRET_HEADER_X_GATEWAY: 'g',
      CONFORMANCE_HEADER_X_API_KEY: 'k',
      CONFORMANCE_HEADER_X_SESSION_ID: 's',
    });
    expect(headers.map((h) => [h.name, h.secret, h.variable])).toEqual([
      ['X-Api-Key', true, 'CONFORMANCE_HEADER_X_API_KEY'],
      ['X-Session-Id', true, 'CONFORMANCE_HEADER_X_SESSION_ID'],
      ['X-Gateway', true, 'CONFORMANCE_SECRET_HEADER_X_GATEWAY'],
    ]);
    expect(parseExtraHeaders({}, ['X-Auth-Key: v'])[0]).toMatchObject({
      secret: true,
      variable: 'CONFORMANCE_SECRET_HEADER_X_AUTH_KEY',
    });
  });

  test('headers the suite sets, bad names and values that cannot be sent are refused', () => {
    const refused: [Record<string, string>, string[], RegExp][] = [
      [{ CONFORMANCE_HEADER_AUTHORIZATION: 'Bearer x' }, [], /API_TOKEN/],
      [{}, ['Host: elsewhere'], /sets Host itself/],
      [{}, ['Content-Type: text/plain'], /itself/],
      [{ CONFORMANCE_HEADER_X_A: 'one\r\nInjected: yes' }, [], /cannot be sent/],
      [{}, ['X-A: tab\u0000'], /cannot be sent/],
      [{}, ['no colon'], /Name: value/],
      [{}, ['X A: v'], /not a header name/],
      [{ CONFORMANCE_HEADER_X_A: 'a', CONFORMANCE_SECRET_HEADER_X_A: 'b' }, [], /given twice/],
    ];
    for (const [env, flags, message] of refused) {
      expect(() => parseExtraHeaders(env, flags)).toThrow(ConfigError);
      expect(() => parseExtraHeaders(env, flags)).toThrow(message);
    }
  });
});

/** A gateway before the reference server: 403 without the key; echoes the key in a header and the body's tail. */
async function gateway(
  target: string,
): Promise<{ url: string; seen: Record<string, string>[]; close(): Promise<void> }> {
  const seen: Record<string, string>[] = [];
  const server: Server = createServer((req, res) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
    );
    seen.push(headers);
    if (req.headers['x-api-key'] !== KEY) {
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'gateway: missing API key' }));
      return;
    }
    forward(target, req, res, { extra: { 'x-gateway-key': KEY } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

test('the client sends them, records a secret as its variable, and redacts its echo', async () => {
  const reference = new ReferenceServer();
  const gw = await gateway(await reference.start());
  try {
    const log = new ExchangeLog();
    const extraHeaders = parseExtraHeaders({ CONFORMANCE_SECRET_HEADER_X_API_KEY: KEY }, ['X-Tenant: acme']);
    const client = new HttpClient(new TargetSession({ politeness: EMBEDDED_POLITENESS }), {
      baseURL: gw.url,
      token: REFERENCE_TOKEN,
      allowWrites: false,
      record: (sent) => log.append(sent),
      extraHeaders,
    });
    const ex = await client.send({ method: 'GET', path: '/api/v1/counterparties/nope-0001' });
    expect(gw.seen[0]).toMatchObject({ 'x-api-key': KEY, 'x-tenant': 'acme' });
    expect(ex.status).toBe(404);
    expect(ex.request.headers['X-Api-Key']).toBe('$CONFORMANCE_SECRET_HEADER_X_API_KEY');
    expect(ex.request.headers['X-Tenant']).toBe('acme');
    expect(ex.headers['x-gateway-key']).toBe('$CONFORMANCE_SECRET_HEADER_X_API_KEY');
    expect(JSON.stringify(ex)).not.toContain(KEY);
    expect(curlCommand(ex.request)).toContain(`-H "X-Api-Key: $CONFORMANCE_SECRET_HEADER_X_API_KEY"`);
    expect(curlCommand(ex.request)).toContain(`-H 'X-Tenant: acme'`);
  } finally {
    await gw.close();
    await reference.stop();
  }
});

test('through the CLI: a gateway that needs a key and a tenant passes; the key is in no report', async () => {
  const reference = new ReferenceServer();
  const gw = await gateway(await reference.start());
  try {
    const run = await runCli(
      {
        ...targetEnv(gw.url, REFERENCE_TOKEN, false),
        CONFORMANCE_SECRET_HEADER_X_API_KEY: KEY,
      },
      {
        // One probe: reads of every operation, with the token, without it and with a wrong one.
        args: ['--header', 'X-Tenant: acme', '--probe', 'reads-require-authentication'],
      },
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(gw.seen.length).toBeGreaterThan(10);
    // Every request, the preflight and the credential cases included, carried both.
    for (const headers of gw.seen) expect(headers).toMatchObject({ 'x-api-key': KEY, 'x-tenant': 'acme' });
    expect(run.stdout + run.stderr).not.toContain(KEY);
    for (const file of filesBelow(run.reports))
      for (const { where, bytes } of scannableContents(file))
        expect(bytes.includes(KEY), `${where} holds the key`).toBe(false);
  } finally {
    await gw.close();
    await reference.stop();
  }
});
