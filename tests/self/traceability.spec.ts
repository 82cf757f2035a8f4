/**
 * One hop from a report line to the code and to the words: every oracle and probe named in a
 * finding resolves to the file that defines it, and every requirement names the oracles and
 * probes that judge it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ORACLES, oracleFile } from '../../oracles/index.ts';
import { PROBES, probeFile, specFileOf } from '../../probes/index.ts';
import { judgeName, provenance } from '../../reporter/provenance.ts';
import { REQUIREMENTS } from '../../spec/requirements.ts';

const ROOT = join(import.meta.dirname, '..', '..');

test('every oracle lives in oracles/<id>.ts, which defines it', () => {
  for (const o of ORACLES) {
    const file = oracleFile(o.id)!;
    expect(existsSync(join(ROOT, file)), file).toBe(true);
    expect(readFileSync(join(ROOT, file), 'utf8')).toContain(`id: '${o.id}'`);
  }
});

test('every probe names the file that defines it', () => {
  for (const p of PROBES) {
    const file = probeFile(p.id);
    expect(file, p.id).toBeDefined();
    expect(readFileSync(join(ROOT, file!), 'utf8')).toContain(`id: '${p.id}'`);
  }
});

test('every probe runs in a spec file of the suite that defines it', () => {
  for (const p of PROBES) {
    const file = join(ROOT, 'tests', 'conformance', specFileOf(p));
    expect(existsSync(file), `${p.id}: ${specFileOf(p)}`).toBe(true);
    if (p.access === 'read') expect(readFileSync(file, 'utf8')).toContain(`defineProbes('${p.group}')`);
  }
});

test('ids are unique across oracles and probes, and every requirement is judged by one of them', () => {
  const ids = [...ORACLES.map((o) => o.id), ...PROBES.map((p) => p.id)];
  expect(new Set(ids).size).toBe(ids.length);
  const judged = new Set([...ORACLES.flatMap((o) => o.requirements), ...PROBES.flatMap((p) => p.judges)]);
  expect(REQUIREMENTS.map((r) => r.id).filter((id) => !judged.has(id))).toEqual([]);
});

test('a finding names its judge and its sender with their files', () => {
  expect(judgeName('reference-status')).toBe('oracle reference-status (oracles/reference-status.ts)');
  expect(judgeName('patch-valid-details')).toBe('probe patch-valid-details (probes/counterparty-patch.ts)');
  expect(
    provenance({
      requirement: 'patch-persisted',
      message: 'm',
      expected: 'e',
      received: 'r',
      judgedBy: 'patch-update',
      sentBy: 'patch-valid-details',
      role: 'read after PATCH',
    }),
  ).toBe(
    'judged by oracle patch-update (oracles/patch-update.ts), on the exchange “read after PATCH” sent by probe patch-valid-details (probes/counterparty-patch.ts)',
  );
});
