/**
 * The suite's configuration, read from the environment (and a .env file, where the real
 * environment wins). Every problem is a ConfigError with one line saying what to fix.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { config as loadDotenv } from 'dotenv';
import { parseAccountFixture, type AccountFixture } from '../generators/account-fixture.ts';
import { spec } from '../spec/index.ts';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface SuiteConfig {
  /** The deployment under test; undefined: the embedded reference server. */
  baseURL: string | undefined;
  token: string;
  /** An existing counterparty the suite may read. */
  counterpartyRef: string;
  /** An existing counterparty the suite may modify; undefined: read-only run. */
  writableRef: string | undefined;
  /** The account the deployment accepts; undefined: no valid account can be sent. */
  accountFixture: AccountFixture | undefined;
  /** The most accounts a run may add to the writable counterparty. */
  accountBudget: number;
  /** The seed of every generated input of the run. */
  seed: number;
  /** Whether the seed was given (replay) or drawn. */
  seedGiven: boolean;
  /** Generated cases per property. */
  runs: number;
}

export const DEFAULT_RUNS = 100;
export const MAX_RUNS = 100_000;
export const DEFAULT_ACCOUNT_BUDGET = 40;

/** What the embedded reference server provides when API_BASE_URL is unset. */
export interface EmbeddedTarget {
  token: string;
  counterpartyRef: string;
  /** The embedded server is throwaway, so its runs write unless told otherwise. */
  writableRef?: string;
  accountFixture?: AccountFixture;
}

type Env = Record<string, string | undefined>;

/** Loads `.env` from `cwd` into process.env without overriding what is already set. */
export function loadEnvFile(cwd: string = process.cwd()): void {
  const path = `${cwd}/.env`;
  if (existsSync(path))
    loadDotenv({ path, override: false, quiet: true } as Parameters<typeof loadDotenv>[0]);
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function integer(env: Env, name: string, min: number, max: number): number | undefined {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got '${raw}'`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${raw}`);
  }
  return n;
}

/** Draws a fresh 31-bit seed. */
export function drawSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/**
 * ACCOUNT_FIXTURE: a JSON object, or the path of a file holding one (relative to the working
 * directory).
 */
function accountFixture(env: Env): AccountFixture | undefined {
  const raw = nonEmpty(env.ACCOUNT_FIXTURE);
  if (raw === undefined) return undefined;
  let text = raw;
  if (!raw.startsWith('{')) {
    try {
      text = readFileSync(resolve(raw), 'utf8');
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable';
      throw new ConfigError(
        `ACCOUNT_FIXTURE: cannot read the file '${raw}' (${code}); give a JSON object or a readable file`,
      );
    }
  }
  try {
    return parseAccountFixture(text);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/**
 * Parses the configuration. `embedded` gives the token and references of the embedded
 * reference server, used when API_BASE_URL is unset.
 */
export function parseConfig(env: Env, embedded: EmbeddedTarget): SuiteConfig {
  const baseURLRaw = nonEmpty(env.API_BASE_URL);
  let baseURL: string | undefined;
  if (baseURLRaw !== undefined) {
    let url: URL;
    try {
      url = new URL(baseURLRaw);
    } catch {
      throw new ConfigError(
        `API_BASE_URL is not a valid URL: '${baseURLRaw}' (expected e.g. https://sandbox.example.com)`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigError(`API_BASE_URL must be an http:// or https:// URL, got '${baseURLRaw}'`);
    }
    if (url.search || url.hash || url.username || url.password) {
      throw new ConfigError(
        'API_BASE_URL must not carry a query, fragment or credentials; put the token in API_TOKEN',
      );
    }
    baseURL = url.toString().replace(/\/+$/, '');
  }
  const seedValue = integer(env, 'CONFORMANCE_SEED', -0x80000000, 0x7fffffff);
  const runs = integer(env, 'CONFORMANCE_RUNS', 1, MAX_RUNS) ?? DEFAULT_RUNS;
  const writableRaw = nonEmpty(env.WRITABLE_COUNTERPARTY_REF);
  const fixture = accountFixture(env);
  const accountBudget = integer(env, 'CONFORMANCE_ACCOUNT_BUDGET', 0, MAX_RUNS) ?? DEFAULT_ACCOUNT_BUDGET;

  if (baseURL === undefined) {
    return {
      baseURL: undefined,
      token: embedded.token,
      counterpartyRef: nonEmpty(env.COUNTERPARTY_REF) ?? embedded.counterpartyRef,
      writableRef: writableRaw ?? embedded.writableRef,
      accountFixture: fixture ?? embedded.accountFixture,
      accountBudget,
      seed: seedValue ?? drawSeed(),
      seedGiven: seedValue !== undefined,
      runs,
    };
  }
  const token = nonEmpty(env.API_TOKEN);
  if (token === undefined)
    throw new ConfigError(
      'API_TOKEN is required when API_BASE_URL is set (the bearer token of the deployment)',
    );
  if (/\s/.test(token))
    throw new ConfigError('API_TOKEN must be the bare token, without "Bearer " or spaces');
  const counterpartyRef = nonEmpty(env.COUNTERPARTY_REF);
  if (counterpartyRef === undefined) {
    throw new ConfigError(
      'COUNTERPARTY_REF is required when API_BASE_URL is set (an existing counterparty the suite may read)',
    );
  }
  for (const [name, value] of [
    ['COUNTERPARTY_REF', counterpartyRef],
    ['WRITABLE_COUNTERPARTY_REF', writableRaw],
  ] as const) {
    if (value !== undefined && spec().errors('CounterpartyReference', value).length > 0) {
      throw new ConfigError(
        `${name} '${value}' is not a valid counterparty reference (see interface.md §2.1: 3 to 90 of A-Z a-z 0-9 - _)`,
      );
    }
  }
  return {
    baseURL,
    token,
    counterpartyRef,
    writableRef: writableRaw,
    accountFixture: fixture,
    accountBudget,
    seed: seedValue ?? drawSeed(),
    seedGiven: seedValue !== undefined,
    runs,
  };
}
