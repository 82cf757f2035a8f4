/**
 * Every check is proven: after the gallery and the hostile gallery ran (this project depends on
 * them), each oracle, each probe that judges something itself, and each requirement of the
 * catalogue has been tripped by at least one faulty or hostile variant.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ORACLES } from '../../oracles/index.ts';
import { PROBES } from '../../probes/index.ts';
import { ANSWER_VARIANTS } from '../../servers/gallery/answers.ts';
import { GALLERY, HOSTILE_VARIANTS } from '../../servers/gallery/index.ts';
import { PATCH_VARIANTS } from '../../servers/gallery/patch.ts';
import { REQUIREMENTS } from '../../spec/requirements.ts';
import { GALLERY_RESULTS } from './suite-runner.ts';

function results(): { variant: string; tripped: string[]; trippedBy: string[] }[] {
  const ids = [...GALLERY.map((v) => v.id), ...HOSTILE_VARIANTS.map((v) => `hostile-${v.id}`)];
  return ids.map((id) => {
    const file = join(GALLERY_RESULTS, `${id}.json`);
    expect(existsSync(file), `the gallery run of ${id} left no result`).toBe(true);
    return JSON.parse(readFileSync(file, 'utf8'));
  });
}

test('every oracle, and every probe that judges, is tripped by at least one faulty variant', () => {
  const tripped = new Set(results().flatMap((r) => r.trippedBy));
  const judges = [...ORACLES.map((o) => o.id), ...PROBES.filter((p) => p.judges.length > 0).map((p) => p.id)];
  const untripped = judges.filter((id) => !tripped.has(id));
  expect(untripped, 'oracles and probes that no variant trips are not finished').toEqual([]);
});

test('every requirement of the catalogue is tripped by at least one faulty variant', () => {
  const tripped = new Set(results().flatMap((r) => r.tripped));
  const untripped = REQUIREMENTS.map((r) => r.id).filter((id) => !tripped.has(id));
  expect(untripped).toEqual([]);
});

test('the gallery holds at least 25 core, 30 PATCH and 12 answer variants, with unique ids', () => {
  const patch = new Set(PATCH_VARIANTS.map((v) => v.id));
  const answers = new Set(ANSWER_VARIANTS.map((v) => v.id));
  expect(GALLERY.length - patch.size - answers.size).toBeGreaterThanOrEqual(25);
  expect(patch.size).toBeGreaterThanOrEqual(30);
  expect(answers.size).toBeGreaterThanOrEqual(12);
  expect(new Set(GALLERY.map((v) => v.id)).size).toBe(GALLERY.length);
});
