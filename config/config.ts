/**
 * The suite's configuration, parsed from a map of variables (run/resolve.ts builds that map
 * once per run, from the flags, the real environment and a .env file). Every problem is a
 * ConfigError with one line saying what to fix, which never echoes a secret.
 */
import { resolve } from 'node:path';
import {
  DEFAULT_ACCOUNT_BUDGET,
  parseAccountFixtures,
  type AccountFixture,
} from '../generators/account-fixture.ts';
import { parseItemFixtures, type ItemFixtures } from '../generators/item-fixtures.ts';
import { spec } from '../spec/index.ts';
import { INITIAL_IN_FLIGHT } from '../transport/limiter.ts';
import type { Politeness } from '../transport/politeness.ts';
import { escapeControls } from '../exchange/escape.ts';
import { API_PREFIX } from '../exchange/route.ts';
import type { ExtraHeader } from '../exchange/extra-headers.ts';
import { ConfigError, type Env } from './error.ts';
import { parseExtraHeaders } from './headers.ts';
import { INPUT_CAPS, InputFileError, readInputFile } from './input-files.ts';
import { own } from '../exchange/own.ts';

export interface SuiteConfig {
  /** The deployment under test; undefined: the embedded reference server. */
  baseURL: string | undefined;
  token: string;
  /** An existing counterparty the suite may read. */
  counterpartyRef: string;
  /** An existing counterparty the suite may modify (the first of `writableRefs`); undefined: read-only run. */
  writableRef: string | undefined;
  /** Every counterparty WRITABLE_COUNTERPARTY_REF names: one lane of write probes each. */
  writableRefs: string[] | undefined;
  /** The account the deployment accepts; undefined: no valid account can be sent. */
  accountFixture: AccountFixture | undefined;
  /** Every fixture of ACCOUNT_FIXTURE, in order (the first is `accountFixture`); added accounts cycle through them. */
  accountFixtures: AccountFixture[] | undefined;
  /** The most accounts a run may add to the writable counterparty. */
  accountBudget: number;
  /** Bills, mandates and collections that exist, and bodies that create them (ITEM_FIXTURES); undefined: none. */
  itemFixtures: ItemFixtures | undefined;
  /** The seed of every generated input of the run. */
  seed: number;
  /** Whether the seed was given (replay) or drawn. */
  seedGiven: boolean;
  /** Generated cases per property. */
  runs: number;
  /** How long a read may trail an accepted write before it counts as not showing it (ms). */
  settleMs: number;
  /** How gently the run treats the target, and when it gives up on it. */
  politeness: Politeness;
  /** Headers sent on every request besides the token (config/headers.ts). */
  extraHeaders: ExtraHeader[];
}

/** Shared by both kinds of target. */
const COMMON_POLITENESS = {
  timeoutMs: 10_000,
  maxRequests: 25_000,
  retries: 3,
  maxRetryWaitMs: 30_000,
  maxResponseBytes: 4 * 1024 * 1024,
  runTimeoutMs: 30 * 60_000,
} as const;

/**
 * A deployment (API_BASE_URL set): no fixed rate, the pace learned from its answers, within at
 * most 64 requests in flight across the run. The pace starts at a few and grows only while
 * latency holds; the cap is what the worker processes share (a run with lanes has one per lane
 * and one more), and with 32 a four-lane run at 150 ms left each process 6 in flight: 34.9 s
 * against 27.7 s with 64 (npm run bench).
 */
export const REMOTE_POLITENESS: Politeness = {
  ...COMMON_POLITENESS,
  adaptive: true,
  rps: 0,
  concurrency: 64,
};

/** The embedded reference server: no rate limit, one request in flight per core. */
export const EMBEDDED_POLITENESS: Politeness = {
  ...COMMON_POLITENESS,
  adaptive: false,
  rps: 0,
  concurrency: 2,
};

/** Playwright workers at most: the processes of a run (each sends many requests at once). */
const MAX_WORKERS = 2;

/** The environment variable of each numeric politeness setting, with its bounds. */
const POLITENESS_VARIABLES: Record<
  Exclude<keyof Politeness, 'adaptive'>,
  { name: string; min: number; max: number }
