/**
 * Findings grouped by cause (engine/finding-groups.ts): the shape of what was received, the
 * keeper that keeps a few findings per cause and counts them all, and the reports of two gallery
 * variants: one that answers 500 to unknown references (a short report: one group per cause, with
 * its count and distinct inputs), and one whose PATCH findings rest on the reads around it (each
 * exchange labelled with its role).
 */
import { expect, test } from '@playwright/test';
import { causeOf, FindingKeeper, MAX_FINDINGS_PER_CAUSE, shapeOf } from '../../engine/finding-groups.ts';
import type { Finding } from '../../engine/types.ts';
import { renderHtml } from '../../reporter/html.ts';
import { causeSentence } from '../../reporter/sentences.ts';
import { renderJunit } from '../../reporter/junit.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import { formatSummary } from '../../reporter/console.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { ReferenceServer, type Counterparty } from '../../servers/reference.ts';
import { galleryTarget, runSuite, type SuiteRun } from './suite-runner.ts';

function finding(url: string, status: number, received: string, input?: unknown): Finding {
  return {
    requirement: 'no-server-error',
    message: `answered ${status}`,
    expected: 'not 5xx',
    received,
    judgedBy: 'server-error',
    request: { method: 'GET', url, headers: {} },
    status,
    ...(input !== undefined ? { input } : {}),
  };
}

test('the shape of a received text leaves out its strings and numbers, not its keys', () => {
  expect(
    shapeOf(
      '500 (application/json; charset=utf-8): {"error":{"code":"E42","message":"no row for \'ab_c\'"}}',
    ),
  ).toBe('0 (application/json; charset=utf-8): {"error":{"code":"…","message":"…"}}');
  expect(shapeOf('500: {"id": 17}')).toBe(shapeOf('500: {"id": 90210}'));
  expect(shapeOf('500: {"id": 17}')).not.toBe(shapeOf('500: {"key": 17}'));
  const a = causeOf(finding('http://h/api/v1/counterparties/a_b', 500, '500: {"m":"a_b"}'));
  const b = causeOf(finding('http://h/api/v1/counterparties/c_d', 500, '500: {"m":"c_d"}'));
  expect(a).toEqual(b);
  expect(a).toMatchObject({ operation: 'getCounterparty', status: 500 });
  expect(causeOf(finding('http://h/api/v1/bills/x_y', 500, '500: {"m":"x_y"}')).operation).toBe('getBill');
});

test('the keeper keeps a few findings per cause, counts them all, and a second cause is not crowded out', () => {
  const keeper = new FindingKeeper();
  const kept: Finding[] = [];
  for (let i = 0; i < 40; i++) {
    const f = finding(
      `http://h/api/v1/counterparties/r_${i % 12}`,
      500,
      `500: {"m":"r_${i}"}`,
      `r_${i % 12}`,
    );
    if (keeper.keep(f)) kept.push(f);
  }
  const other = finding('http://h/api/v1/bills/b_1', 502, '502 (text/html): <html>bad gateway</html>');
  expect(keeper.keep(other)).toBe(true);
  expect(kept).toHaveLength(MAX_FINDINGS_PER_CAUSE);
  const counts = keeper.counts();
  expect(counts.map((c) => [c.operation, c.status, c.count])).toEqual([
    ['getCounterparty', 500, 40],
    ['getBill', 502, 1],
  ]);
  expect(counts[0]!.inputs).toHaveLength(10);
  expect(counts[0]!.moreInputs).toBe(2);
  expect(keeper.notes()).toEqual([
    `no-server-error: ${40 - MAX_FINDINGS_PER_CAUSE} more finding(s) not kept (counted in their groups)`,
  ]);
});

/** Answers 500 to a GET or PATCH of any counterparty it does not hold: its lookup throws. */
class UnknownIs500 extends ReferenceServer {
  protected override lookup(reference: string): Counterparty | undefined {
    const found = super.lookup(reference);
    if (!found) throw new Error('no row: the lookup assumes the reference exists');
    return found;
  }
}

