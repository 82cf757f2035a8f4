/**
 * HTTP_PROXY / HTTPS_PROXY / NO_PROXY (transport/wire.ts, undici's EnvHttpProxyAgent): through a
 * small forward proxy on 127.0.0.1 that tunnels CONNECT requests and records them, a request goes
 * through the proxy when one is set, straight to the target when NO_PROXY names it, and the
 * proxy sees the tunnel only, never the bearer token.
 */
import { createServer } from 'node:http';
import { expect, test } from '@playwright/test';
import { createPool, proxyEnv, transmit } from '../../transport/wire.ts';
import { close, forwardProxy, listen } from './forward-proxy.ts';

test('the proxy variables: either case, an empty one unset', () => {
  expect(proxyEnv({ https_proxy: 'http://p:3128', NO_PROXY: 'a.example' })).toEqual({
    httpsProxy: 'http://p:3128',
    noProxy: 'a.example',
  });
  expect(proxyEnv({ HTTP_PROXY: ' ', http_proxy: 'http://q' })).toEqual({});
  expect(proxyEnv({})).toEqual({});
});

test('with HTTP_PROXY set a request goes through the proxy (a tunnel: the token stays inside), unless NO_PROXY names the target', async () => {
  const target = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ auth: req.headers.authorization ?? null }));
  });
  const address = await listen(target);
  const proxy = await forwardProxy();
  const url = new URL(`http://${address}/api/v1/x`);
  const headers = { Authorization: 'Bearer secret-token' };
  try {
    const proxied = createPool(2, 65536, { httpProxy: proxy.url });
    try {
      const r = await transmit(url, 'GET', headers, undefined, {
        timeoutMs: 2000,
        maxResponseBytes: 65536,
        pool: proxied,
      });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body.toString())).toEqual({ auth: 'Bearer secret-token' });
    } finally {
      proxied.close();
    }
    expect(proxy.seen).toHaveLength(1);
    expect(proxy.seen[0]).toMatch(new RegExp(`^CONNECT ${address} `));
    expect(proxy.seen.join('\n')).not.toContain('secret-token');

    const bypassed = createPool(2, 65536, { httpProxy: proxy.url, noProxy: '127.0.0.1' });
    try {
      const r = await transmit(url, 'GET', headers, undefined, {
        timeoutMs: 2000,
        maxResponseBytes: 65536,
        pool: bypassed,
      });
      expect(r.status).toBe(200);
    } finally {
      bypassed.close();
    }
    expect(proxy.seen).toHaveLength(1);
  } finally {
    await proxy.close();
    await close(target);
  }
});
