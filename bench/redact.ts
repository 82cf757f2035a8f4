/**
 * npx tsx bench/redact.ts [run.har] [report files...]: what redaction (exchange/redact.ts) costs
 * on a run's worth of text, the fast path above all (most texts hold no secret and nothing
 * encoded).
 *
 * The texts: every answer of the HAR a run wrote (its body, and each header value and name, as
 * the HTTP client redacts them on arrival), and then the HAR itself and any report files named, as
 * whole texts (every report file passes through the rule once more as it is written). Without
 * arguments it reads reports/exchanges.har, reports/conformance.json and reports/conformance.html
 * (a run of `npm run conformance` against the embedded reference server makes them).
 * The token is one a real deployment could have (long, URL-safe) and appears nowhere in the
 * texts, as in a run against a conforming deployment. Warmed first, then ROUNDS rounds; CPU time
 * (user + system) is reported beside wall time, since the machine is shared.
 *
 * Not part of npm test; figures are of this machine and whatever else runs on it.
 */
import { readFileSync } from 'node:fs';
import { cpuUsage } from 'node:process';
import { Redactor } from '../exchange/redact.ts';
import { redactorOf, runRedactor } from '../exchange/redactors.ts';

interface HarEntry {
  response: { headers: { name: string; value: string }[]; content: { text?: string } };
}

const ROUNDS = 20;
const TOKEN = 'pf_live_7Qx2vR9sKd3LmN8pWz4TbY6c';

const [harPath = 'reports/exchanges.har', ...others] = process.argv.slice(2);
const reportPaths =
  process.argv.length > 2 ? others : ['reports/conformance.json', 'reports/conformance.html'];
const harText = readFileSync(harPath, 'utf8');
const entries = (JSON.parse(harText) as { log: { entries: HarEntry[] } }).log.entries;
const bodies = entries.map((e) => e.response.content.text ?? '');
const headers = entries.flatMap((e) => e.response.headers);
const texts = [harText, ...reportPaths.map((p) => readFileSync(p, 'utf8'))];

function measure(label: string, fn: () => void): void {
  fn();
  const cpu = cpuUsage();
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) fn();
  const wall = (performance.now() - started) / ROUNDS;
  const used = cpuUsage(cpu);
  const ms = (used.user + used.system) / 1000 / ROUNDS;
  console.log(
    `${label.padEnd(44)} ${ms.toFixed(2).padStart(9)} ms CPU ${wall.toFixed(2).padStart(9)} ms wall`,
  );
}

// As a run makes them: the client's, for answers; the reporter's, for every file written.
const client = runRedactor(TOKEN, []);
const files = redactorOf([TOKEN]);
let sink = 0;
console.log(
  `${entries.length} answers (${bodies.reduce((n, b) => n + b.length, 0)} characters of body, ${headers.length} headers); ` +
    `${texts.length} files (${texts.reduce((n, f) => n + f.length, 0)} characters); ${ROUNDS} rounds, per round:`,
);
measure('answers: body, untouched, header names and values', () => {
  for (const b of bodies) {
    const t = client.text(b);
    sink += client.untouched(t) ? 1 : 0;
  }
  for (const h of headers) sink += client.header(h.name).length + client.header(h.value).length;
});
measure('report files, whole', () => {
  for (const f of texts) sink += files.text(f).length;
});
measure('report files, no secret at all', () => {
  const none = new Redactor();
  for (const f of texts) sink += none.text(f).length;
});
if (sink < 0) console.log(sink);
