/**
 * Test vectors of the request model, as data (in the manner of JSON-Schema-Test-Suite): one JSON
 * file per family of rules, `requests/vectors/<family>.json`, each case a request and what the
 * model must say of it: `"valid": true`, `"outside": true`, or the exact set of rules it breaks
 * (`broken`) and of open points it touches (`open`; both absent means none); `operation` and `params` where the
 * routing is the point. A file gives a base request that each case overrides, and the options
 * (vouched account identifiers) its cases are modelled with. tests/self/request-model.spec.ts
 * runs them all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpRequest, ModelOptions } from '../types.ts';

export interface VectorRequest {
  method?: string;
  url?: string;
  /** A record, or the field lines in order (a repeated name repeated). */
  headers?: Record<string, string> | [string, string][];
}

export interface VectorCase {
  description: string;
  request?: VectorRequest;
  /** The body: a value sent as JSON, text as is, or bytes in base64. At most one. */
  json?: unknown;
  body?: string;
  base64?: string;
  valid?: true;
  /** The URL is not below the interface's prefix: nothing judged. */
  outside?: true;
  broken?: string[];
  open?: string[];
  /** The operation targeted (null: none), and the decoded path parameters. */
  operation?: string | null;
  params?: Record<string, string>;
}

export interface VectorFile {
  family: string;
  /** The sentences the cases rest on, for the reader. */
  specification: string;
  request: Required<Pick<VectorRequest, 'method' | 'url'>> & VectorRequest;
  options?: ModelOptions;
  cases: VectorCase[];
}

export const VECTORS_DIR = import.meta.dirname;

export function loadVectorFiles(): VectorFile[] {
  return readdirSync(VECTORS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(VECTORS_DIR, f), 'utf8')) as VectorFile);
}

/** The request of a case: the file's base request with the case's overrides and body. */
export function requestOf(file: VectorFile, c: VectorCase): HttpRequest {
  const r = { ...file.request, ...c.request };
  const bodies = [c.json !== undefined, c.body !== undefined, c.base64 !== undefined].filter(Boolean).length;
  if (bodies > 1) throw new Error(`${c.description}: more than one of json, body, base64`);
  const body =
    c.json !== undefined
      ? JSON.stringify(c.json)
      : c.base64 !== undefined
        ? new Uint8Array(Buffer.from(c.base64, 'base64'))
        : c.body;
  return {
    method: r.method,
    url: r.url,
    headers: r.headers ?? {},
    ...(body !== undefined ? { body } : {}),
  };
}
