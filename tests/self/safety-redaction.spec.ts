/**
 * Every credential form the suite sends, and every form a target may echo, is redacted wherever
 * text is written (exchange/redact.ts): the token, its near misses and case flip, its Basic
 * form, a secret extra header's value; in any case, in hex, base64-encoded (at any offset of a
 * longer base64 text), JSON-escaped (`\/`, `\u0074`, and JSON inside JSON), percent-encoded once
 * or twice, as HTML character references (numeric and named: `&sol;`), mixed and nested; in a
 * body, a header's value or its name, a status text. And the userinfo of any URL (`user:pass@`).
 * In validated traffic too: duplicate and comma-joined Authorization headers,
 * Proxy-Authorization, Basic credentials, cookies, API keys, URLs with userinfo.
 *
 * The rule in-process; then a run of the command against a server that echoes the Authorization
 * header and the secret header it gets in every one of those forms (tests/self/leak-forms.ts),
 * and a validation of a HAR carrying every kind of credential, each followed by a scan of every
 * file written (the zip inside Playwright's HTML report included, its attachments unescaped) and
 * of the console, in every decoding. The run selects the two probes whose requests meet the
 * echoes (issue 20: the known counterparty's read, answered without an echo, added a worker to
 * the run and nothing to the scan).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { basicPassword, nearMisses } from '../../exchange/credentials.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { Redactor } from '../../exchange/redact.ts';
import { redactExchange, trafficCredentials } from '../../exchange/redact-exchange.ts';
import { RedactingStream } from '../../exchange/redact-stream.ts';
import { redactText, runRedactor } from '../../exchange/redactors.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { REFERENCE_COUNTERPARTY } from '../../servers/reference.ts';
import {
  filesBelow,
  nodeTs,
  readJson,
  removeTemporaryDirectories,
  runCli,
  runNode,
  scannableContents,
  ShowcaseServer,
  targetEnv,
  temporaryDirectory,
} from './cli-fixtures.ts';
import { echoForms, headerNameForms, htmlReferenced, leaks, unicodeEscaped } from './leak-forms.ts';

test.afterAll(removeTemporaryDirectories);

/** A token with the characters JSON and URLs escape: `/` and `+`. */
const TOKEN = 'tok/SECRET+3d9f1c2b7a5e4f60/x';
/** A secret extra header's value (CONFORMANCE_SECRET_HEADER_X_API_KEY), with `.`, `_` and `=`. */
const API_KEY = 'key.Live_9f8e=7d6c5b4a';
/** The userinfo of URLs the target sends back, known to no setting. */
const URL_USER = 'svc-user-7731';
const URL_PASSWORD = 'hunter2-pass-0042';

/** The plain credentials no written byte may hold in any form: the token and what the suite derives from it. */
const PLAIN = [TOKEN, ...nearMisses(TOKEN).map((n) => n.value)];

/** The credentials found in `text`, in any decoding (tests/self/leak-forms.ts). */
const leaksOf = (text: string, plain: readonly string[] = PLAIN): string[] => leaks(text, plain);

