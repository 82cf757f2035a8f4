/**
 * npx tsx bench/request-model.ts: what modelling a request costs, the model being meant to judge
 * every exchange of a run (about 3000) and of large HAR files.
 *
 * The mix: the model's own vectors and enumeration (every rule held and broken, every open point),
 * weighted toward what a run sends most (reads of a counterparty, PATCH bodies with details and
 * accounts, list queries), and a 64 KiB bill. Warmed first (ajv validators compile on first use,
 * the JIT settles), then modelled ROUNDS times; CPU time (user + system) is reported beside wall time, since the
 * machine is shared. BENCH_ROUNDS sets the rounds.
 *
 * Not part of npm test; figures are of this machine and whatever else runs on it.
 */
import { cpuUsage } from 'node:process';
import {
  ENUMERATION_OPTIONS,
  modelRequest,
  openCases,
  ruleCases,
  type HttpRequest,
} from '../requests/index.ts';
import { loadVectorFiles, requestOf } from '../requests/vectors/format.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const BASE = 'https://api.example.test/api/v1';
const AUTH = { Authorization: 'Bearer $API_TOKEN' };
const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' };

const typical: HttpRequest[] = [
  { method: 'GET', url: `${BASE}/counterparties/ACME-Supplies_0001`, headers: AUTH },
  { method: 'GET', url: `${BASE}/counterparties/ab%24cd`, headers: AUTH },
  {
    method: 'PATCH',
    url: `${BASE}/counterparties/ACME-Supplies_0001`,
    headers: JSON_AUTH,
    body: JSON.stringify({
      counterpartyDetails: {
        accountHolderName: 'Acme Supplies Ltd',
        emailAddress: 'payables@acme.example',
        remarks: "O'Neill, net-30 terms",
        address: { addressLine: '1 Main Street', postalCode: '10115', country: 'DE' },
      },
      counterpartyAccounts: [
        {
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'BUSINESS',
          name: 'Main Account',
          accountIdentifier: { type: 'IBAN', value: 'DE89370400440532013000' },
          country: 'DE',
          currency: 'EUR',
        },
      ],
    }),
  },
  {
    method: 'GET',
    url: `${BASE}/bills?status=OPEN&counterpartyReference=ACME-0001&page=0&pageSize=20`,
    headers: AUTH,
  },
];
const large: HttpRequest = {
  method: 'POST',
  url: `${BASE}/bills`,
  headers: JSON_AUTH,
  body: JSON.stringify({ notes: 'x'.repeat(64 * 1024) }),
};

const mix: HttpRequest[] = [
  ...loadVectorFiles().flatMap((f) => f.cases.map((c) => requestOf(f, c))),
  ...ruleCases().flatMap((c) => [c.holds, c.breaks]),
  ...openCases().map((c) => c.request),
  ...Array.from({ length: 50 }, () => typical).flat(),
];

function measure(requests: readonly HttpRequest[], rounds: number): { perSecond: number; cpuMicros: number } {
  // Warm: ajv's validators compile on first use, and the JIT settles on the mix.
  for (let i = 0; i < 20; i++) for (const r of requests) modelRequest(r, ENUMERATION_OPTIONS);
  const cpu = cpuUsage();
  const started = performance.now();
  for (let i = 0; i < rounds; i++) for (const r of requests) modelRequest(r, ENUMERATION_OPTIONS);
  const wall = performance.now() - started;
  const used = cpuUsage(cpu);
  const n = requests.length * rounds;
  return { perSecond: Math.round(n / (wall / 1000)), cpuMicros: (used.user + used.system) / n };
}

const all = measure(mix, ROUNDS);
console.log(
  `mix of ${mix.length} requests × ${ROUNDS}: ${all.perSecond} requests/s, ${all.cpuMicros.toFixed(1)} µs CPU per request`,
);
const big = measure([large], ROUNDS * 2);
console.log(`a 64 KiB bill: ${big.perSecond} requests/s, ${big.cpuMicros.toFixed(0)} µs CPU per request`);
console.log(`a run of 3000 exchanges: about ${((3000 * all.cpuMicros) / 1000).toFixed(0)} ms of CPU`);
