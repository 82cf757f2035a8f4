/**
 * JSON of any depth is judged or said to be too deep, never a crash (exchange/json-body.ts): a body
 * nested deeper than MAX_JSON_DEPTH is kept as text without a value, so nothing walks it; the
 * redaction of a value walks without recursion; the request model calls such a body open; and the
 * two commands that read traffic they did not send keep and judge an exchange whose answer nests
 * 3,000 levels deep: `validate` of a HAR file holding one ends with its report (exit 1, the
 * finding saying why), and the validating proxy keeps it in its exchanges.har. The suite's own run
 * against such an answer is tests/self/hostile.spec.ts's ('answers-deep-json').
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Exchange } from '../../exchange/exchange.ts';
import { harOfExchanges, type Har } from '../../exchange/har.ts';
import { MAX_JSON_DEPTH, readJsonBody, responseBody, tooDeepText } from '../../exchange/json-body.ts';
import { Redactor } from '../../exchange/redact.ts';
import { modelRequest } from '../../requests/index.ts';
import { sampleRequest, withBody } from '../../requests/samples.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { deepJson, DEEP_ANSWER_LEVELS } from '../../servers/gallery/hostile-bodies.ts';
import { HOSTILE_VARIANTS } from '../../servers/gallery/index.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN } from '../../servers/reference.ts';
import {
  nodeTs,
  removeTemporaryDirectories,
  ROOT,
  runNode,
  temporaryDirectory,
  TSX_LOADER,
} from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** An array nested `levels` deep, built without recursion (no text to parse). */
function nestedValue(levels: number, bottom: unknown): unknown {
  let v: unknown = bottom;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { x: v };
  return v;
}

test(`a body is read as a value down to ${MAX_JSON_DEPTH} levels; deeper, as JSON without a value, its depth said`, () => {
  const at = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
  expect(readJsonBody(at(MAX_JSON_DEPTH))).toEqual({ value: JSON.parse(at(MAX_JSON_DEPTH)) });
  expect(readJsonBody(at(MAX_JSON_DEPTH + 1))).toEqual({ tooDeep: MAX_JSON_DEPTH + 1 });
  // Brackets in strings, escaped quotes and white space do not nest.
  const strings = `[${JSON.stringify('['.repeat(500) + '\\"{')}, ${' '.repeat(1000)}{"a": "]]]"}]`;
  expect(readJsonBody(strings)?.value).toEqual(JSON.parse(strings));
  expect(readJsonBody(deepJson(DEEP_ANSWER_LEVELS))).toEqual({ tooDeep: DEEP_ANSWER_LEVELS });
  // Two million levels (4 MB): JSON.parse does not recurse; nothing else sees a value.
  expect(responseBody(at(2_000_000))).toEqual({ body: undefined, tooDeep: 2_000_000 });
  expect(readJsonBody(`${at(MAX_JSON_DEPTH + 1)}x`)).toBeUndefined();
  expect(readJsonBody('')).toBeUndefined();
  expect(tooDeepText(3000)).toBe(
    `JSON nested 3000 levels deep, deeper than the ${MAX_JSON_DEPTH} the suite reads: too deep to judge`,
  );
});

test('the redaction of a value walks it without recursion: 100,000 levels, the secret at the bottom replaced', () => {
  const redactor = new Redactor([{ value: 'sEcReT-0123456789', shownAs: '$X', everywhere: true }]);
  const deep = nestedValue(100_000, 'a sEcReT-0123456789 here');
  let v = redactor.value(deep);
  expect(v).not.toBe(deep);
  for (let i = 100_000 - 1; i >= 0; i--) v = i % 2 === 0 ? (v as unknown[])[0] : (v as { x: unknown }).x;
  expect(v).toBe('a $X here');
  // Nothing to replace: the value itself, not a copy.
  const clean = nestedValue(100_000, 'nothing');
  expect(redactor.value(clean)).toBe(clean);
  // Keys are redacted too, __proto__ stays an own key.
  const keys = JSON.parse('{"__proto__": {"sEcReT-0123456789": 1}, "b": [2]}') as Record<string, unknown>;
  const out = redactor.value(keys);
  expect(JSON.stringify(out)).toBe('{"__proto__":{"$X":1},"b":[2]}');
  expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
});