test.describe('the rule', () => {
  const redactor = new Redactor().addToken(TOKEN);

  test('every form of the token and of what the suite derives from it, in every encoding, is replaced; JSON stays JSON', () => {
    const forms = [
      ...PLAIN,
      `Basic ${basicPassword(TOKEN)}`,
      Buffer.from(TOKEN).toString('base64'),
      Buffer.from(TOKEN).toString('base64url'),
      Buffer.from(`someone:${TOKEN}`).toString('base64'),
      Buffer.from(`Authorization: Bearer ${TOKEN}`).toString('base64'),
      TOKEN.replaceAll('/', '\\/'),
      unicodeEscaped(TOKEN),
      encodeURIComponent(TOKEN),
      htmlReferenced(TOKEN),
      // Mixed: some characters escaped, some not.
      `tok\\/SEC\\u0052ET%2B3d9f1c2b7a5e4f60&#47;x`,
      // Every form a hostile target may write (any case, hex, nested and named references...),
      // of the token, of a near miss and of the Basic password.
      ...Object.values(echoForms(TOKEN)),
      ...Object.values(echoForms(nearMisses(TOKEN)[4]!.value)),
      ...Object.values(echoForms(basicPassword(TOKEN))),
    ];
    for (const form of forms) {
      const json = `{"echo":"you sent ${form.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}","raw":"${form}"}`;
      const redacted = redactor.text(json);
      expect(leaksOf(redacted), form).toEqual([]);
      // A body stays parseable whatever it echoed (where it was JSON to begin with).
      let parses = true;
      try {
        JSON.parse(json);
      } catch {
        parses = false;
      }
      if (parses) expect(() => JSON.parse(redacted), form).not.toThrow();
    }
    // JSON inside JSON (an echoed request body): the parsed value is redacted again.
    const nested = JSON.stringify({
      body: JSON.stringify({ auth: `Bearer ${TOKEN.replaceAll('/', '\\/')}` }),
    });
    expect(leaksOf(JSON.stringify(redactor.value(JSON.parse(redactor.text(nested)))))).toEqual([]);
  });

  test('a secret header value in every form, in a body, a header value and a header name', () => {
    const key = new Redactor([
      { value: API_KEY, shownAs: '$CONFORMANCE_SECRET_HEADER_X_API_KEY', everywhere: true },
    ]);
    for (const [name, form] of Object.entries(echoForms(API_KEY))) {
      expect(leaksOf(key.text(JSON.stringify({ echo: form })), [API_KEY]), name).toEqual([]);
      expect(leaksOf(key.header(`v=${form}`), [API_KEY]), name).toEqual([]);
    }
    // A short secret header's value is searched everywhere, but as it is: its hex is data.
    const short = new Redactor([
      { value: 'k1x', shownAs: '$CONFORMANCE_SECRET_HEADER_X_T', everywhere: true },
    ]);
    expect(short.text('{"v":"k1x","n":"6b3178","u":"K1X"}')).toBe(
      '{"v":"$CONFORMANCE_SECRET_HEADER_X_T","n":"6b3178","u":"K1X"}',
    );
    for (const name of [...headerNameForms(API_KEY), ...headerNameForms(TOKEN)].map((n) => n.toLowerCase()))
      expect(leaksOf(redactor.header(key.header(name)), [API_KEY, TOKEN]), name).toEqual([]);
  });

  test('the userinfo of a URL, in any encoding and with no secret known, is replaced where the suite writes; not in what the oracles judge, nor an e-mail address', () => {
    const none = new Redactor();
    const url = `http://${URL_USER}:${URL_PASSWORD}@127.0.0.1:9/api/v1/x?y=1`;
    const texts = [
      url,
      `//${URL_USER}:${URL_PASSWORD}@127.0.0.1:9/`,
      `see <${url}>`,
      JSON.stringify({ self: url.replaceAll('/', '\\/') }),
      `/login?next=${encodeURIComponent(url)}`,
      `/login?next=${encodeURIComponent(encodeURIComponent(url))}`,
      `https://${URL_USER}:p@ss:${URL_PASSWORD}@host`,
      `ftp://${URL_PASSWORD}@host`,
    ];
    for (const text of texts) {
      const out = none.text(text);
      expect(leaksOf(out, [URL_USER, URL_PASSWORD]), text).toEqual([]);
      expect(out, text).toContain('$REDACTED');
    }
    expect(none.text(`http://${URL_USER}:${URL_PASSWORD}@127.0.0.1:9/api/v1/x?y=1`)).toBe(
      'http://$REDACTED@127.0.0.1:9/api/v1/x?y=1',
    );
    for (const data of [
      '{"emailAddress":"payables@acme.example","remarks":"mailto:payables@acme.example"}',
      'a/b//c@d',
      'http://127.0.0.1:9/api/v1/x?by=someone@acme.example',
    ])
      expect(none.text(data)).toBe(data);
    // What the oracles judge keeps a generated remark a conforming deployment echoes as it was
    // sent; the report files and the console still show it redacted.
    const remark = '{"remarks":"see //a:b@c and http://u:p@h"}';
    expect(runRedactor(TOKEN, []).text(remark)).toBe(remark);
    expect(redactText(remark, [TOKEN])).toBe('{"remarks":"see //$REDACTED@c and http://$REDACTED@h"}');
  });

  test('a short token stays data where it is data, in any case and in hex; a stream catches an encoded token split across chunks', () => {
    const short = new Redactor().addToken('Acme');
    expect(short.text('{"name":"Acme Ltd","echo":"Bearer Acme","basic":"Basic OkFjbWU="}')).toBe(
      '{"name":"Acme Ltd","echo":"Bearer $API_TOKEN","basic":"Basic $API_TOKEN_BASE64"}',
    );
    const data = '{"name":"ACME LTD","lower":"acme ltd","hex":"41636d65","upper":"Bearer of ACME"}';
    expect(short.text(data)).toBe(data);
    const text =
      `line\n{"echo":"${TOKEN.replaceAll('/', '\\/')}","u":"${unicodeEscaped(TOKEN)}"}\n` +
      `{"twice":"${echoForms(TOKEN).percentTwice}","named":"${echoForms(TOKEN).htmlNamed}","up":"${TOKEN.toUpperCase()}"}\n`;
    for (const size of [1, 3, 7, 16]) {
      let out = '';
      const stream = new RedactingStream(redactor, (t) => (out += t));
      for (let i = 0; i < text.length; i += size) stream.push(text.slice(i, i + size));
      stream.end();
      expect(leaksOf(out), `chunks of ${size}`).toEqual([]);
      expect(out).toBe(
        'line\n{"echo":"$API_TOKEN","u":"$API_TOKEN"}\n{"twice":"$API_TOKEN","named":"$API_TOKEN","up":"$API_TOKEN"}\n',
      );
    }
  });

  test('validated traffic: duplicate and comma-joined Authorization, Proxy-Authorization, Basic, cookies, API keys; other headers untouched', () => {
    const secrets = [
      'bearer-one-0123456789',
      'bearer-two-0123456789',
      'bearer-three-012345',
      'alice:pass-word-42',
    ];
    const proxyAuth = Buffer.from('proxyuser:proxy-secret-99').toString('base64');
    const ex: Omit<Exchange, 'id'> = {
      request: {
        method: 'GET',
        url: `http://h/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`,
        headers: {
          // A HAR's two Authorization headers, joined as the validator joins them, and one comma-joined.
          Authorization: `Bearer ${secrets[0]}, Bearer ${secrets[1]}, Bearer ${secrets[2]}, Basic ${Buffer.from(secrets[3]!).toString('base64')}`,
          'Proxy-Authorization': `Basic ${proxyAuth}`,
          Cookie: 'session=cookie-session-7788; lang=1',
          'X-Api-Key': 'api-key-value-5566',
        },
      },
      status: 404,
      headers: {
        'content-type': 'application/json',
        deprecation: '@1',
        'set-cookie': 'session=server-session-9911; Path=/',
        'x-echo': `Bearer ${secrets[1]}`,
      },
      text: JSON.stringify({
        echo: [
          secrets.join(' '),
          'pass-word-42',
          proxyAuth,
          'cookie-session-7788',
          'api-key-value-5566',
          'server-session-9911',
        ],
      }),
      body: undefined,
      startedAt: 0,
      durationMs: 1,
      attempts: 1,
      origin: { harEntry: 0 },
    };
    const redactor = new Redactor();
    const { tokens, secrets: others } = trafficCredentials(ex);
    for (const t of tokens) redactor.addToken(t);
    for (const s of others) redactor.add(s);
    const out = redactExchange(ex, redactor);
    const values = [
      ...secrets,
      'pass-word-42',
      'proxy-secret-99',
      'cookie-session-7788',
      'api-key-value-5566',
      'server-session-9911',
    ];
    expect(leaksOf(JSON.stringify(out), values)).toEqual([]);
    expect(out.request.headers.Authorization).toBe(
      'Bearer $API_TOKEN, Bearer $API_TOKEN, Bearer $API_TOKEN, Basic $REDACTED',
    );
    expect(out.request.headers['Proxy-Authorization']).toBe('Basic $REDACTED');
    expect(out.request.headers.Cookie).toBe('session=$REDACTED; lang=$REDACTED');
    expect(out.headers['set-cookie']).toBe('session=$REDACTED; Path=/');
    // A short cookie value is replaced in its header only: what the oracles judge stays as sent.
    expect(out.headers.deprecation).toBe('@1');
  });
});

