/**
 * The latency the validating proxy adds (bench/bench.ts, case 3): the median time of one request
 * of a GET mix sent directly to the reference server and through the proxy (`npm run validate --
 * --proxy`, in its own process), one at a time over a kept-alive connection.
 */
import { spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN } from '../servers/reference.ts';
import { ROOT } from './processes.ts';

/** One GET over `agent`, its body read; resolves the time it took in milliseconds. */
function timedGet(url: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(url, { headers, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(performance.now() - started));
    });
    req.on('error', reject);
    req.end();
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The validating proxy in its own process in front of `serverURL`: the median time of a request
 * of `mix` directly and through the proxy, alternating, one at a time; and the proxy's exit status.
 */
export async function proxyLatency(
  serverURL: string,
  mix: { path: string; headers: Record<string, string> }[],
  rounds: number,
): Promise<{ direct: number; proxied: number; code: number; judged: string }> {
  const work = mkdtempSync(join(tmpdir(), 'payflow-bench-proxy-'));
  // One process, as `npm run validate` runs it (node --import tsx).
  const loader = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const child = spawn(
    process.execPath,
    ['--import', loader, join(ROOT, 'bin', 'validate.ts'), '--proxy', '--port', '0'],
    {
      cwd: work,
      env: {
        ...process.env,
        API_BASE_URL: serverURL,
        API_TOKEN: REFERENCE_TOKEN,
        CONFORMANCE_REPORTS_DIR: join(work, 'reports'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const proxyURL = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`the proxy exited (${code}): ${out}`)));
  });
  const closed = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const direct: number[] = [];
  const proxied: number[] = [];
  try {
    // Warm both paths (connections, JIT) before measuring.
    for (let i = 0; i < 200; i++) {
      const m = mix[i % mix.length]!;
      await timedGet(`${serverURL}${m.path}`, m.headers, agent);
      await timedGet(`${proxyURL}${m.path}`, m.headers, agent);
    }
    for (let i = 0; i < rounds; i++) {
      const m = mix[i % mix.length]!;
      direct.push(await timedGet(`${serverURL}${m.path}`, m.headers, agent));
      proxied.push(await timedGet(`${proxyURL}${m.path}`, m.headers, agent));
    }
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
  }
  const code = await closed;
  const judged = /(\d+) exchange\(s\): (\d+) judged/.exec(out);
  rmSync(work, { recursive: true, force: true });
  return {
    direct: median(direct),
    proxied: median(proxied),
    code,
    judged: judged ? `${judged[2]} of ${judged[1]} exchanges judged` : 'no summary',
  };
}

export const PROXY_ROUNDS = Number(process.env.BENCH_PROXY_ROUNDS ?? 2000);

/** The GET mix the proxy is measured with: 200, 404, 400, 401. */
export function proxyMix(auth: Record<string, string>): { path: string; headers: Record<string, string> }[] {
  return [
    { path: `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`, headers: auth },
    { path: '/api/v1/counterparties/unknown-reference-0001', headers: auth },
    { path: '/api/v1/counterparties/a', headers: auth },
    { path: `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`, headers: {} },
  ];
}

export function proxyRow(p: {
  direct: number;
  proxied: number;
  code: number;
  judged: string;
}): [string, string] {
  return [
    'validating proxy, median added latency',
    `${(p.proxied - p.direct).toFixed(3)} ms (median ${p.direct.toFixed(3)} ms direct, ${p.proxied.toFixed(3)} ms through the proxy; ${p.judged}; proxy exit ${p.code})`,
  ];
}
