/**
 * Every check is proven: after the gallery ran (this project depends on it), each check and
 * each requirement of the catalogue has been tripped by at least one faulty variant.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { CHECKS } from '../../probes/index.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { PATCH_VARIANTS } from '../../servers/gallery/patch.ts';
import { REQUIREMENTS } from '../../spec/requirements.ts';

const RESULTS = join('test-results', 'gallery-results');

function results(): { variant: string; tripped: string[]; trippedChecks: string[] }[] {
  return GALLERY.map((v) => {
    const file = join(RESULTS, `${v.id}.json`);
    expect(existsSync(file), `the gallery run of ${v.id} left no result`).toBe(true);
    return JSON.parse(readFileSync(file, 'utf8'));
  });
}

test('every check is tripped by at least one faulty variant', () => {
  const tripped = new Set(results().flatMap((r) => r.trippedChecks));
  const untripped = CHECKS.map((c) => c.id).filter((id) => !tripped.has(id));
  expect(untripped, 'checks that no variant trips are not finished').toEqual([]);
});

test('every requirement of the catalogue is tripped by at least one faulty variant', () => {
  const tripped = new Set(results().flatMap((r) => r.tripped));
  const untripped = REQUIREMENTS.map((r) => r.id).filter((id) => !tripped.has(id));
  expect(untripped).toEqual([]);
});

test('the gallery holds at least 25 core and 30 PATCH variants, with unique ids', () => {
  const patch = new Set(PATCH_VARIANTS.map((v) => v.id));
  expect(GALLERY.length - patch.size).toBeGreaterThanOrEqual(25);
  expect(patch.size).toBeGreaterThanOrEqual(30);
  expect(new Set(GALLERY.map((v) => v.id)).size).toBe(GALLERY.length);
});