/**
 * A faulty server (ShowcaseServer: two-character references are looked up, so their 404s are
 * findings the reports quote) whose every error answer (401 and 404) echoes the Authorization
 * header and the secret X-Api-Key header it got in every form of tests/self/leak-forms.ts: in the
 * body (JSON-escaped as PHP does, and every form as a field), in header values (the
 * WWW-Authenticate challenge included), in header names, in its status text, in a redirect's
 * Location (the token as the password of its userinfo), and links whose userinfo no setting
 * knows.
 */
class EchoingServer extends ShowcaseServer {
  protected override sendError(
    res: ServerResponse,
    status: number,
    code: string,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    const auth = res.req.headers.authorization ?? '';
    const key = String(res.req.headers['x-api-key'] ?? '');
    const credential = auth.replace(/^\S+\s*/, '');
    const str = (s: string): string => JSON.stringify(s);
    const link = `http://${URL_USER}:${URL_PASSWORD}@127.0.0.1:9/api/v1/counterparties`;
    const forms = Object.entries({ ...echoForms(credential), ...echoForms(auth) }).concat(
      Object.entries(echoForms(key)).map(([name, form]) => [`key-${name}`, form]),
    );
    // Written by hand: JSON.stringify would not escape "/" the way PHP's encoder does.
    const body =
      `{"error":{"code":${str(code)},"message":${str(message)}},` +
      `"echo":${str(auth)},` +
      `"slashes":"${auth.replaceAll('/', '\\/').replaceAll('"', '\\"')}",` +
      `"unicode":"${unicodeEscaped(auth)}",` +
      `"url":${str(encodeURIComponent(auth))},` +
      `"base64":${str(Buffer.from(auth).toString('base64'))},` +
      `"credentialBase64":${str(Buffer.from(credential).toString('base64url'))},` +
      `"html":${str(htmlReferenced(credential))},` +
      `"self":"${link.replaceAll('/', '\\/')}","next":${str(`/login?next=${encodeURIComponent(link)}`)},` +
      `"forms":${JSON.stringify(Object.fromEntries(forms))}}`;
    const echoes: Record<string, string> = {};
    for (const [name, form] of forms) echoes[`X-Echo-${name}`] = form;
    for (const name of [...headerNameForms(credential), ...headerNameForms(key)]) echoes[name] = 'echo';
    res.writeHead(status, `Denied ${credential.toUpperCase()} ${key}`, {
      ...headers,
      ...echoes,
      'Content-Type': 'application/json',
      'X-Echo-Authorization': auth,
      'X-Echo-Url': `/login?auth=${encodeURIComponent(credential)}`,
      Location: `http://echo:${encodeURIComponent(credential)}@127.0.0.1:9/next?key=${encodeURIComponent(encodeURIComponent(key))}`,
      'Content-Location': link,
      ...(status === 401
        ? {
            'WWW-Authenticate': `Bearer realm="payflow", error="invalid_token", token=${credential.replaceAll(' ', '')}`,
          }
        : {}),
    });
    res.end(body);
  }
}

