/**
 * The start-up check (bin/preflight.ts) tells a wrong target from a faulty one: the interface
 * answers the known counterparty with JSON, so a 404 of it (COUNTERPARTY_REF names nothing
 * there), an answer that is not JSON (a static file server, a web page), and a redirect are
 * configuration errors naming the likely cause (exit 2), where a deployment answering otherwise
 * (5xx, 429, 403, JSON without its media type) goes on to be judged. A base URL that already holds
 * the interface's prefix /api/v1 is refused before any request (config/config.ts). Through an
 * egress proxy when one is set.
 *
 * The check is called in this process against small servers; one run through the CLI shows the
 * route (a static file server: exit 2 with the line, one request sent, no report).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import { preflight, type PreflightTarget } from '../../bin/preflight.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN, ReferenceServer } from '../../servers/reference.ts';
import { close, forwardProxy, listen } from './forward-proxy.ts';
import { removeTemporaryDirectories, resolveAsCli, runCli, temporaryDirectory } from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A server answering every request with `handler`, for the length of `fn`; the paths it was asked. */
async function withServer<T>(handler: Handler, fn: (url: string, paths: string[]) => Promise<T>): Promise<T> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    handler(req, res);
  });
  const address = await listen(server);
  try {
    return await fn(`http://${address}`, paths);
  } finally {
    await close(server);
  }
}

const target = (baseURL: string, counterpartyRef = 'ACME-0001'): PreflightTarget => ({
  baseURL,
  token: 'token-0123456789',
  counterpartyRef,
  timeoutMs: 5000,
});

/** The one line preflight rejects with (a ConfigError), or undefined when it resolves. */
async function line(t: PreflightTarget, proxy = {}): Promise<string | undefined> {
  try {
    await preflight(t, proxy);
    return undefined;
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    expect(message).not.toContain('token-0123456789');
    return message;
  }
}

const answer =
  (status: number, headers: Record<string, string>, body = ''): Handler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

const JSON_TYPE = { 'Content-Type': 'application/json' };

test.describe('a wrong target is a configuration error with its likely cause', () => {
  test('a static file server (404 pages of HTML): not the interface', async () => {
    await withServer(answer(404, { 'Content-Type': 'text/html' }, '<h1>Not Found</h1>'), async (url) => {
      expect(await line(target(url))).toBe(
        `${url} does not look like the payment-flow interface: GET /api/v1/counterparties/ACME-0001 was answered 404 ` +
          'with content of type text/html, not JSON; check API_BASE_URL (the suite adds /api/v1/... to it)',
      );
    });
  });

  test('a web page answered 200 for every path (a single-page app): not the interface', async () => {
    await withServer(
      answer(200, { 'Content-Type': 'text/html; charset=utf-8' }, '<html></html>'),
      async (url) => {
        expect(await line(target(url))).toMatch(
          /does not look like the payment-flow interface: .* answered 200 with content of type text\/html; charset=utf-8, not JSON/,
        );
      },
    );
    await withServer(answer(200, {}, 'plain text'), async (url) => {
      expect(await line(target(url))).toMatch(/answered 200 with content with no Content-Type, not JSON/);
    });
  });

  test('a counterparty that does not exist there (404 of JSON, or empty)', async () => {
    // The reference server itself, asked for a counterparty it does not hold.
    const reference = new ReferenceServer();
    const url = await reference.start(0);
    try {
      expect(await line({ ...target(url, 'NO-SUCH-COUNTERPARTY'), token: REFERENCE_TOKEN })).toBe(
        `COUNTERPARTY_REF 'NO-SUCH-COUNTERPARTY' was not found at ${url}: GET /api/v1/counterparties/NO-SUCH-COUNTERPARTY ` +
          'was answered 404; name a counterparty that exists there (the suite only reads it), or check API_BASE_URL',
      );
      // The one it holds: the run goes on.
      expect(await line({ ...target(url, REFERENCE_COUNTERPARTY), token: REFERENCE_TOKEN })).toBeUndefined();
    } finally {
      await reference.stop();
    }
    await withServer(answer(404, {}), async (url) => {
      expect(await line(target(url))).toMatch(
        /^COUNTERPARTY_REF 'ACME-0001' was not found at .* answered 404 with an empty body;/,
      );
    });
  });

  test('a redirect: the suite follows none; the base URL it implies is named', async () => {
    await withServer(
      answer(301, { Location: 'https://api.example.test/v2/api/v1/counterparties/ACME-0001?sig=abc' }),
      async (url) => {
        expect(await line(target(url))).toBe(
          `${url} redirects: GET /api/v1/counterparties/ACME-0001 was answered 301 to https://api.example.test/v2/api/v1/counterparties/ACME-0001, ` +
            'and the suite follows no redirects (the token goes nowhere else); give API_BASE_URL https://api.example.test/v2',
        );
      },
    );
    await withServer(answer(302, { Location: '/login' }), async (url) => {
      expect(await line(target(url))).toMatch(
        new RegExp(`answered 302 to ${url}/login, .*; give the URL it redirects to as API_BASE_URL$`),
      );
    });
  });

  test('a base URL that already ends in /api/v1 is refused before any request', async () => {
    for (const base of [
      'http://127.0.0.1:9/api/v1',
      'http://127.0.0.1:9/pay/api/v1/',
      'http://127.0.0.1:9/API/V1/counterparties',
    ])
      await expect(
        resolveAsCli(
          [],
          { API_BASE_URL: base, API_TOKEN: 'token-0123456789', COUNTERPARTY_REF: 'ACME-0001' },
          temporaryDirectory('payflow-prefix-'),
        ),
      ).rejects.toThrow(
        /already holds the interface's path prefix \/api\/v1, which the suite adds to every path \(it would request \/api\/v1\/api\/v1\/\.\.\.\); give the URL before it: http:\/\/127\.0\.0\.1:9(\/pay)?$/,
      );
    // A prefix that only starts alike is another path.
    const run = await resolveAsCli(
      [],
      {
        API_BASE_URL: 'http://127.0.0.1:9/api/v10',
        API_TOKEN: 'token-0123456789',
        COUNTERPARTY_REF: 'ACME-0001',
      },
      temporaryDirectory('payflow-prefix-'),
    );
    expect(run.config.baseURL).toBe('http://127.0.0.1:9/api/v10');
  });
});

