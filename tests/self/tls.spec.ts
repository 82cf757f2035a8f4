/**
 * A deployment behind a certificate of a private CA: trusted through NODE_EXTRA_CA_CERTS (Node
 * reads it at start, in the CLI and in every Playwright process it starts), refused without it,
 * with exit 2 and the TLS failure named. The certificate is made here with openssl, for
 * 127.0.0.1 only.
 *
 * Trusted: one run through the CLI, one probe (its start-up check is the CLI's request, the
 * rest its worker's, so every process of the run trusted the CA). Refused: the start-up check
 * (bin/preflight.ts) called in this process, which was started without the CA in
 * NODE_EXTRA_CA_CERTS, as a run without it is: its ConfigError is what the CLI prints as its one
 * line with exit 2, through the CLI in cli.spec.ts "exits 2 when the target cannot be reached".
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { REFERENCE_COUNTERPARTY, ReferenceServer, REFERENCE_TOKEN } from '../../servers/reference.ts';
import { preflight } from '../../bin/preflight.ts';
import { ConfigError } from '../../config/error.ts';
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
    // This process was started without the CA (its NODE_EXTRA_CA_CERTS, if any, names another file).
    expect(process.env.NODE_EXTRA_CA_CERTS).not.toBe(tls.cert);
    let refused: unknown;
    try {
      await preflight({
        baseURL: front.url,
        token: REFERENCE_TOKEN,
        counterpartyRef: REFERENCE_COUNTERPARTY,
        timeoutMs: 10_000,
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(
      /^cannot reach API_BASE_URL https:\/\/127\.0\.0\.1:\d+ \(TLS failure: /,
    );
    expect((refused as Error).message).not.toContain('\n');
    const trusted = await runCli(
      { ...targetEnv(front.url, REFERENCE_TOKEN, false), NODE_EXTRA_CA_CERTS: tls.cert },
      { args: ['--probe', 'known-counterparty'] },
    );
    expect(trusted.code, trusted.stdout + trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('Conformance PASSED');
  } finally {
    front.server.closeAllConnections();
    front.server.close();
    await reference.stop();
  }
});
