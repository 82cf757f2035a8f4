/**
 * The JSON Schema of reports/conformance.json (conformance-record.schema.json beside this
 * file), compiled with ajv (draft 2020-12, with formats), for the self-tests and for anyone
 * who consumes the record.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under ESM its default export may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

export const RECORD_SCHEMA_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  'conformance-record.schema.json',
);

let compiled: ValidateFunction | undefined;

/** The problems of `record` against the schema, one line each (empty: valid). */
export function recordErrors(record: unknown): string[] {
  if (!compiled) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    addFormats(ajv);
    compiled = ajv.compile(JSON.parse(readFileSync(RECORD_SCHEMA_PATH, 'utf8')) as object);
  }
  if (compiled(record)) return [];
  return (compiled.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}