async function variantRun(id: string): Promise<SuiteRun> {
  const server = id === 'unknown-is-500' ? new UnknownIs500() : GALLERY.find((v) => v.id === id)!.create();
  const baseURL = await server.start(0);
  try {
    return await runSuite(galleryTarget(baseURL));
  } finally {
    await server.stop();
  }
}

function recordOf(run: SuiteRun) {
  return buildRecord({
    outcomes: run.outcomes,
    incomplete: [],
    run: { baseURL: 'http://127.0.0.1:9', seed: 7, runs: 30 },
    startedAt: new Date(0),
    durationMs: 1,
  });
}

test('a deployment answering 500 to unknown references gives a short report: one group per cause, counted', async () => {
  const run = await variantRun('unknown-is-500');
  const record = recordOf(run);
  expect(recordErrors(record)).toEqual([]);
  const v = record.requirements.find((r) => r.id === 'no-server-error')!;
  expect(v.status).toBe('failed');
  // Every finding counted, those not kept included, is in exactly one group.
  const counted = run.outcomes
    .flatMap((o) => o.causes ?? [])
    .filter((c) => c.requirement === 'no-server-error');
  const total = counted.reduce((n, c) => n + c.count, 0);
  expect(total).toBeGreaterThanOrEqual(v.findings.length);
  expect(v.groups.reduce((n, g) => n + g.count, 0)).toBe(total);
  // Findings of several probes, one cause.
  expect(new Set(v.findings.map((f) => f.probe)).size).toBeGreaterThan(1);
  expect(v.groups.length).toBeLessThan(v.findings.length);
  // Few causes: the operations an unknown reference reaches, each answered 500.
  expect(v.groups.length).toBeLessThanOrEqual(3);
  for (const g of v.groups) {
    expect(g.status).toBe(500);
    expect(g.inputs.length).toBeGreaterThan(0);
    expect(v.findings[g.representative]!.status).toBe(500);
  }
  const summary = formatSummary(record);
  const section = summary.slice(summary.indexOf('[FAIL] MUST no-server-error'));
  const block = section.split(/\n {2}(?:\[|Gate)/)[0]!;
  expect(block.match(/ answered 500\. /g)).toHaveLength(v.groups.length);
  expect(block).toContain(`${causeSentence(v.groups[0]!)}. `);
  // Each cause: its line, who judged it, expected, received, the answer and its body, inputs, curl, replay.
  expect(block.split('\n').length, block).toBeLessThanOrEqual(1 + 12 * v.groups.length);
  expect(summary.split('\n').length).toBeLessThan(60);
  const html = renderHtml(record);
  expect(html).toContain(`<h4 class="cause">${causeSentence(v.groups[0]!)}</h4>`);
  expect(causeSentence(v.groups[0]!)).toMatch(
    new RegExp(`^\\d+ times: ${v.groups[0]!.operation} answered 500$`),
  );
  expect(renderJunit(record)).toContain(`${causeSentence(v.groups[0]!)}. `);
});

test('each exchange a PATCH finding rests on is labelled with its role, in the console, JSON and HTML', async () => {
  const run = await variantRun('patch-not-persisted');
  const record = recordOf(run);
  const v = record.requirements.find((r) => r.id === 'patch-persisted')!;
  expect(v.status).toBe('failed');
  const f = v.findings[v.groups[0]!.representative]!;
  const roles = [f.role, ...(f.context ?? []).map((c) => c.role)];
  expect(roles.every((r) => typeof r === 'string' && r.length > 0)).toBe(true);
  expect(new Set(roles).size).toBe(roles.length);
  expect(roles).toContain('PATCH');
  const summary = formatSummary(record);
  for (const c of f.context ?? []) expect(summary).toContain(`${c.role}: ${c.request} -> ${c.status}`);
  const html = renderHtml(record);
  for (const c of f.context ?? []) expect(html).toContain(`<li>${c.role}: <code>`);
});
