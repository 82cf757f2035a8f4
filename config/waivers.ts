/**
 * The waiver file: known deviations a team accepts for a while, each naming a requirement of the
 * catalogue, the reason and the date it expires. A waived failure does not fail the gate until
 * that date has passed. Every problem in the file is a WaiverError with one line naming the file
 * and the line, so `npm run conformance` stops (exit 2) before it sends a request.
 *
 *   waivers:
 *     - requirement: auth-401-bearer-challenge
 *       reason: the gateway answers 403 without a challenge; fix planned in PAY-1234
 *       expires: 2026-06-30
 */
import { createRequire } from 'node:module';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Node, Pair } from 'yaml';
import { ConfigError } from './error.ts';
import { entryExists, INPUT_CAPS, InputFileError, readInputFile } from './input-files.ts';
import { escapeControls } from '../exchange/escape.ts';

/** Used when CONFORMANCE_WAIVERS is unset and this file exists in the working directory. */
export const DEFAULT_WAIVER_FILE = 'conformance-waivers.yaml';
/** CONFORMANCE_WAIVERS=none: no waiver file, even where the default one exists. */
export const NO_WAIVERS = 'none';

export interface Waiver {
  /** A requirement id of the catalogue. */
  requirement: string;
  reason: string;
  /** The last day (UTC) the waiver applies, YYYY-MM-DD. */
  expires: string;
  /** The line of the waiver in its file (1-based). */
  line: number;
}

export interface WaiverFile {
  /** Absolute path of the waiver file, undefined when none applies. */
  file: string | undefined;
  waivers: Waiver[];
}

/** A problem with the waiver file: one line, naming the file and, where known, the line. */
export class WaiverError extends ConfigError {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

const FIELDS = ['requirement', 'reason', 'expires'] as const;

/** Whether `text` is a real calendar date written YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/**
 * The YAML parser, loaded when a waiver file is read: the command, Playwright's runner and the
 * validator all load this module, and loading the parser cost each of them some 20 ms of CPU
 * in a run that has no waiver file. yaml's CommonJS build, so that parsing stays synchronous.
 */
function yamlParser(): typeof import('yaml') {
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}

/**
 * Parses a waiver file's text. `name` is how the file is named in messages. Throws a
 * WaiverError naming the line of the first problem.
 */
export function parseWaivers(text: string, name: string): Waiver[] {
  const { isMap, isScalar, isSeq, LineCounter, parseDocument } = yamlParser();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const at = (line: number | undefined, detail: string): WaiverError =>
    new WaiverError(`waiver file ${name}${line !== undefined ? `, line ${line}` : ''}: ${detail}`, line);
  const lineOf = (node: Node | null | undefined, fallback?: number): number | undefined =>
    node?.range ? lineCounter.linePos(node.range[0]).line : fallback;

  const syntax = doc.errors[0];
  if (syntax) {
    const detail = (syntax.message.split('\n')[0] ?? 'invalid YAML').replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    throw at(syntax.linePos?.[0].line, `not valid YAML: ${detail}`);
  }
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) return [];

