/**
 * Which target a run judges, and why: the deployment API_BASE_URL names, or the embedded
 * reference server. A gate must never be green on a target the user did not mean, so the embedded
 * server runs only when it is asked for by name (`--embedded`, CONFORMANCE_EMBEDDED=1, the
 * Action's `embedded` input) or when no setting of a target is given at all (a first run in a
 * fresh clone). Any setting that belongs to a deployment (its token, its counterparties, its
 * fixtures, a gateway's headers, an empty API_BASE_URL, which is what a CI step passes when a
 * secret is missing) without a base URL is a configuration error that names what is missing,
 * as is a name one edit away from a setting's (two letters of API_BASE_URL swapped in .env), which would otherwise
 * be ignored in silence.
 */
import { ConfigError, type Env } from './error.ts';
import { HEADER_PREFIX, SECRET_HEADER_PREFIX } from './headers.ts';

/** Where a setting came from, as the first line of a run says it. */
export type SettingSource = 'flag' | 'environment' | '.env';

/** The settings that only mean something for a deployment: any of them asks for one. */
export const TARGET_SETTINGS = [
  'API_BASE_URL',
  'API_TOKEN',
  'COUNTERPARTY_REF',
  'WRITABLE_COUNTERPARTY_REF',
  'ACCOUNT_FIXTURE',
  'ITEM_FIXTURES',
] as const;

export const EMBEDDED_VARIABLE = 'CONFORMANCE_EMBEDDED';

export interface TargetChoice {
  kind: 'deployment' | 'embedded';
  /** Why this target, for the first line of the run: "API_BASE_URL from .env", "--embedded". */
  why: string;
  /** Settings given and not used (the token beside --embedded), one sentence each. */
  unused: string[];
}

/** Where the settings of a run were read, name by name (run/resolve.ts fills it). */
export type Sources = ReadonlyMap<string, { source: SettingSource; file?: string | null }>;

/** How a setting's origin is written: `--base-url`, `the environment`, `/path/.env`. */
export function describeSource(name: string, sources: Sources, flagName?: string): string {
  const s = sources.get(name);
  if (s === undefined) return 'unset';
  if (s.source === 'flag') return flagName ?? 'a flag';
  if (s.source === 'environment') return 'the environment';
  return s.file ?? '.env';
}

/** CONFORMANCE_EMBEDDED: 1 asks for the embedded server; 0, empty or unset does not. */
export function parseEmbedded(raw: string | undefined): boolean {
  const value = raw?.trim() ?? '';
  if (value === '' || value === '0') return false;
  if (value === '1') return true;
  throw new ConfigError(
    `${EMBEDDED_VARIABLE} must be 1 (run against the embedded reference server) or 0, got '${raw}'`,
  );
}

/**
 * Chooses the target from the settings (`inputs`, flags over the environment over .env) and where
 * each came from; `headerFlags` are the --header flags, which also belong to a deployment.
 * Throws a ConfigError naming what is missing or contradictory.
 */
export function chooseTarget(
  inputs: Env,
  sources: Sources,
  flagOf: (variable: string) => string,
  headerFlags: readonly string[] = [],
): TargetChoice {
  const from = (name: string): string => describeSource(name, sources, flagOf(name));
  const baseURL = inputs.API_BASE_URL?.trim() ?? '';
  const embedded = parseEmbedded(inputs[EMBEDDED_VARIABLE]);
  const embeddedFrom = (): string =>
    sources.get(EMBEDDED_VARIABLE)?.source === 'flag'
      ? '--embedded'
      : `${EMBEDDED_VARIABLE}=1 from ${from(EMBEDDED_VARIABLE)}`;
  if (embedded) {
    if (baseURL !== '')
      throw new ConfigError(
        `${embeddedFrom()} and API_BASE_URL (from ${from('API_BASE_URL')}) name two targets: ` +
          'leave out one of them (an empty API_BASE_URL is none)',
      );
    const unused: string[] = [];
    if ((inputs.API_TOKEN ?? '') !== '')
      unused.push(
        `API_TOKEN is set (${from('API_TOKEN')}) and not used: the embedded reference server has a token of its own`,
      );
    return { kind: 'embedded', why: `asked for by ${embeddedFrom()}`, unused };
  }
  if (baseURL !== '')
    return { kind: 'deployment', why: `API_BASE_URL from ${from('API_BASE_URL')}`, unused: [] };
  const given = givenTargetSettings(inputs, sources, headerFlags);
  if (given.length > 0) {
    const base =
      inputs.API_BASE_URL === undefined
        ? 'API_BASE_URL is not set'
        : `API_BASE_URL is empty (from ${from('API_BASE_URL')})`;
    const others = given
      .filter((name) => name !== 'API_BASE_URL')
      .map((name) => (name === '--header' ? '--header' : `${name} (${from(name)})`));
    throw new ConfigError(
      `no deployment to test: ${base}` +
        (others.length > 0 ? `, yet ${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} set` : '') +
        '; give the deployment in API_BASE_URL (--base-url), or --embedded to run against the embedded reference server',
    );
  }
  return {
    kind: 'embedded',
    why: 'no target setting given (API_BASE_URL, API_TOKEN, COUNTERPARTY_REF and the rest unset)',
    unused: [],
  };
}

/** The settings of a deployment given (even empty), in the order of TARGET_SETTINGS, then headers. */
function givenTargetSettings(inputs: Env, sources: Sources, headerFlags: readonly string[]): string[] {
  const given: string[] = TARGET_SETTINGS.filter((name) => sources.has(name) && inputs[name] !== undefined);
  for (const name of sources.keys())
    if (name.startsWith(HEADER_PREFIX) || name.startsWith(SECRET_HEADER_PREFIX)) given.push(name);
  if (headerFlags.length > 0) given.push('--header');
  return given;
}

/**
 * The optimal-string-alignment distance of two names, at most `limit + 1` (enough to tell "one
 * edit away": a letter added, dropped, changed, or two neighbours swapped).
 */
export function editDistance(a: string, b: string, limit = 1): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return Math.min(rows[a.length]![b.length]!, limit + 1);
}

/**
 * The setting a name was likely meant to be: one of `known` that it matches but for case, or one
 * edit away from (in capitals). Undefined for a name that is itself known, or near none.
 */
export function meantSetting(name: string, known: readonly string[]): string | undefined {
  if (known.includes(name)) return undefined;
  const upper = name.toUpperCase();
  return known.find((k) => upper === k || editDistance(upper, k) <= 1);
}

/**
 * A name in the environment or .env that is one edit away from a setting (or the same but for
 * case) is a configuration error: the setting it was meant to be is otherwise silently unset,
 * and the run may go to another target than the one meant.
 */
export function checkMisspelled(names: Iterable<[string, string]>, known: readonly string[]): void {
  for (const [name, where] of names) {
    const meant = meantSetting(name, known);
    if (meant !== undefined)
      throw new ConfigError(
        `${name} (${where}) is not a setting of the suite: did you mean ${meant}? Rename it, or remove it`,
      );
  }
}
