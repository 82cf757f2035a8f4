/**
 * The curl command of traffic the suite did not send (a HAR file, the proxy): the Host the proxy
 * received and a browser's own headers are left out, so the command reaches the URL's host and
 * sends what the request meant; the suite's own requests keep every header.
 */
import { expect, test } from '@playwright/test';
import { curlCommand } from '../../exchange/curl.ts';

const request = {
  method: 'PATCH',
  url: 'http://127.0.0.1:9/api/v1/counterparties/ACME-1',
  headers: {
    Host: '127.0.0.1:8080',
    'User-Agent': 'Mozilla/5.0',
    'Accept-Encoding': 'gzip, br',
    'Accept-Language': 'en',
    'Sec-Fetch-Mode': 'cors',
    Origin: 'http://app.example',
    Referer: 'http://app.example/page',
    Cookie: 'session=1',
    'Content-Length': '2',
    Authorization: 'Bearer $API_TOKEN',
    'Content-Type': 'application/json',
    Accept: 'application/json',
    'X-Tenant': 'acme',
  },
  body: '{}',
};

test('foreign traffic: the proxy Host and browser headers are dropped; the token, media types and extras kept', () => {
  const curl = curlCommand(request, { foreign: true });
  for (const dropped of [
    'Host',
    'User-Agent',
    'Accept-Encoding',
    'Accept-Language',
    'Sec-Fetch-Mode',
    'Origin',
    'Referer',
    'Cookie',
    'Content-Length',
  ])
    expect(curl, dropped).not.toContain(`${dropped}:`);
  expect(curl).toContain('"Authorization: Bearer $API_TOKEN"');
  expect(curl).toContain("'Content-Type: application/json'");
  expect(curl).toContain("'Accept: application/json'");
  expect(curl).toContain("'X-Tenant: acme'");
  expect(curl).toContain("'http://127.0.0.1:9/api/v1/counterparties/ACME-1'");
});

test("the suite's own requests keep every header", () => {
  const curl = curlCommand(request);
  expect(curl).toContain("'Host: 127.0.0.1:8080'");
  expect(curl).toContain("'User-Agent: Mozilla/5.0'");
});
