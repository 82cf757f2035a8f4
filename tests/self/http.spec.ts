/**
 * Path encoding and reproduction commands: the token never appears, the curl is runnable and
 * safe to print. And what the HTTP client records of an answer: the token where it stands as the
 * token is $API_TOKEN, data that merely contains a short token is intact.
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { curlCommand, shellQuote } from '../../exchange/curl.ts';
import { ExchangeLog } from '../../exchange/log.ts';
import { encodePathSegment } from '../../exchange/paths.ts';
import { REDACTED_TOKEN } from '../../exchange/redact.ts';
import { HttpClient } from '../../transport/client.ts';
import { TargetSession } from '../../transport/session.ts';

test('path segments are percent-encoded except unreserved characters', () => {
  expect(encodePathSegment('AZaz09-_')).toBe('AZaz09-_');
  expect(encodePathSegment("a b/c%d'!()*")).toBe('a%20b%2Fc%25d%27%21%28%29%2A');
  expect(encodePathSegment('é')).toBe('%C3%A9');
});

test('shell quoting survives single quotes', () => {
  const value = `it's "x" $HOME`;
  expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(value)}`]).toString()).toBe(value);
});

test('curl commands read the token from $API_TOKEN', () => {
  const cmd = curlCommand({
    method: 'PATCH',
    url: "http://127.0.0.1:1/api/v1/counterparties/o'k",
    headers: { Authorization: `Bearer ${REDACTED_TOKEN}`, 'Content-Type': 'application/json' },
    body: `{"remarks":"it's"}`,
  });
  expect(cmd).toContain(`-H "Authorization: Bearer $API_TOKEN"`);
  // The shell expands $API_TOKEN and keeps the rest literally.
  const echoed = execFileSync('sh', ['-c', `set -- ${cmd.replace(/^curl /, '')}; printf '%s\\n' "$@"`], {
    env: { API_TOKEN: 'secret-123', PATH: process.env.PATH },
  }).toString();
  expect(echoed).toContain('Authorization: Bearer secret-123');
  expect(echoed).toContain("http://127.0.0.1:1/api/v1/counterparties/o'k");
  expect(echoed).toContain(`{"remarks":"it's"}`);
});

test("a value with control characters is quoted as $'...': one printable line that bash reads back byte for byte", () => {
  const body = 'line 1\nline 2\r\n\x1b[2J\x07\u009b\u202e \\ \' "$HOME" é中';
  const quoted = shellQuote(body);
  expect(quoted.startsWith("$'")).toBe(true);
  expect(quoted).not.toMatch(/[\p{Cc}\p{Cf}]/u);
  expect(quoted).toContain('\\x1b[2J\\x07\\xc2\\x9b\\xe2\\x80\\xae');
  const read = execFileSync('bash', ['-c', `printf %s ${quoted}`]);
  expect(read.equals(Buffer.from(body, 'utf8'))).toBe(true);
  const cmd = curlCommand({ method: 'PATCH', url: 'http://127.0.0.1:1/x', headers: {}, body });
  expect(cmd).not.toContain('\n');
});

test('in a curl command only $API_TOKEN expands, however the recorded Authorization goes on', () => {
  const cmd = curlCommand({
    method: 'GET',
    url: 'http://127.0.0.1:1/x',
    headers: { Authorization: `Bearer ${REDACTED_TOKEN}suffix $HOME` },
  });
  const echoed = execFileSync('sh', ['-c', `set -- ${cmd.replace(/^curl /, '')}; printf '%s\\n' "$@"`], {
    env: { API_TOKEN: 'secret-123', HOME: '/home/x', PATH: process.env.PATH },
  }).toString();
  expect(echoed).toContain('Authorization: Bearer secret-123suffix $HOME');
});

test('the client records the token as $API_TOKEN where it stands as the token, and data with a short token intact', async () => {
  const token = 'Acme';
  // Echoes the Authorization header in a body field and in headers, and holds "Acme Ltd" as data.
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'X-Echo-Authorization': auth,
      'X-Token': token,
      'WWW-Authenticate': `Bearer realm="payflow", error_description="the token ${token} expires soon"`,
      Link: `<https://${token}.example/docs>; rel="help"`,
    });
    res.end(JSON.stringify({ accountHolderName: 'Acme Ltd', remarks: 'Acme', echo: `you sent ${auth}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const log = new ExchangeLog();
    const client = new HttpClient(new TargetSession({ politeness: EMBEDDED_POLITENESS }), {
      baseURL,
      token,
      allowWrites: false,
      record: (sent) => log.append(sent),
    });
    const ex = await client.send({ method: 'GET', path: '/x' });
    expect(ex.request.headers.Authorization).toBe('Bearer $API_TOKEN');
    expect(ex.body).toEqual({
      accountHolderName: 'Acme Ltd',
      remarks: 'Acme',
      echo: 'you sent Bearer $API_TOKEN',
    });
    expect(ex.headers['x-echo-authorization']).toBe('Bearer $API_TOKEN');
    expect(ex.headers['x-token']).toBe('$API_TOKEN');
    expect(ex.headers['www-authenticate']).toBe(
      'Bearer realm="payflow", error_description="the token $API_TOKEN expires soon"',
    );
    // Part of a longer run (a host name) is data, not the token.
    expect(ex.headers['link']).toBe('<https://Acme.example/docs>; rel="help"');
    // A realistic token is replaced wherever it occurs, inside a word too.
    const long = new HttpClient(new TargetSession({ politeness: EMBEDDED_POLITENESS }), {
      baseURL,
      token: 'tok-3d9f1c2b',
      allowWrites: false,
      record: (sent) => log.append(sent),
    });
    const echoed = await long.send({
      method: 'GET',
      path: '/x',
      auth: { authorization: 'Bearer xtok-3d9f1c2bx' },
    });
    // A credential the client sends is registered whole: it is shown as a variant of the token.
    expect(echoed.request.headers.Authorization).toBe('Bearer $API_TOKEN_VARIANT');
    expect(JSON.stringify(echoed)).not.toContain('tok-3d9f1c2b');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("header fields named as Object.prototype's properties go out and are recorded as fields, sent and answered", async () => {
  // Answers with such fields, and echoes the fields it was sent.
  const server = createServer((req, res) => {
    res.writeHead(200, [
      ['Content-Type', 'application/json'],
      ['constructor', 'answered constructor'],
      ['__proto__', 'answered __proto__'],
      ['toString', 'answered toString'],
    ]);
    res.end(JSON.stringify({ received: req.rawHeaders }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const client = new HttpClient(new TargetSession({ politeness: EMBEDDED_POLITENESS }), {
      baseURL,
      token: 'tok-5e1a9c',
      allowWrites: false,
      record: (sent) => new ExchangeLog().append(sent),
    });
    // JSON.parse, as a request's fields come from data: __proto__ is an own key.
    const headers = JSON.parse('{"constructor":"sent constructor","__proto__":"sent __proto__"}') as Record<
      string,
      string
    >;
    const ex = await client.send({ method: 'GET', path: '/x', headers });
    const received = (ex.body as { received: string[] }).received;
    expect(received).toEqual(
      expect.arrayContaining(['constructor', 'sent constructor', '__proto__', 'sent __proto__']),
    );
    expect(Object.hasOwn(ex.request.headers, '__proto__') && ex.request.headers['__proto__']).toBe(
      'sent __proto__',
    );
    for (const name of ['constructor', '__proto__', 'toString'])
      expect(Object.hasOwn(ex.headers, name.toLowerCase()) && ex.headers[name.toLowerCase()], name).toBe(
        `answered ${name}`,
      );
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
