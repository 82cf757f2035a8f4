/**
 * spec/openapi.yaml's schemas are valid JSON Schema 2020-12. spec/index.ts adds them to ajv
 * without checking them against the meta-schema (that costs every process of a run some 50 ms),
 * so the check is here, and `npm run spec:validate` checks the whole document as OpenAPI 3.1.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { parse } from 'yaml';
import { Spec, SPEC_PATH, spec, type OpenApiDocument } from '../../spec/index.ts';

test("the document's schemas are valid JSON Schema 2020-12", () => {
  expect(spec().schemaErrors()).toEqual([]);
});

test('a schema that is not valid JSON Schema is caught', () => {
  const text = readFileSync(SPEC_PATH, 'utf8');
  // The first `type: string` of the component schemas made a number: no valid schema has it.
  const at = text.indexOf('\n  schemas:');
  expect(at).toBeGreaterThan(0);
  const broken = new Spec(
    parse(text.slice(0, at) + text.slice(at).replace(/type: string/, 'type: 12')) as OpenApiDocument,
  );
  expect(broken.schemaErrors().map((e) => e.keyword)).toContain('type');
});
