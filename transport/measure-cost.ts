/**
 * The client's cost per request: sequential GETs (one at a time, the same read mix each round)
 * against the embedded reference server on 127.0.0.1, through TargetSession, with the embedded
 * limits and with a deployment's defaults lifted of any fixed rate. Run: npx tsx transport/measure-cost.ts
 * It prints the mean wall time per request (client and server together, one process); the
 * difference between two versions of the transport is the difference in the client's cost.
 */
import { EMBEDDED_POLITENESS, REMOTE_POLITENESS } from '../config/config.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN, ReferenceServer } from '../servers/reference.ts';
import { TargetSession } from './session.ts';

const ROUNDS = 5000;
const PATHS = [
  `/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`,
  '/api/v1/bills',
  '/api/v1/counterparties/UNKNOWN-0001',
  '/api/v1/no-such-operation',
];

async function measure(label: string, politeness: typeof EMBEDDED_POLITENESS, base: string): Promise<void> {
  const session = new TargetSession({ politeness });
  const headers = { Authorization: `Bearer ${REFERENCE_TOKEN}`, Accept: 'application/json' };
  try {
    for (let i = 0; i < 300; i++)
      await session.exchange('GET', new URL(`${base}${PATHS[i % 4]}`), headers, undefined);
    const started = performance.now();
    for (let i = 0; i < ROUNDS; i++) {
      await session.exchange('GET', new URL(`${base}${PATHS[i % 4]}`), headers, undefined);
    }
    const perRequest = (performance.now() - started) / ROUNDS;
    console.log(`${label}: ${perRequest.toFixed(3)} ms per request (${ROUNDS} sequential GETs)`);
  } finally {
    session.close();
  }
}

const server = new ReferenceServer();
const base = await server.start(0);
try {
  await measure('embedded limits', EMBEDDED_POLITENESS, base);
  await measure('deployment defaults, no fixed rate', { ...REMOTE_POLITENESS, rps: 0 }, base);
  await measure('embedded limits (again)', EMBEDDED_POLITENESS, base);
} finally {
  await server.stop();
}