  let list: Node | null | undefined;
  if (isSeq(root)) list = root;
  else if (isMap(root)) {
    for (const pair of root.items as Pair<Node, Node | null>[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (key !== 'waivers') {
        throw at(
          lineOf(pair.key),
          `unknown top-level key '${key ?? '?'}' (the file holds one list, 'waivers')`,
        );
      }
      list = pair.value;
      if (list === null || (isScalar(list) && list.value === null)) return [];
    }
    if (list === undefined) return [];
  } else {
    throw at(lineOf(root), "expected a mapping with a 'waivers' list");
  }
  if (!isSeq(list)) throw at(lineOf(list), "'waivers' must be a list of waivers");

  const waivers: Waiver[] = [];
  const seen = new Map<string, number>();
  for (const item of list.items as (Node | null)[]) {
    const itemLine = lineOf(item);
    if (!isMap(item)) {
      throw at(itemLine, 'each waiver is a mapping with requirement, reason and expires');
    }
    const values: Partial<Record<(typeof FIELDS)[number], { value: unknown; line: number | undefined }>> = {};
    for (const pair of item.items as Pair<Node, Node | null>[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '?';
      if (!(FIELDS as readonly string[]).includes(key)) {
        throw at(lineOf(pair.key, itemLine), `unknown field '${key}' (expected ${FIELDS.join(', ')})`);
      }
      const value = pair.value;
      values[key as (typeof FIELDS)[number]] = {
        value: isScalar(value) ? value.value : value === null ? null : value.toJSON(),
        line: lineOf(value, lineOf(pair.key, itemLine)),
      };
    }
    const missing = (field: (typeof FIELDS)[number]): never => {
      throw at(itemLine, `the waiver has no '${field}'`);
    };
    const requirement = values.requirement ?? missing('requirement');
    // An id the catalogue does not hold (a typo, or one a newer suite retired) is no error of the
    // file: the gate judges it "unknown", the reports say so, and strict mode fails on it.
    if (typeof requirement.value !== 'string' || requirement.value.trim() === '') {
      throw at(
        requirement.line,
        `the requirement must be an id of the catalogue, got '${String(requirement.value)}' (see spec/requirements.ts)`,
      );
    }
    const reason = values.reason ?? missing('reason');
    if (typeof reason.value !== 'string' || reason.value.trim() === '') {
      throw at(reason.line, `the waiver of ${requirement.value} needs a non-empty reason`);
    }
    const expires = values.expires ?? missing('expires');
    if (typeof expires.value !== 'string' || !isIsoDate(expires.value)) {
      throw at(
        expires.line,
        `expires must be a date YYYY-MM-DD, got '${String(expires.value)}' (waiver of ${requirement.value})`,
      );
    }
    const earlier = seen.get(requirement.value);
    if (earlier !== undefined) {
      throw at(requirement.line, `${requirement.value} is already waived at line ${earlier}`);
    }
    const line = itemLine ?? 0;
    seen.set(requirement.value, line);
    waivers.push({
      requirement: requirement.value,
      reason: reason.value.trim(),
      expires: expires.value,
      line,
    });
  }
  return waivers;
}

/** How a path is shown in messages: relative to `cwd` where it lies below it. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

/**
 * The waiver file that applies: CONFORMANCE_WAIVERS (relative to `cwd`; it must exist; `none`
 * for no file), else conformance-waivers.yaml in `cwd` if it exists, else none.
 */
export function resolveWaiverFile(env: Record<string, string | undefined>, cwd: string): string | undefined {
  const configured = env.CONFORMANCE_WAIVERS?.trim();
  if (configured === NO_WAIVERS) return undefined;
  if (configured) {
    const path = resolve(cwd, configured);
    if (!entryExists(path)) {
      throw new WaiverError(
        `CONFORMANCE_WAIVERS names ${escapeControls(configured)}, which does not exist (unset it, or set it to '${NO_WAIVERS}', to run without waivers)`,
      );
    }
    return path;
  }
  const fallback = resolve(cwd, DEFAULT_WAIVER_FILE);
  return entryExists(fallback) ? fallback : undefined;
}

/** Resolves and parses the waiver file; throws a WaiverError on any problem. */
export function loadWaivers(
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): WaiverFile {
  const file = resolveWaiverFile(env, cwd);
  if (file === undefined) return { file: undefined, waivers: [] };
  let text: string;
  try {
    text = readInputFile(file, 'the waiver file', INPUT_CAPS.waivers).toString('utf8');
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw new WaiverError(
      error.code === 'ENOTREG' || error.code === 'EFBIG'
        ? error.message
        : `waiver file ${escapeControls(displayPath(file, cwd))} cannot be read (${error.code ?? 'unreadable'})`,
    );
  }
  return { file, waivers: parseWaivers(text, displayPath(file, cwd)) };
}
