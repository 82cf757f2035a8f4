/** Path encoding and reproduction commands: the token never appears, the curl is runnable. */
import { execFileSync } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { curlCommand, shellQuote } from '../../exchange/curl.ts';
import { encodePathSegment } from '../../exchange/paths.ts';
import { REDACTED_TOKEN } from '../../exchange/redact.ts';

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
