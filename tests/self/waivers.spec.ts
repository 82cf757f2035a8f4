/**
 * The gate a team tunes: the waiver file's parser (every malformed file is one error naming its
 * line), where the file is found, how waivers apply to verdicts (active, expired, stale,
 * unused, unknown), strict mode (which fails on a waiver that waives nothing), and what the record,
 * the page and the console summary say about them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Finding, ProbeOutcome } from '../../engine/types.ts';
import { ConfigError } from '../../config/error.ts';
import { REQUIREMENTS, type RequirementId } from '../../spec/requirements.ts';
import { parseStrict } from '../../config/gate.ts';
import { applyWaivers, isExpired } from '../../reporter/gate.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import { formatSummary } from '../../reporter/console.ts';
import { renderHtml } from '../../reporter/html.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import {
  DEFAULT_WAIVER_FILE,
  isIsoDate,
  loadWaivers,
  parseWaivers,
  resolveWaiverFile,
  WaiverError,
  type Waiver,
} from '../../config/waivers.ts';
import { verdicts } from '../../engine/verdicts.ts';

const NOW = new Date('2026-03-15T12:00:00Z');

const VALID = `# Known deviations of the sandbox
waivers:
  - requirement: timestamp-format
    reason: the ledger writes milliseconds; fix planned in PAY-1234
    expires: 2026-06-30
  - requirement: sunset-document-format
    reason: "gateway rewrites Sunset as an HTTP-date"
    expires: '2026-03-15'
`;

test.describe('parseWaivers', () => {
  test('reads every waiver with its line', () => {
    expect(parseWaivers(VALID, 'w.yaml')).toEqual([
      {
        requirement: 'timestamp-format',
        reason: 'the ledger writes milliseconds; fix planned in PAY-1234',
        expires: '2026-06-30',
        line: 3,
      },
      {
        requirement: 'sunset-document-format',
        reason: 'gateway rewrites Sunset as an HTTP-date',
        expires: '2026-03-15',
        line: 6,
      },
    ]);
  });

  test('an empty file, a file of comments and an empty list hold no waivers; a bare list is accepted', () => {
    for (const text of ['', '# nothing yet\n', 'waivers:\n', 'waivers: []\n'])
      expect(parseWaivers(text, 'w.yaml')).toEqual([]);
    expect(
      parseWaivers('- requirement: counterparty-json\n  reason: r\n  expires: 2030-01-01\n', 'w.yaml'),
    ).toHaveLength(1);
  });

  const malformed: [string, string, number, RegExp][] = [
    [
      'a YAML syntax error',
      'waivers:\n  - requirement: [timestamp-format\n    reason: x\n',
      3,
      /not valid YAML/,
    ],
    [
      'a requirement that is not a text',
      'waivers:\n  - requirement: [timestamp-format]\n    reason: x\n    expires: 2026-01-01\n',
      2,
      /the requirement must be an id of the catalogue, got 'timestamp-format'/,
    ],
    [
      'an empty reason',
      'waivers:\n  - requirement: timestamp-format\n    reason: "  "\n    expires: 2026-01-01\n',
      3,
      /non-empty reason/,
    ],
    [
      'a missing expiry',
      '\nwaivers:\n  - requirement: timestamp-format\n    reason: x\n',
      3,
      /has no 'expires'/,
    ],
    [
      'a date in another form',
      'waivers:\n  - requirement: timestamp-format\n    reason: x\n    expires: 30/06/2026\n',
      4,
      /expires must be a date YYYY-MM-DD, got '30\/06\/2026'/,
    ],
    [
      'a date that does not exist',
      'waivers:\n  - requirement: timestamp-format\n    reason: x\n    expires: 2026-02-30\n',
      4,
      /expires must be a date/,
    ],
    [
      'a number for a date',
      'waivers:\n  - requirement: timestamp-format\n    reason: x\n    expires: 20260630\n',
      4,
      /got '20260630'/,
    ],
    [
      'a misspelt field',
      'waivers:\n  - requirement: timestamp-format\n    reason: x\n    expiry: 2026-06-30\n',
      4,
      /unknown field 'expiry'/,
    ],
    [
      'a requirement waived twice',
      'waivers:\n  - requirement: timestamp-format\n    reason: x\n    expires: 2026-06-30\n  - requirement: timestamp-format\n    reason: y\n    expires: 2026-07-30\n',
      5,
      /already waived at line 2/,
    ],
    [
      'a key given twice in one waiver',
      'waivers:\n  - requirement: timestamp-format\n    reason: x\n    reason: y\n    expires: 2026-06-30\n',
      4,
      /not valid YAML: Map keys must be unique/,
    ],
    [
      'an unknown top-level key',
      'waiver:\n  - requirement: timestamp-format\n',
      1,
      /unknown top-level key 'waiver'/,
    ],
    ['waivers that are not a list', 'waivers:\n  requirement: timestamp-format\n', 2, /must be a list/],
    ['a waiver that is not a mapping', 'waivers:\n  - timestamp-format\n', 2, /each waiver is a mapping/],
  ];
  for (const [name, text, line, message] of malformed) {
    test(`a malformed file is one error naming its line: ${name}`, () => {
      let error: unknown;
      try {
        parseWaivers(text, 'conformance-waivers.yaml');
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WaiverError);
      expect(error).toBeInstanceOf(ConfigError);
      const e = error as WaiverError;
      expect(e.line).toBe(line);
      expect(e.message).toMatch(message);
      expect(e.message).toContain(`waiver file conformance-waivers.yaml, line ${line}: `);
      expect(e.message.split('\n')).toHaveLength(1);
    });
  }

  test('isIsoDate accepts only real calendar dates written YYYY-MM-DD', () => {
    expect(['2026-06-30', '2024-02-29'].every(isIsoDate)).toBe(true);
    expect(['2026-6-30', '2025-02-29', '2026-13-01', '2026-06-30T00:00:00Z', ''].some(isIsoDate)).toBe(false);
  });
});

test.describe('the waiver file', () => {
  test('is CONFORMANCE_WAIVERS, else conformance-waivers.yaml in the working directory, else none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payflow-waivers-'));
    expect(resolveWaiverFile({}, dir)).toBeUndefined();
    writeFileSync(join(dir, DEFAULT_WAIVER_FILE), VALID);
    expect(resolveWaiverFile({}, dir)).toBe(join(dir, DEFAULT_WAIVER_FILE));
    expect(resolveWaiverFile({ CONFORMANCE_WAIVERS: 'none' }, dir)).toBeUndefined();
    mkdirSync(join(dir, 'ci'));
    writeFileSync(join(dir, 'ci', 'w.yaml'), 'waivers: []\n');
    expect(resolveWaiverFile({ CONFORMANCE_WAIVERS: 'ci/w.yaml' }, dir)).toBe(join(dir, 'ci', 'w.yaml'));
    expect(() => resolveWaiverFile({ CONFORMANCE_WAIVERS: 'ci/missing.yaml' }, dir)).toThrow(
      /CONFORMANCE_WAIVERS names ci\/missing.yaml, which does not exist/,
    );
    const loaded = loadWaivers({}, dir);
    expect(loaded.file).toBe(join(dir, DEFAULT_WAIVER_FILE));
    expect(loaded.waivers.map((w) => w.requirement)).toEqual(['timestamp-format', 'sunset-document-format']);
  });

  test('a malformed file is named relative to the working directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payflow-waivers-'));
    writeFileSync(join(dir, DEFAULT_WAIVER_FILE), 'waivers:\n  - requirement: 12\n');
    expect(() => loadWaivers({}, dir)).toThrow(
      /^waiver file conformance-waivers.yaml, line 2: the requirement must be an id of the catalogue, got '12'/,
    );
  });
});

/** An outcome of a made-up check covering `requirements`, with findings for `broken`. */
function outcome(probe: string, requirements: RequirementId[], broken: RequirementId[] = []): ProbeOutcome {
  const findings: Finding[] = broken.map((id) => ({
    requirement: id,
    message: `${id} is broken`,
    expected: 'the rule',
    received: 'something else',
    judgedBy: probe,
    curl: `curl -sS -i -X GET 'http://127.0.0.1:9/x' -H "Authorization: Bearer $API_TOKEN"`,
  }));
  return {
    probe,
    title: `${probe} title`,
    requirements,
    status: 'ran',
    findings,
    judged: Object.fromEntries(requirements.map((id) => [id, 1])),
    notApplicable: [],
    requests: 1,
    notes: [],
    durationMs: 5,
  };
}