test.describe('a faulty deployment goes on to be judged', () => {
  for (const [label, handler] of [
    ['a 500 with a page', answer(500, { 'Content-Type': 'text/html' }, '<h1>oops</h1>')],
    ['a 503 with nothing', answer(503, { 'Retry-After': '1' })],
    ['a 429', answer(429, { 'Retry-After': '1' })],
    ['a 403 of JSON', answer(403, JSON_TYPE, '{"error":"forbidden"}')],
    ['a 400 of JSON (a pattern check that refuses a valid reference)', answer(400, JSON_TYPE, '{}')],
    [
      'a counterparty of JSON without its media type',
      answer(200, {}, '{"counterpartyReference":"ACME-0001"}'),
    ],
    ['a counterparty labelled JSON that does not parse', answer(200, JSON_TYPE, '{"counterpartyReference":')],
    ['a 200 of JSON in a +json type', answer(200, { 'Content-Type': 'application/problem+json' }, '{}')],
  ] as const) {
    test(`${label}: the run goes on`, async () => {
      await withServer(handler, async (url) => expect(await line(target(url))).toBeUndefined());
    });
  }

  test('a deployment answering 401 to no token but not to the token (a 404): the 404 is what is said', async () => {
    await withServer(
      (req, res) =>
        req.headers.authorization
          ? answer(404, JSON_TYPE, '{}')(req, res)
          : answer(401, { 'WWW-Authenticate': 'Bearer' })(req, res),
      async (url) => expect(await line(target(url))).toMatch(/^COUNTERPARTY_REF 'ACME-0001' was not found/),
    );
  });
});

test('through an egress proxy when one is set (HTTP_PROXY): the check gets the answer the run would', async () => {
  const proxy = await forwardProxy();
  try {
    await withServer(
      answer(404, { 'Content-Type': 'text/html' }, '<h1>Not Found</h1>'),
      async (url, paths) => {
        expect(await line(target(url), { httpProxy: proxy.url })).toMatch(
          /does not look like the payment-flow interface/,
        );
        expect(paths).toEqual(['/api/v1/counterparties/ACME-0001']);
        expect(proxy.seen).toHaveLength(1);
        expect(proxy.seen[0]).toMatch(/^CONNECT 127\.0\.0\.1:\d+ /);
        // The proxy sees the tunnel, never the token.
        expect(proxy.seen.join('\n')).not.toContain('token-0123456789');
      },
    );
    // A proxy that refuses the tunnel: unreachable, exit 2.
    expect(await line(target('http://10.0.0.1:9'), { httpProxy: proxy.url })).toMatch(
      /^cannot reach API_BASE_URL http:\/\/10\.0\.0\.1:9/,
    );
  } finally {
    await proxy.close();
  }
});

test('through the command: a static file server is exit 2 with the line, after one request, and no report', async () => {
  await withServer(answer(404, { 'Content-Type': 'text/html' }, '<h1>Not Found</h1>'), async (url, paths) => {
    const r = await runCli({
      API_BASE_URL: url,
      API_TOKEN: 'token-0123456789',
      COUNTERPARTY_REF: 'ACME-0001',
    });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(
      `conformance: ${url} does not look like the payment-flow interface: GET /api/v1/counterparties/ACME-0001 was answered 404 ` +
        'with content of type text/html, not JSON; check API_BASE_URL (the suite adds /api/v1/... to it)',
    );
    expect(paths).toHaveLength(1);
  });
});