> = {
  rps: { name: 'CONFORMANCE_RPS', min: 0, max: 100_000 },
  concurrency: { name: 'CONFORMANCE_CONCURRENCY', min: 1, max: 64 },
  timeoutMs: { name: 'CONFORMANCE_TIMEOUT_MS', min: 10, max: 3_600_000 },
  maxRequests: { name: 'CONFORMANCE_MAX_REQUESTS', min: 1, max: 100_000_000 },
  retries: { name: 'CONFORMANCE_RETRIES', min: 0, max: 20 },
  maxRetryWaitMs: { name: 'CONFORMANCE_MAX_RETRY_WAIT_MS', min: 0, max: 3_600_000 },
  maxResponseBytes: { name: 'CONFORMANCE_MAX_RESPONSE_BYTES', min: 1024, max: 1024 * 1024 * 1024 },
  runTimeoutMs: { name: 'CONFORMANCE_RUN_TIMEOUT_MS', min: 1000, max: 7 * 24 * 3_600_000 },
};

/** The names of the politeness variables (CONFORMANCE_RPS, ...). */
export const POLITENESS_VARIABLE_NAMES: ReadonlySet<string> = new Set(
  Object.values(POLITENESS_VARIABLES).map((v) => v.name),
);

/** One line: the limits a run keeps, for the start of its output. */
export function describePoliteness(p: Politeness): string {
  const time = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
  const MiB = 1024 * 1024;
  const size =
    p.maxResponseBytes % MiB === 0 ? `${p.maxResponseBytes / MiB} MiB` : `${p.maxResponseBytes} bytes`;
  const pace = p.adaptive
    ? `${p.rps > 0 ? `at most ${p.rps} request(s)/s` : 'no rate cap'}, ${p.concurrency} in flight at most, ` +
      `adaptive (starts at ${Math.min(INITIAL_IN_FLIGHT, p.concurrency)} in flight, grows while latency holds, ` +
      `backs off on 429/503, rising latency and RateLimit headers)`
    : `${p.rps > 0 ? `at most ${p.rps} request(s)/s` : 'no rate limit'}, ${p.concurrency} in flight`;
  return (
    `${pace}, at most ${p.maxRequests} requests, ` +
    `${time(p.timeoutMs)} per request, ${p.retries} retries of a 429/503 (waits up to ${time(p.maxRetryWaitMs)}), ` +
    `bodies up to ${size}, run budget ${time(p.runTimeoutMs)}`
  );
}

/**
 * What the Playwright configuration of the suite needs: a few workers (each process sends many
 * requests at once, within its share of the concurrency cap), one more than the lanes of
 * writable counterparties when there are several, never more than the cap, and a
 * test timeout past the run's time budget, so that it is the suite's own limits that end a
 * check, never Playwright's timeout.
 */
export function suiteLimits(p: Politeness, lanes = 1): { workers: number; testTimeoutMs: number } {
  // One worker per lane of writable counterparties (each lane's probes run in order in a worker
  // of their own), and one for everything else.
  const wanted = Math.max(MAX_WORKERS, lanes + 1);
  return { workers: Math.min(p.concurrency, wanted), testTimeoutMs: p.runTimeoutMs + 60_000 };
}

/**
 * Reads the politeness settings: the defaults of the kind of target (a deployment or the
 * embedded server), each overridable. CONFORMANCE_RPS may be a decimal (0.5: one request every
 * two seconds); the others are whole numbers.
 */