function waiver(requirement: RequirementId, expires: string, line = 2): Waiver {
  return { requirement, reason: `reason for ${requirement}`, expires, line };
}

const ALL = REQUIREMENTS.map((r) => r.id as RequirementId);

test.describe('the gate', () => {
  test('waivers are applied, expired, stale or unused; a waiver applies through its expiry day', () => {
    const vs = verdicts([
      outcome(
        'c1',
        ['timestamp-format', 'counterparty-json', 'sunset-document-format', 'counterparty-schema'],
        ['timestamp-format', 'sunset-document-format', 'counterparty-schema'],
      ),
    ]);
    const gate = applyWaivers(
      vs,
      [
        waiver('timestamp-format', '2026-03-15'),
        waiver('sunset-document-format', '2027-01-01'),
        waiver('counterparty-schema', '2026-03-14'),
        waiver('counterparty-json', '2027-01-01'),
        waiver('collection-routed', '2027-01-01'),
      ],
      NOW,
    );
    expect(gate.waivers.map((w) => [w.requirement, w.status])).toEqual([
      ['timestamp-format', 'applied'],
      ['sunset-document-format', 'applied'],
      ['counterparty-schema', 'expired'],
      ['counterparty-json', 'stale'],
      ['collection-routed', 'unused'],
    ]);
    expect(gate.statuses.get('timestamp-format')?.status).toBe('waived');
    expect(gate.statuses.get('sunset-document-format')?.status).toBe('waived');
    expect(gate.statuses.get('counterparty-schema')?.status).toBe('failed');
    expect(gate.statuses.get('counterparty-json')?.status).toBe('passed');
    expect(isExpired({ expires: '2026-03-15' }, new Date('2026-03-15T23:59:59Z'))).toBe(false);
    expect(isExpired({ expires: '2026-03-15' }, new Date('2026-03-16T00:00:00Z'))).toBe(true);
  });

  const base = {
    incomplete: [],
    run: { baseURL: 'http://127.0.0.1:9', seed: 7, runs: 10 },
    startedAt: NOW,
    durationMs: 1234,
    now: NOW,
  };
  const outcomes = [outcome('c1', ALL, ['timestamp-format', 'sunset-document-format'])];

  test('a failed MUST requirement fails the gate; waived, it does not', () => {
    const failing = buildRecord({ ...base, outcomes });
    expect(failing.verdict).toBe('fail');
    expect(failing.gateReasons).toEqual(['1 MUST requirement(s) failed: timestamp-format']);
    const waived = buildRecord({
      ...base,
      outcomes,
      waivers: { file: 'w.yaml', waivers: [waiver('timestamp-format', '2026-12-31')] },
    });
    expect(waived.verdict).toBe('pass');
    expect(waived.gateReasons).toEqual([]);
    expect(waived.counts.MUST.waived).toBe(1);
    expect(waived.counts.MUST.failed).toBe(0);
    const entry = waived.requirements.find((r) => r.id === 'timestamp-format')!;
    expect(entry.status).toBe('waived');
    expect(entry.findings).toHaveLength(1);
    expect(entry.waiver).toMatchObject({ status: 'applied', expires: '2026-12-31' });
  });

  test('an expired waiver no longer waives; stale and expired waivers are listed in the summary', () => {
    const record = buildRecord({
      ...base,
      outcomes,
      waivers: {
        file: 'w.yaml',
        waivers: [waiver('timestamp-format', '2026-01-31', 2), waiver('counterparty-json', '2026-12-31', 5)],
      },
    });
    expect(record.verdict).toBe('fail');
    expect(record.waivers.entries.map((w) => w.status)).toEqual(['expired', 'stale']);
    const summary = formatSummary(record);
    expect(summary).toContain('Waivers (w.yaml): 0 applied, 1 expired, 1 stale, 0 unused');
    expect(summary).toContain('[expired waiver] line 2, timestamp-format: expired on 2026-01-31');
    expect(summary).toContain(
      '[stale waiver] line 5, counterparty-json: counterparty-json passed in this run',
    );
    expect(summary).toContain('(its waiver expired on 2026-01-31)');
    expect(summary).toContain('Gate: 1 MUST requirement(s) failed: timestamp-format');
  });

  test('strict mode fails the gate on a SHOULD warning, unless it is waived', () => {
    const shouldOnly = [outcome('c1', ALL, ['sunset-document-format'])];
    expect(buildRecord({ ...base, outcomes: shouldOnly }).verdict).toBe('pass');
    const strict = buildRecord({ ...base, outcomes: shouldOnly, strict: true });
    expect(strict.verdict).toBe('fail');
    expect(strict.strict).toBe(true);
    expect(strict.gateReasons).toEqual([
      '1 SHOULD requirement(s) warned in strict mode: sunset-document-format',
    ]);
    expect(formatSummary(strict)).toContain('strict: SHOULD warnings fail the gate');
    const waived = buildRecord({
      ...base,
      outcomes: shouldOnly,
      strict: true,
      waivers: { file: 'w.yaml', waivers: [waiver('sunset-document-format', '2026-12-31')] },
    });
    expect(waived.verdict).toBe('pass');
    expect(formatSummary(waived)).toMatch(/\[WAIV\] SHOULD sunset-document-format .*waived until 2026-12-31/);
  });

  test('a check that produced no outcome (a missing shard) fails the gate', () => {
    const record = buildRecord({
      ...base,
      outcomes: [outcome('c1', ALL)],
      expectedProbes: ['c1', 'c2'],
    });
    expect(record.verdict).toBe('fail');
    expect(record.incomplete).toEqual([expect.objectContaining({ test: 'c2' })]);
    expect(record.gateReasons[0]).toMatch(/1 check\(s\) did not complete: c2/);
    const skippedTest = buildRecord({
      ...base,
      outcomes: [outcome('c1', ALL)],
      expectedProbes: ['c1', 'c2'],
      endedTests: ['c1: title', 'c2: skipped before it ran'],
    });
    expect(skippedTest.incomplete).toEqual([]);
  });

  test('CONFORMANCE_STRICT is 1/true/yes or 0/false/no/empty; anything else is a configuration error', () => {
    for (const on of ['1', 'true', 'YES', ' on ']) expect(parseStrict(on)).toBe(true);
    for (const off of [undefined, '', '0', 'false', 'no']) expect(parseStrict(off)).toBe(false);
    expect(() => parseStrict('sometimes')).toThrow(ConfigError);
  });

  test('a stale waiver (its requirement passed) and one naming no requirement are reported; --strict fails the gate on them', () => {
    const outcomes = [outcome('c1', ALL, ['timestamp-format'])];
    const parsed = parseWaivers(
      'waivers:\n  - requirement: counterparty-json\n    reason: r\n    expires: 2026-12-31\n  - requirement: timestamps\n    reason: r\n    expires: 2026-12-31\n  - requirement: timestamp-format\n    reason: r\n    expires: 2026-12-31\n  - requirement: counterparty-schema\n    reason: r\n    expires: 2026-01-01\n',
      'w.yaml',
    );
    // A waiver naming no requirement is read, not refused: the run goes on and says so.
    expect(parsed.map((w) => [w.requirement, w.line])).toEqual([
      ['counterparty-json', 2],
      ['timestamps', 5],
      ['timestamp-format', 8],
      ['counterparty-schema', 11],
    ]);
    const waivers = { file: 'w.yaml', waivers: parsed };
    const lenient = buildRecord({ ...base, outcomes, waivers });
    expect(recordErrors(lenient)).toEqual([]);
    expect(lenient.waivers.entries.map((w) => [w.requirement, w.status])).toEqual([
      ['counterparty-json', 'stale'],
      ['timestamps', 'unknown'],
      ['timestamp-format', 'applied'],
      // Passed, and expired too: stale, whatever its date.
      ['counterparty-schema', 'stale'],
    ]);
    expect(lenient.verdict).toBe('pass');
    const summary = formatSummary(lenient);
    expect(summary).toContain(
      'Waivers (w.yaml): 1 applied, 0 expired, 2 stale, 0 unused, 1 naming no requirement (--strict fails the gate on stale ones)',
    );
    expect(summary).toContain(
      '[stale waiver] line 2, counterparty-json: counterparty-json passed in this run: remove the waiver',
    );
    expect(summary).toContain(
      '[unknown waiver] line 5, timestamps: timestamps is no requirement of the catalogue (spec/requirements.ts): correct the id or remove the waiver',
    );
    const html = renderHtml(lenient);
    expect(html).toContain('<strong>Waivers that waive nothing</strong> (with --strict they fail the gate)');
    expect(html).toContain(
      '<li>line 5, <code>timestamps</code>: timestamps is no requirement of the catalogue',
    );
    expect(html).toContain('<span class="wstatus unknown">unknown</span>');

    const strict = buildRecord({ ...base, outcomes, waivers, strict: true });
    expect(recordErrors(strict)).toEqual([]);
    expect(strict.verdict).toBe('fail');
    expect(strict.gateReasons).toEqual([
      '3 waiver(s) that waive nothing, in strict mode: line 2, counterparty-json (it passed); line 5, timestamps (no such requirement); line 11, counterparty-schema (it passed)',
    ]);
    expect(formatSummary(strict)).toContain('Gate: 3 waiver(s) that waive nothing, in strict mode');
    expect(renderHtml(strict)).toContain('(they fail the gate in strict mode)');
    // An unused waiver (its requirement not judged in this run) is no reason to fail, strict or not.
    const unused = buildRecord({
      ...base,
      outcomes: [
        outcome(
          'c1',
          ALL.filter((id) => id !== 'collection-routed'),
          ['timestamp-format'],
        ),
      ],
      strict: true,
      waivers: {
        file: 'w.yaml',
        waivers: [waiver('timestamp-format', '2026-12-31'), waiver('collection-routed', '2026-12-31', 5)],
      },
    });
    expect(unused.waivers.entries.map((w) => w.status)).toEqual(['applied', 'unused']);
    expect(unused.gateReasons).toEqual([]);
  });
});
