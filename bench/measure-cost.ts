/**
 * The client's cost per request: sequential GETs (one at a time, the same read mix each round)
 * through TargetSession against the reference server in a child process on 127.0.0.1, so that
 * this process's CPU time is the client's alone. Run: npx tsx bench/measure-cost.ts
 * It prints the CPU time (user + system) and the wall time per request, with the embedded
 * limits and with a deployment's defaults; CPU time is the figure to compare between versions
 * of the transport on a busy machine, where wall time mostly measures the other processes.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { EMBEDDED_POLITENESS, REMOTE_POLITENESS } from '../config/config.ts';
import type { Politeness } from '../transport/politeness.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN } from '../servers/reference.ts';
import { TargetSession } from '../transport/session.ts';

const ROUNDS = 5000;
const PATHS = [
  `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`,
  '/api/v1/bills',
  '/api/v1/counterparties/UNKNOWN-0001',
  '/api/v1/no-such-operation',
];

async function measure(label: string, politeness: Politeness, base: string): Promise<void> {
  const session = new TargetSession({ politeness: { ...politeness, maxRequests: 1_000_000 } });
  const headers = { Authorization: `Bearer ${REFERENCE_TOKEN}`, Accept: 'application/json' };
  const send = (i: number): Promise<unknown> =>
    session.exchange('GET', new URL(`${base}${PATHS[i % PATHS.length]}`), headers, undefined);
  try {
    for (let i = 0; i < 500; i++) await send(i);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < ROUNDS; i++) await send(i);
    const wall = (performance.now() - started) / ROUNDS;
    const used = process.cpuUsage(cpu);
    const cpuUs = (used.user + used.system) / ROUNDS;
    console.log(
      `${label}: ${cpuUs.toFixed(1)} µs CPU, ${wall.toFixed(3)} ms wall per request (${ROUNDS} sequential GETs)`,
    );
  } finally {
    session.close();
  }
}

// The reference server in its own process: it prints its URL, and ends with this one.
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '-e',
    "const { ReferenceServer } = await import('./servers/reference.ts'); console.log(await new ReferenceServer().start(0));",
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const base = await new Promise<string>((resolve) =>
  createInterface({ input: child.stdout }).once('line', resolve),
);
try {
  for (let round = 0; round < 2; round++) {
    await measure('embedded limits', EMBEDDED_POLITENESS, base);
    await measure('deployment defaults', { ...REMOTE_POLITENESS, rps: 0 }, base);
  }
} finally {
  child.kill();
}