test('a run against a target echoing every credential in every form: no file written and no console line holds any form', async () => {
  test.setTimeout(180_000);
  const server = new EchoingServer(TOKEN);
  const baseURL = await server.start(0);
  try {
    // Read-only, two probes, the two that meet the echoes: the credential list on every read (near
    // misses, Basic, case flip: 401s that echo each), and invalid references (404s that echo the
    // token, which the reports quote). The known counterparty's answers echo nothing.
    const r = await runCli(
      { ...targetEnv(baseURL, TOKEN, false), CONFORMANCE_SECRET_HEADER_X_API_KEY: API_KEY },
      { args: ['--probe', 'reads-require-authentication', '--probe', 'invalid-references'] },
    );
    const credentials = [...PLAIN, API_KEY, URL_USER, URL_PASSWORD];
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const record = readJson(join(r.reports, 'conformance.json')) as ConformanceRecord;
    expect(record.requirements.find((q) => q.id === 'reference-invalid-400')!.status).toBe('failed');
    const files = [...filesBelow(r.reports), ...filesBelow(r.results)];
    expect(files.some((f) => f.endsWith(join('playwright', 'index.html')))).toBe(true);
    const found = files
      .flatMap(scannableContents)
      .flatMap((c) => leaksOf(c.bytes.toString('utf8'), credentials).map((l) => `${c.where}: ${l}`));
    expect(found).toEqual([]);
    expect(leaksOf(r.stdout + r.stderr, credentials)).toEqual([]);
    // The echoes reached the reports (redacted), so the scan above had something to look at.
    const har = readFileSync(join(r.reports, 'exchanges.har'), 'utf8');
    for (const shown of [
      '$API_TOKEN_VARIANT',
      '$CONFORMANCE_SECRET_HEADER_X_API_KEY',
      '$REDACTED@127.0.0.1:9',
    ])
      expect(har).toContain(shown);
  } finally {
    await server.stop();
  }
});