test('the request model calls a body nested 3,000 deep open (RFC 8259 §9), not broken, and judges nothing in it', () => {
  const patch = sampleRequest('patchCounterparty');
  const body = `{"counterpartyDetails":{"remarks":"x"},"counterpartyAccounts":${deepJson(DEEP_ANSWER_LEVELS)}}`;
  const m = modelRequest(withBody(patch, body));
  expect(m.verdict).toBe('undetermined');
  expect(m.broken).toEqual([]);
  expect(m.open.map((o) => o.point)).toEqual(['body-json-too-deep']);
  expect(m.body.kind).toBe('too-deep');
});

/** An exchange of GET of the known counterparty answered 200 with `text`. */
function answered(text: string): Exchange {
  return {
    id: 1,
    request: {
      method: 'GET',
      url: `http://127.0.0.1:9/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`,
      headers: { Accept: 'application/json', Authorization: `Bearer ${REFERENCE_TOKEN}-recorded` },
    },
    status: 200,
    headers: { 'content-type': 'application/json' },
    text,
    body: undefined,
    startedAt: Date.UTC(2026, 0, 1),
    durationMs: 1,
    attempts: 1,
    origin: {},
  };
}

test('validate of a HAR file holding an answer nested 3,000 deep: its report, exit 1, the finding saying it is too deep to judge', async () => {
  const work = temporaryDirectory('payflow-deep-');
  const har = join(work, 'deep.har');
  const text = `{"x":${deepJson(DEEP_ANSWER_LEVELS)},"counterpartyReference":"${REFERENCE_COUNTERPARTY}"}`;
  writeFileSync(har, JSON.stringify(harOfExchanges([answered(text)], 'test')));
  const r = await runNode(nodeTs('bin/validate.ts', har), {}, work);
  expect(r.code, r.stdout + r.stderr).toBe(1);
  const record = JSON.parse(
    readFileSync(join(work, 'reports', 'conformance.json'), 'utf8'),
  ) as ConformanceRecord;
  expect(record.traffic).toMatchObject({ exchanges: 1, judged: 1 });
  const failed = record.requirements.filter((q) => q.status === 'failed');
  expect(failed.map((q) => q.id)).toEqual(['counterparty-schema']);
  // The member, inside the counterparty object: one level more.
  expect(failed[0]!.findings[0]!.message).toContain(tooDeepText(DEEP_ANSWER_LEVELS + 1));
  // Well-formed all the same.
  expect(record.requirements.find((q) => q.id === 'json-well-formed')!.status).toBe('passed');
});

test('the validating proxy keeps an exchange whose answer nests 3,000 deep in its exchanges.har, and judges it', async () => {
  test.setTimeout(60_000);
  const upstream = HOSTILE_VARIANTS.find((v) => v.id === 'answers-deep-json')!.create();
  const base = await upstream.start();
  try {
    const work = temporaryDirectory('payflow-deep-proxy-');
    const reports = join(work, 'reports');
    // One process, as `npm run validate` runs it; it stops by itself after --duration.
    const child = spawn(
      process.execPath,
      ['--import', TSX_LOADER, join(ROOT, 'bin', 'validate.ts'), '--proxy', '--port', '0', '--duration', '3'],
      {
        cwd: work,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: work,
          API_BASE_URL: base,
          API_TOKEN: REFERENCE_TOKEN,
          CONFORMANCE_REPORTS_DIR: reports,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const closed = new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.on('close', () => reject(new Error(`the proxy exited: ${stderr}`)));
    });
    const answer = await fetch(`${url}/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`, {
      headers: { Authorization: `Bearer ${REFERENCE_TOKEN}` },
    });
    const body = await answer.text();
    expect(body.length).toBeGreaterThan(4 * DEEP_ANSWER_LEVELS);
    const code = await closed;
    expect(code, stdout + stderr).toBe(1);
    expect(stderr).not.toContain('an exchange failed');
    const entries = (JSON.parse(readFileSync(join(reports, 'exchanges.har'), 'utf8')) as Har).log.entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]!.response.content.text).toBe(body);
    const record = JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceRecord;
    expect(record.traffic).toMatchObject({ exchanges: 1, judged: 1 });
    expect(record.requirements.find((q) => q.id === 'counterparty-schema')!.status).toBe('failed');
  } finally {
    await upstream.stop();
  }
});
