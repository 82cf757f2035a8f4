/**
 * A deployment behind a certificate of a private CA: trusted through NODE_EXTRA_CA_CERTS (Node
 * reads it at start, in the CLI and in every Playwright process it starts), refused without it,
 * with exit 2 and the TLS failure named. The certificate is made here with openssl, for
 * 127.0.0.1 only.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ReferenceServer, REFERENCE_TOKEN } from '../../servers/reference.ts';
import { removeTemporaryDirectories, runCli, targetEnv, temporaryDirectory } from './cli-fixtures.ts';
import { forward } from '../../servers/forward.ts';

test.afterAll(removeTemporaryDirectories);

/** A self-signed certificate for IP 127.0.0.1: its key and certificate files. */
function certificate(): { key: string; cert: string } {
  const dir = temporaryDirectory('payflow-tls-');
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=payflow-conformance test CA',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { key, cert };
}

/** An HTTPS front on 127.0.0.1 for `target`. */
async function httpsFront(
  target: string,
  tls: { key: string; cert: string },
): Promise<{ url: string; server: Server }> {
  const server = createServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) =>
    forward(target, req, res),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

test('a private CA: trusted with NODE_EXTRA_CA_CERTS, refused (exit 2) without', async () => {
  test.setTimeout(120_000);
  const tls = certificate();
  const reference = new ReferenceServer();
  const front = await httpsFront(await reference.start(), tls);
  try {
    const env = targetEnv(front.url, REFERENCE_TOKEN, false);
    const refused = await runCli(env, { args: ['--probe', 'known-counterparty'] });
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/TLS failure|certificate/i);
    const trusted = await runCli(
      { ...env, NODE_EXTRA_CA_CERTS: tls.cert },
      { args: ['--probe', 'known-counterparty', '--probe', 'valid-references'] },
    );
    expect(trusted.code, trusted.stdout + trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('Conformance PASSED');
  } finally {
    front.server.closeAllConnections();
    front.server.close();
    await reference.stop();
  }
});
