/**
 * Compares the reports of two seeded runs, timing aside: that a change (a restructuring, say) left
 * what the suite sends and what it concludes as it was.
 *
 *   npx tsx bin/conformance.ts --seed 424242 --reports-dir A      (before the change)
 *   npx tsx bin/conformance.ts --seed 424242 --reports-dir B      (after it)
 *   npx tsx bench/compare-runs.ts A B
 *
 * exchanges.har: per probe, every request (method, URL, headers, body) and its answer (status,
 * headers but Date, body with timestamps blanked), in order; where concurrent requests of a probe
 * went out in another order, as multisets. conformance.json: everything but the start, the
 * durations and the pace, probes keyed by id. junit.xml: its lines, times aside. Ports of the
 * embedded server are blanked everywhere. Exit status 0 when the two runs are the same.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { own } from '../exchange/own.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface HarEntry {
  _probe?: string;
  _role?: string;
  comment?: string;
  request: {
    method: string;
    url: string;
    headers: { name: string; value: string }[];
    postData?: { mimeType: string; text: string };
  };
  response: { status: number; headers: { name: string; value: string }[]; content?: { text?: string } };
}

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const portless = (text: string): string => text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT');
const readJson = <T>(dir: string, name: string): T =>
  JSON.parse(portless(readFileSync(join(dir, name), 'utf8'))) as T;
const key = (x: unknown): string => JSON.stringify(x);

let differences = 0;
function differ(line: string): void {
  differences++;
  console.log(`DIFF ${line}`);
}

function multiset(list: readonly unknown[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of list) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}

/** An entry without its timing: the server stamps updatedAt and Date from the wall clock. */
function exchangeOf(e: HarEntry): unknown {
  return {
    role: e._role ?? null,
    request: {
      method: e.request.method,
      url: e.request.url,
      headers: e.request.headers.map((h) => [h.name, h.value]),
      body: e.request.postData ? [e.request.postData.mimeType, e.request.postData.text] : null,
    },
    response: {
      status: e.response.status,
      headers: e.response.headers
        .filter((h) => h.name.toLowerCase() !== 'date')
        .map((h) => [h.name, h.value]),
      body: (e.response.content?.text ?? '').replace(ISO, 'TIME'),
    },
    comment: e.comment ?? null,
  };
}

function byProbe(dir: string): { total: number; probes: Map<string, unknown[]> } {
  const har = readJson<{ log: { entries: HarEntry[] } }>(dir, 'exchanges.har');
  const probes = new Map<string, unknown[]>();
  for (const e of har.log.entries) {
    const p = e._probe ?? '(none)';
    probes.set(p, [...(probes.get(p) ?? []), exchangeOf(e)]);
  }
  return { total: har.log.entries.length, probes };
}

function compareHar(a: string, b: string): void {
  const ha = byProbe(a);
  const hb = byProbe(b);
  if (ha.total !== hb.total) differ(`exchanges.har: ${ha.total} entries vs ${hb.total}`);
  const ids = [...new Set([...ha.probes.keys(), ...hb.probes.keys()])].sort();
  let inOrder = 0;
  const reordered: string[] = [];
  for (const id of ids) {
    const x = ha.probes.get(id) ?? [];
    const y = hb.probes.get(id) ?? [];
    if (isDeepStrictEqual(x, y)) inOrder++;
    else if (isDeepStrictEqual(multiset(x), multiset(y))) reordered.push(`${id} (${x.length} exchanges)`);
    else differ(`exchanges.har, probe ${id}: ${x.length} vs ${y.length} exchanges, not the same ones`);
  }
  console.log(
    `exchanges.har: ${ha.total} vs ${hb.total} exchanges over ${ids.length} probes; ${inOrder} probes the same in order, ${reordered.length} the same in another order`,
  );
  for (const r of reordered) console.log(`  the same, in another order: ${r}`);
}

function record(dir: string): { [key: string]: Json } {
  const r = readJson<{ [key: string]: Json }>(dir, 'conformance.json');
  for (const k of ['startedAt', 'durationMs', 'pace', 'durations'] as const) delete r[k];
  // Probes end in any order across workers: keyed by id, each without its duration.
  const probes = (r.probes ?? []) as { [key: string]: Json }[];
  r.probes = Object.fromEntries(probes.map(({ durationMs: _d, ...rest }) => [String(rest.probe), rest]));
  for (const q of (r.requirements ?? []) as { [key: string]: Json }[])
    if (Array.isArray(q.probes)) q.probes = [...q.probes].sort();
  return r;
}

function walk(x: Json | undefined, y: Json | undefined, path: string): void {
  if (isDeepStrictEqual(x, y)) return;
  if (x && y && typeof x === 'object' && typeof y === 'object' && Array.isArray(x) === Array.isArray(y)) {
    if (Array.isArray(x) && Array.isArray(y) && x.length !== y.length)
      return differ(`${path}: ${x.length} items vs ${y.length}`);
    const xo = x as { [key: string]: Json };
    const yo = y as { [key: string]: Json };
    for (const k of new Set([...Object.keys(xo), ...Object.keys(yo)]))
      walk(own(xo, k), own(yo, k), `${path}.${k}`);
    return;
  }
  differ(`${path}: ${JSON.stringify(x)?.slice(0, 200)} vs ${JSON.stringify(y)?.slice(0, 200)}`);
}

function compareRecord(a: string, b: string): void {
  const before = differences;
  const ra = record(a);
  const rb = record(b);
  walk(ra, rb, 'conformance.json');
  console.log(
    `conformance.json: verdict ${String(ra.verdict)} vs ${String(rb.verdict)}; ${differences - before} difference(s) but the start, durations and pace`,
  );
}

function compareJunit(a: string, b: string): void {
  if (!existsSync(join(a, 'junit.xml')) || !existsSync(join(b, 'junit.xml'))) return;
  const lines = (dir: string): string[] =>
    portless(readFileSync(join(dir, 'junit.xml'), 'utf8'))
      .replace(/ (time|timestamp)="[^"]*"/g, '')
      .replace(ISO, 'TIME')
      .split('\n');
  const la = lines(a);
  const lb = lines(b);
  if (isDeepStrictEqual([...la].sort(), [...lb].sort()))
    console.log(`junit.xml: the same ${la.length} lines, times aside`);
  else differ(`junit.xml: ${la.length} lines vs ${lb.length}, not the same`);
}

const [a, b] = process.argv.slice(2);
if (a === undefined || b === undefined) {
  console.error('usage: npx tsx bench/compare-runs.ts REPORTS_DIR_BEFORE REPORTS_DIR_AFTER');
  process.exit(2);
}
compareHar(a, b);
compareRecord(a, b);
compareJunit(a, b);
console.log(differences === 0 ? 'SAME: requests, answers and verdicts' : `${differences} difference(s)`);
process.exit(differences === 0 ? 0 : 1);
