/**
 * Every oracle against its test vectors (oracles/vectors/<id>.json): each case judged exactly as
 * the vector says, requirement by requirement, and no requirement judged that the vector does
 * not name; every requirement of every oracle has at least one holding and one violating case.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ORACLES } from '../../oracles/index.ts';
import { judgeCase, loadVectors, summarise, VECTORS_DIR } from '../../oracles/vectors/format.ts';

for (const oracle of ORACLES) {
  test.describe(`oracle ${oracle.id}`, () => {
    test('has a vector file', () => {
      expect(existsSync(join(VECTORS_DIR, `${oracle.id}.json`))).toBe(true);
    });
    if (!existsSync(join(VECTORS_DIR, `${oracle.id}.json`))) return;
    const file = loadVectors(oracle.id);
    test('names itself and covers each requirement both ways', () => {
      expect(file.oracle).toBe(oracle.id);
      for (const id of oracle.requirements) {
        const verdicts = file.cases.map((c) => c.valid[id]);
        expect(verdicts, `${id}: a holding case`).toContain(true);
        expect(verdicts, `${id}: a violating case`).toContain(false);
      }
    });
    for (const c of file.cases) {
      test(c.description, () => {
        const judged = summarise(judgeCase(oracle, c));
        for (const id of Object.keys(judged)) {
          expect(
            oracle.requirements as readonly string[],
            `judged ${id}, which the oracle does not declare`,
          ).toContain(id);
        }
        expect(judged).toEqual(c.valid);
      });
    }
  });
}
