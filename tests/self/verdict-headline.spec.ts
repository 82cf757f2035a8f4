/**
 * The headline of a run, in every renderer: a full pass, a pass that left MUST requirements
 * unexercised, and a failure. The qualified pass says so with its count, in amber, and suggests
 * --require-exercised must, in the console's last line, the HTML banner, junit.xml's properties
 * and system-out, conformance.json's verdict and the workflows' step summary; the exit status of
 * a qualified pass stays 0.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import type { ProbeOutcome } from '../../engine/types.ts';
import { renderHtml } from '../../reporter/html.ts';
import { renderJunit } from '../../reporter/junit.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import { gatePassed } from '../../reporter/gate.ts';
import { headline } from '../../reporter/headline.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { formatSummary, summaryColour } from '../../reporter/console.ts';
import { REQUIREMENTS, type RequirementId } from '../../spec/requirements.ts';
import { removeTemporaryDirectories, ROOT, temporaryDirectory } from './cli-fixtures.ts';

const NOW = new Date('2026-03-15T12:00:00Z');
const ALL = REQUIREMENTS.map((r) => r.id as RequirementId);
const MUST = REQUIREMENTS.filter((r) => r.level === 'MUST').map((r) => r.id as RequirementId);
/** Three MUST requirements a read-only run would leave unjudged. */
const LEFT = MUST.slice(-3);

function outcome(requirements: RequirementId[], findings: ProbeOutcome['findings'] = []): ProbeOutcome {
  return {
    probe: 'c-main',
    title: 'c-main: a behaviour',
    requirements,
    status: 'ran',
    findings,
    judged: Object.fromEntries(requirements.map((id) => [id, 1])),
    notApplicable: [],
    requests: 3,
    notes: [],
    durationMs: 10,
  };
}

function record(outcomes: ProbeOutcome[], requireExercised?: 'must'): ConformanceRecord {
  return buildRecord({
    outcomes,
    incomplete: [],
    run: { baseURL: 'http://127.0.0.1:9', token: 'tok-headline-1', seed: 7, runs: 10 },
    startedAt: NOW,
    durationMs: 1000,
    now: NOW,
    ...(requireExercised ? { requireExercised } : {}),
  });
}

const full = (): ConformanceRecord => record([outcome(ALL)]);
const partial = (): ConformanceRecord => record([outcome(ALL.filter((id) => !LEFT.includes(id)))]);
const failing = (): ConformanceRecord =>
  record([
    outcome(ALL, [
      {
        requirement: MUST[0]!,
        message: 'broken',
        expected: '400',
        received: '200',
        judgedBy: 'reference-status',
      },
    ]),
  ]);

test.describe('conformance.json', () => {
  test('the verdict says pass, pass-unexercised or fail, and each is valid against the schema', () => {
    expect(full().verdict).toBe('pass');
    expect(partial().verdict).toBe('pass-unexercised');
    expect(partial().counts.MUST['not-exercised']).toBe(LEFT.length);
    expect(failing().verdict).toBe('fail');
    for (const r of [full(), partial(), failing()]) expect(recordErrors(r)).toEqual([]);
    // A qualified pass is a pass of the gate: exit status 0.
    expect([full(), partial(), failing()].map(gatePassed)).toEqual([true, true, false]);
  });

  test('--require-exercised must turns the qualified pass into a failure', () => {
    const strict = record([outcome(ALL.filter((id) => !LEFT.includes(id)))], 'must');
    expect(strict.verdict).toBe('fail');
    expect(strict.gateReasons.join('\n')).toContain(`${LEFT.length} MUST requirement(s) not exercised`);
  });

  test('a qualified pass with reasons, or a plain pass with reasons, is refused by the schema', () => {
    const r = partial();
    r.gateReasons = ['a reason'];
    expect(recordErrors(r)).not.toEqual([]);
  });

  test('the headline names the count of the selected MUST requirements', () => {
    const h = headline(partial());
    expect(h).toMatchObject({ tone: 'partial', unexercisedMust: LEFT.length, selectedMust: MUST.length });
    expect(h.text).toBe(
      `Conformance PASSED, ${LEFT.length} of ${MUST.length} MUST requirements not exercised`,
    );
    expect(h.advice).toContain('--require-exercised must');
    expect(headline(full())).toMatchObject({ tone: 'pass', text: 'Conformance PASSED' });
    expect(headline(failing())).toMatchObject({ tone: 'fail', text: 'Conformance FAILED' });
  });
});