export function parsePoliteness(env: Env, remote: boolean): Politeness {
  const out: Politeness = { ...(remote ? REMOTE_POLITENESS : EMBEDDED_POLITENESS) };
  for (const key of Object.keys(POLITENESS_VARIABLES) as (keyof typeof POLITENESS_VARIABLES)[]) {
    const { name, min, max } = POLITENESS_VARIABLES[key];
    const value = key === 'rps' ? decimal(env, name, min, max) : integer(env, name, min, max);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

export const DEFAULT_RUNS = 100;
export const MAX_RUNS = 100_000;
/**
 * CONFORMANCE_SETTLE_MS: the document does not promise that a read shows an accepted PATCH at
 * once (a replica may trail), so a read that does not is repeated, with back-off, for this long.
 */
export const DEFAULT_SETTLE_MS = 2000;
export const MAX_SETTLE_MS = 60_000;

/** What the embedded reference server provides when API_BASE_URL is unset. */
export interface EmbeddedTarget {
  token: string;
  counterpartyRef: string;
  /** The embedded server is throwaway, so its runs write unless told otherwise. */
  writableRef?: string;
  accountFixture?: AccountFixture;
  /** The accounts it accepts, the first being `accountFixture`. */
  accountFixtures?: readonly AccountFixture[];
  /** The items it holds and the bodies it accepts for the operations of §4.3. */
  itemFixtures?: ItemFixtures;
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function integer(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = nonEmpty(own(env, name));
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got '${raw}'`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${raw}`);
  }
  return n;
}

function decimal(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = nonEmpty(own(env, name));
  if (raw === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(raw))
    throw new ConfigError(`${name} must be a number such as 5 or 0.5, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${raw}`);
  return n;
}

/** Whether a reference matches the document's reference pattern. */
function validReference(value: string): boolean {
  return spec().errors('CounterpartyReference', value).length === 0;
}

/**
 * WRITABLE_COUNTERPARTY_REF: one reference, or several separated by commas, each a lane of write
 * probes of its own (spaces around a reference are dropped).
 */
export function writableRefsOf(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const refs = raw.split(',').map((r) => r.trim());
  if (refs.some((r) => r === ''))
    throw new ConfigError(
      'WRITABLE_COUNTERPARTY_REF has an empty entry: give one reference, or several separated by single commas (W-1,W-2)',
    );
  const twice = refs.find((r, i) => refs.indexOf(r) !== i);
  if (twice !== undefined)
    throw new ConfigError(
      `WRITABLE_COUNTERPARTY_REF names '${twice}' twice: each lane needs a counterparty of its own`,
    );
  const bad = refs.find((r) => !validReference(r));
  if (bad !== undefined)
    throw new ConfigError(
      `WRITABLE_COUNTERPARTY_REF '${bad}' is not a valid counterparty reference (see interface.md §2.1: 3 to 90 of A-Z a-z 0-9 - _)`,
    );
  return refs;
}

/** Draws a fresh 31-bit seed. */
export function drawSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/**
 * ACCOUNT_FIXTURE: a JSON object or a list of them, or the path of a file holding one (relative
 * to `cwd`, the directory the run was started from).
 */
function accountFixtures(env: Env, cwd: string): AccountFixture[] | undefined {
  const raw = nonEmpty(env.ACCOUNT_FIXTURE);
  if (raw === undefined) return undefined;
  let text = raw;
  if (!raw.startsWith('{') && !raw.startsWith('[')) {
    try {
      text = readInputFile(resolve(cwd, raw), 'ACCOUNT_FIXTURE', INPUT_CAPS.fixture).toString('utf8');
    } catch (error) {
      if (!(error instanceof InputFileError)) throw error;
      // Not there or not readable: the value may have been meant as JSON.
      if (error.code !== 'ENOTREG' && error.code !== 'EFBIG')
        throw new ConfigError(
          `ACCOUNT_FIXTURE: cannot read the file '${escapeControls(raw)}' (${error.code ?? 'unreadable'}); give a JSON object, a JSON list of them, or a readable file`,
        );
      throw new ConfigError(error.message);
    }
  }
  try {
    return parseAccountFixtures(text);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/**
 * ITEM_FIXTURES: a JSON object, or the path of a file holding one (relative to `cwd`), read as
 * ACCOUNT_FIXTURE is (generators/item-fixtures.ts says what it holds).
 */
function itemFixtures(env: Env, cwd: string): ItemFixtures | undefined {
  const raw = nonEmpty(env.ITEM_FIXTURES);
  if (raw === undefined) return undefined;
  let text = raw;
  if (!raw.startsWith('{')) {
    try {
      text = readInputFile(resolve(cwd, raw), 'ITEM_FIXTURES', INPUT_CAPS.fixture).toString('utf8');
    } catch (error) {
      if (!(error instanceof InputFileError)) throw error;
      if (error.code !== 'ENOTREG' && error.code !== 'EFBIG')
        throw new ConfigError(
          `ITEM_FIXTURES: cannot read the file '${escapeControls(raw)}' (${error.code ?? 'unreadable'}); give a JSON object or a readable JSON file`,
        );
      throw new ConfigError(error.message);
    }
  }
  try {
    return parseItemFixtures(text);
  } catch (error) {
    throw new ConfigError(escapeControls((error as Error).message));
  }
}

/**
 * A URL as an error line may show it, even a string that is no valid URL: whatever could be
 * credentials (everything up to the last `@`, after the scheme) and any query or fragment (which
 * may hold a key) are replaced by ***.
 */
export function maskCredentials(raw: string): string {
  return raw
    .replace(/[?#][^]*$/, (m) => `${m[0]}***`)
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^]*@/i, (_m, scheme: string | undefined) => `${scheme ?? ''}***@`);
}

/** API_BASE_URL: an http(s) URL with no credentials, query or fragment. */
function baseURLOf(raw: string): string {
  const shown = maskCredentials(raw);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      `API_BASE_URL is not a valid URL: '${shown}' (expected e.g. https://sandbox.example.com)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`API_BASE_URL must be an http:// or https:// URL, got '${shown}'`);
  }
  if (url.username || url.password) {
    throw new ConfigError(
      'API_BASE_URL must not carry credentials (user:password@); put the token in API_TOKEN',
    );
  }
  // Not even an empty one: "https://host/?" keeps its '?' and would put it in every request path.
  // Not shown either: a query may hold a key.
  if (/[?#]/.test(raw)) {
    throw new ConfigError(
      "API_BASE_URL must not carry a query or fragment (it holds a '?' or '#'); give the scheme, host and any path prefix only",
    );
  }
  const base = url.toString().replace(/\/+$/, '');
  // The suite adds the interface's paths, /api/v1 included, to the base URL: a base URL that
  // already holds that prefix would send every request to .../api/v1/api/v1/..., and every answer
  // would be a 404 judged as the deployment's fault.
  const prefix = API_PREFIX.replace(/\/$/, '');
  const at = `${url.pathname.replace(/\/+$/, '')}/`.toLowerCase().indexOf(`${prefix}/`);
  if (at >= 0) {
    const before = `${url.origin}${url.pathname.slice(0, at)}`.replace(/\/+$/, '');
    throw new ConfigError(
      `API_BASE_URL ${base} already holds the interface's path prefix ${prefix}, which the suite adds to every path ` +
        `(it would request ${prefix}${prefix}/...); give the URL before it: ${before}`,
    );
  }
  return base;
}

/**
 * API_TOKEN: the bare token, which must fit in an Authorization header as it is: visible ASCII
 * characters only (no space, control or non-ASCII character). The token itself is never shown.
 */
function tokenOf(raw: string): string {
  if (/^bearer\s/i.test(raw) || /\s/.test(raw))
    throw new ConfigError('API_TOKEN must be the bare token, without "Bearer " or spaces');
  let position = 0;
  for (const c of raw) {
    position++;
    if (/^[\x21-\x7e]$/.test(c)) continue;
    const code = c.codePointAt(0)!;
    const kind = code < 0x20 || code === 0x7f ? 'a control character' : 'a non-ASCII character';
    throw new ConfigError(
      `API_TOKEN cannot be sent in an HTTP header: its character ${position} is ${kind}; give the token exactly as issued`,
    );
  }
  return raw;
}

/**
 * Parses the configuration. `embedded` gives the token and references of the embedded
 * reference server, used when API_BASE_URL is unset; `cwd` is the directory relative paths
 * (an ACCOUNT_FIXTURE file) are resolved against.
 */
export function parseConfig(
  env: Env,
  embedded: EmbeddedTarget,
  cwd: string = process.cwd(),
  headerFlags: readonly string[] = [],
): SuiteConfig {
  const baseURLRaw = nonEmpty(env.API_BASE_URL);
  const baseURL = baseURLRaw === undefined ? undefined : baseURLOf(baseURLRaw);
  const seedValue = integer(env, 'CONFORMANCE_SEED', -0x80000000, 0x7fffffff);
  const runs = integer(env, 'CONFORMANCE_RUNS', 1, MAX_RUNS) ?? DEFAULT_RUNS;
  const writableRefs = writableRefsOf(nonEmpty(env.WRITABLE_COUNTERPARTY_REF));
  const writableRaw = writableRefs?.[0];
  const fixtures = accountFixtures(env, cwd);
  const fixture = fixtures?.[0];
  const accountBudget = integer(env, 'CONFORMANCE_ACCOUNT_BUDGET', 0, MAX_RUNS) ?? DEFAULT_ACCOUNT_BUDGET;
  const items = itemFixtures(env, cwd);
  const politeness = parsePoliteness(env, baseURL !== undefined);
  const extraHeaders = parseExtraHeaders(env, headerFlags);
  // The embedded server has no replica to wait for: its window is 0 unless one is given.
  const settleMs =
    integer(env, 'CONFORMANCE_SETTLE_MS', 0, MAX_SETTLE_MS) ??
    (baseURL === undefined ? 0 : DEFAULT_SETTLE_MS);

  if (baseURL === undefined) {
    return {
      baseURL: undefined,
      token: embedded.token,
      counterpartyRef: nonEmpty(env.COUNTERPARTY_REF) ?? embedded.counterpartyRef,
      // Set but empty asks for none, against the embedded server too: a read-only run, no fixture.
      writableRef: env.WRITABLE_COUNTERPARTY_REF === '' ? undefined : (writableRaw ?? embedded.writableRef),
      writableRefs:
        env.WRITABLE_COUNTERPARTY_REF === ''
          ? undefined
          : (writableRefs ?? (embedded.writableRef ? [embedded.writableRef] : undefined)),
      accountFixture: env.ACCOUNT_FIXTURE === '' ? undefined : (fixture ?? embedded.accountFixture),
      accountFixtures:
        env.ACCOUNT_FIXTURE === ''
          ? undefined
          : (fixtures ??
            (embedded.accountFixtures
              ? [...embedded.accountFixtures]
              : embedded.accountFixture
                ? [embedded.accountFixture]
                : undefined)),
      accountBudget,
      // Set but empty asks for none, as ACCOUNT_FIXTURE does.
      itemFixtures: env.ITEM_FIXTURES === '' ? undefined : (items ?? embedded.itemFixtures),
      seed: seedValue ?? drawSeed(),
      seedGiven: seedValue !== undefined,
      runs,
      settleMs,
      politeness,
      extraHeaders,
    };
  }
  const tokenRaw = nonEmpty(env.API_TOKEN);
  if (tokenRaw === undefined)
    throw new ConfigError(
      'API_TOKEN is required when API_BASE_URL is set (the bearer token of the deployment)',
    );
  const token = tokenOf(tokenRaw);
  const counterpartyRef = nonEmpty(env.COUNTERPARTY_REF);
  if (counterpartyRef === undefined) {
    throw new ConfigError(
      'COUNTERPARTY_REF is required when API_BASE_URL is set (an existing counterparty the suite may read)',
    );
  }
  if (!validReference(counterpartyRef)) {
    throw new ConfigError(
      `COUNTERPARTY_REF '${counterpartyRef}' is not a valid counterparty reference (see interface.md §2.1: 3 to 90 of A-Z a-z 0-9 - _)`,
    );
  }
  return {
    baseURL,
    token,
    counterpartyRef,
    writableRef: writableRaw,
    writableRefs,
    accountFixture: fixture,
    accountFixtures: fixtures,
    accountBudget,
    itemFixtures: items,
    seed: seedValue ?? drawSeed(),
    seedGiven: seedValue !== undefined,
    runs,
    settleMs,
    politeness,
    extraHeaders,
  };
}