test('validating a HAR whose every kind of credential is echoed: no report holds any of them', async () => {
  test.setTimeout(120_000);
  const work = temporaryDirectory('payflow-redact-har-');
  const values = [
    'bearer-one-0123456789',
    'bearer-two-0123456789',
    'proxy-secret-99',
    'cookie-session-7788',
    'api-key-value-5566',
    'pass-word-42',
    URL_USER,
    URL_PASSWORD,
  ];
  const basic = Buffer.from(`alice:${values[5]}`).toString('base64');
  const userinfo = `${URL_USER}:${URL_PASSWORD}`;
  const proxy = Buffer.from(`proxyuser:${values[2]}`).toString('base64');
  const entry = {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 1,
    request: {
      method: 'GET',
      url: `http://${userinfo}@127.0.0.1:9/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      // Two Authorization headers, one of them two credentials joined by a comma.
      headers: [
        { name: 'Authorization', value: `Bearer ${values[0]}` },
        { name: 'Authorization', value: `Bearer ${values[1]}, Basic ${basic}` },
        { name: 'Proxy-Authorization', value: `Basic ${proxy}` },
        { name: 'Cookie', value: `session=${values[3]}` },
        { name: 'X-Api-Key', value: values[4] },
        { name: 'Referer', value: `https://${userinfo}@app.example/pay` },
      ],
      queryString: [],
      headersSize: -1,
      bodySize: 0,
    },
    // A 500: its finding quotes the answer, and its curl command every header of the request.
    response: {
      status: 500,
      statusText: 'Internal Server Error',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [
        { name: 'Content-Type', value: 'application/json' },
        { name: 'X-Echo', value: values.join(' ') },
        { name: `x-${values[0]}`, value: 'the bearer token as a header name' },
        { name: 'Location', value: `http://${userinfo}@127.0.0.1:9/next` },
      ],
      content: {
        size: 1,
        mimeType: 'application/json',
        text: JSON.stringify({
          error: { code: 'NOT_FOUND', message: `you sent ${values.join(', ')} and ${basic} ${proxy}` },
          // Each credential of the request in every form a target may echo it in.
          forms: values.slice(0, 6).map((value) => echoForms(value)),
        }),
      },
      redirectURL: `http://${userinfo}@127.0.0.1:9/next`,
      headersSize: -1,
      bodySize: 1,
    },
    cache: {},
    timings: { send: 0, wait: 1, receive: 0 },
  };
  writeFileSync(
    join(work, 'recorded.har'),
    JSON.stringify({
      log: {
        version: '1.2',
        creator: { name: 'test', version: '1' },
        // The same exchange outside the interface too: such exchanges are listed by their URL.
        entries: [
          entry,
          { ...entry, request: { ...entry.request, url: `http://${userinfo}@127.0.0.1:9/other` } },
        ],
      },
    }),
  );
  const v = await runNode(nodeTs('bin/validate.ts', 'recorded.har', '--reports-dir', 'out'), {}, work);
  expect(v.code, v.stdout + v.stderr).toBe(1);
  const found = filesBelow(join(work, 'out'))
    .flatMap(scannableContents)
    .flatMap((c) => leaksOf(c.bytes.toString('utf8'), values).map((l) => `${c.where}: ${l}`));
  expect(found).toEqual([]);
  expect(leaksOf(v.stdout + v.stderr, values)).toEqual([]);
  // The finding reached the reports (redacted), so the scan above had something to look at.
  const record = readFileSync(join(work, 'out', 'conformance.json'), 'utf8');
  expect(record).toContain('Basic $REDACTED');
  expect(record).toContain('http://$REDACTED@127.0.0.1:9/other');
});