test.describe('the console summary', () => {
  test('its last line is the headline: amber with the count for a qualified pass', () => {
    const lines = formatSummary(partial(), ['reports/conformance.json'], { colour: true }).split('\n');
    const last = lines.at(-1)!;
    expect(last).toContain(
      `\u001b[1;33mVerdict: Conformance PASSED, ${LEFT.length} of ${MUST.length} MUST requirements not exercised\u001b[0m`,
    );
    expect(last).toContain('--require-exercised must');
    // The first line too, and each unexercised MUST requirement with its reason.
    expect(lines.find((l) => l.includes('PASSED'))).toContain('\u001b[1;33m');
    for (const id of LEFT) expect(lines.some((l) => l.includes(`[n/e ] MUST ${id}`))).toBe(true);
  });

  test('a full pass ends green and plain; a failure red; no colour unless asked', () => {
    const pass = formatSummary(full(), ['r.json'], { colour: true }).split('\n').at(-1)!;
    expect(pass).toBe('\u001b[1;32mVerdict: Conformance PASSED\u001b[0m');
    const fail = formatSummary(failing(), ['r.json'], { colour: true }).split('\n').at(-1)!;
    expect(fail).toBe('\u001b[1;31mVerdict: Conformance FAILED\u001b[0m');
    const plain = formatSummary(partial(), ['r.json']);
    // eslint-disable-next-line no-control-regex -- matching the escape character is the point
    expect(plain).not.toMatch(/\u001b/);
    expect(plain.split('\n').at(-1)).toMatch(
      /^Verdict: Conformance PASSED, 3 of \d+ MUST requirements not exercised\. /,
    );
  });

  test('colour follows the terminal, FORCE_COLOR and NO_COLOR', () => {
    expect(summaryColour({}, true)).toBe(true);
    expect(summaryColour({}, false)).toBe(false);
    expect(summaryColour({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(summaryColour({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(summaryColour({ NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
  });
});

test.describe('the HTML banner', () => {
  test('amber, with the count and the advice, for a qualified pass; green for a full one', () => {
    const html = renderHtml(partial());
    expect(html).toContain(
      `<header class="verdict partial"><h1 id="verdict">Conformance PASSED, ${LEFT.length} of ${MUST.length} MUST requirements not exercised</h1><p class="advice">`,
    );
    expect(html).toContain('--require-exercised must');
    expect(html).toMatch(/header\.verdict\.partial\{background:var\(--partial\)\}/);
    expect(html).toMatch(/<title>Conformance PASSED, 3 of/);
    const pass = renderHtml(full());
    expect(pass).toContain('<header class="verdict pass"><h1 id="verdict">Conformance PASSED</h1><p>');
    expect(pass).not.toContain('class="advice"');
    expect(renderHtml(failing())).toContain(
      '<header class="verdict fail"><h1 id="verdict">Conformance FAILED</h1>',
    );
  });
});

test.describe('junit.xml', () => {
  test('every suite carries the headline in its properties and system-out; the unexercised are skipped', () => {
    const xml = renderJunit(partial());
    const suites = xml.match(/<testsuite [^>]*>/g)!;
    expect(suites.length).toBeGreaterThan(1);
    const props = xml.match(/<properties>.*?<\/properties>/g)!;
    expect(props).toHaveLength(suites.length);
    for (const p of props) {
      expect(p).toContain('<property name="verdict" value="pass-unexercised"/>');
      expect(p).toContain(
        `<property name="verdict.headline" value="Conformance PASSED, ${LEFT.length} of ${MUST.length} MUST requirements not exercised"/>`,
      );
      expect(p).toContain(`<property name="must.notExercised" value="${LEFT.length}"/>`);
      expect(p).toContain('name="verdict.advice"');
    }
    const outs = xml.match(/<system-out>Conformance PASSED, 3 of \d+ MUST requirements not exercised\n/g)!;
    expect(outs).toHaveLength(suites.length);
    expect(xml).toMatch(
      new RegExp(
        `<testsuites name="payflow-conformance" tests="\\d+" failures="0" errors="0" skipped="${LEFT.length}"`,
      ),
    );
    const plain = renderJunit(full());
    expect(plain).toContain('<property name="verdict.headline" value="Conformance PASSED"/>');
    expect(plain).not.toContain('verdict.advice');
  });
});

test.describe("the workflows' step summary", () => {
  test.afterAll(removeTemporaryDirectories);

  const workflows = ['conformance.yml', 'conformance-sharded.yml'];
  for (const file of workflows)
    test(`${file}: amber with the count for a qualified pass, green for a full pass, red for a failure`, () => {
      const workflow = parse(readFileSync(join(ROOT, '.github', 'workflows', file), 'utf8')) as {
        jobs: Record<string, { steps: { name?: string; run?: string }[] }>;
      };
      const step = Object.values(workflow.jobs)
        .flatMap((j) => j.steps)
        .find((s) => s.name === 'Publish the summary');
      expect(step?.run, 'a step publishes the summary').toBeDefined();
      const summaryOf = (r: ConformanceRecord): string => {
        const dir = temporaryDirectory('verdict-summary-');
        mkdirSync(join(dir, 'reports'));
        writeFileSync(join(dir, 'reports', 'conformance.json'), JSON.stringify(r));
        const out = join(dir, 'summary.md');
        const done = spawnSync('bash', ['-e', '-c', step!.run!], {
          cwd: dir,
          env: { PATH: process.env.PATH, GITHUB_STEP_SUMMARY: out },
          encoding: 'utf8',
        });
        expect(done.status, done.stderr).toBe(0);
        return readFileSync(out, 'utf8');
      };
      const q = summaryOf(partial());
      expect(q.split('\n')[0]).toBe(
        `## :large_orange_diamond: Conformance PASSED, ${LEFT.length} of ${MUST.length} MUST requirements not exercised`,
      );
      expect(q).toContain('--require-exercised must');
      expect(summaryOf(full()).split('\n')[0]).toBe('## :green_circle: Conformance PASSED');
      expect(summaryOf(failing()).split('\n')[0]).toBe('## :red_circle: Conformance FAILED');
    });
});

test.describe('a passing validation', () => {
  test('prints a short verdict: what the traffic did not exercise is one line, not one per requirement', () => {
    const r = buildRecord({
      outcomes: [{ ...outcome(ALL.filter((id) => !LEFT.includes(id))), probe: 'har' }],
      incomplete: [],
      run: { baseURL: 'http://127.0.0.1:9', token: 'tok-headline-1' },
      startedAt: NOW,
      durationMs: 100,
      now: NOW,
      traffic: {
        kind: 'har',
        source: 'session.har',
        exchanges: 3,
        judged: 3,
        outside: { count: 0, requests: [] },
      },
      mode: 'read-only',
    });
    expect(r.verdict).toBe('pass-unexercised');
    const lines = formatSummary(r, ['v/conformance.json']).split('\n');
    expect(lines.filter((l) => l.includes('[n/e ]'))).toEqual([]);
    expect(lines).toContain(
      `  Not exercised by the traffic: ${LEFT.length} requirement(s) (v/conformance.json gives each with its reason)`,
    );
    expect(lines[1]).toMatch(
      /^Validation PASSED, 3 of \d+ MUST requirements not exercised: HAR file session\.har/,
    );
    expect(lines.length).toBeLessThan(10);
  });
});
