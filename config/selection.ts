/**
 * Choosing what runs: by probe id, requirement id, operation and level, and by a regular
 * expression over the probes' test titles (Playwright's --grep). Each kind of flag may repeat
 * (a union); different kinds narrow each other (an intersection). The result is the probes that
 * run and the requirements selected: those the probes aim at, narrowed by --requirement and
 * --level. The report calls a requirement outside the selection that nothing judged "not
 * selected"; one an oracle judged on the selected probes' traffic anyway is reported as judged,
 * since it was (engine/verdicts.ts).
 */
import { spec } from '../spec/index.ts';
import { REQUIREMENTS, requirement, type RequirementId } from '../spec/requirements.ts';
import { ConfigError } from './error.ts';

export type Level = 'MUST' | 'SHOULD';

export interface SelectionFlags {
  /** --probe */
  probes?: readonly string[];
  /** --requirement */
  requirements?: readonly string[];
  /** --operation: an operationId, or "METHOD /path" as spec/openapi.yaml writes it. */
  operations?: readonly string[];
  /** --level */
  levels?: readonly Level[];
  /** --grep */
  grep?: string;
}

/** One case of one property: its name (engine/property.ts PropertySpec.name) and fast-check path. */
export interface ReplayCase {
  property: string;
  path: string;
  /** A sequence's commands that ran (fast-check's replayPath), after `~`. */
  replayPath?: string;
}

/**
 * --case: '<property name>@<fast-check path>', the path digits separated by colons, and for a
 * sequence of commands `~<replayPath>` after it (fast-check's: base64 digits, one colon).
 */
export function parseReplayCase(value: string): ReplayCase {
  const at = value.lastIndexOf('@');
  const property = value.slice(0, at).trim();
  const [path = '', replayPath, ...more] = value
    .slice(at + 1)
    .trim()
    .split('~');
  if (
    at < 0 ||
    property === '' ||
    !/^\d+(:\d+)*$/.test(path) ||
    more.length > 0 ||
    (replayPath !== undefined && !/^[A-Za-z0-9+/]+:[A-Za-z0-9+/]*$/.test(replayPath))
  )
    throw new ConfigError(
      `--case must be '<property name>@<fast-check path>' (as a finding's replay line writes it), got '${value}'`,
    );
  return { property, path, ...(replayPath !== undefined ? { replayPath } : {}) };
}

export interface Selection {
  /** The probes that run, in the registry's order. */
  probes: string[];
  /** The requirements selected; a requirement outside it that nothing judged is "not selected". */
  requirements: RequirementId[];
  /** The flags that made it, for the reason of a requirement not selected: "--level must". */
  label: string;
}

/**
 * A probe as the selection sees it. The selection does not know the probes: the probe registry
 * (probes/index.ts SELECTABLE) hands each in, as the run is composed (run/resolve.ts).
 */
export interface SelectableProbe {
  id: string;
  /** The requirements it aims at. */
  requirements: readonly RequirementId[];
  /** The operations it sends requests to (operationIds), which --operation selects by. */
  operations: readonly string[];
  /** What --grep is matched against, as Playwright matches it: the spec file, the test title, the tags. */
  grepTitle: string;
}

/** The operationId an --operation value names (an operationId, or "METHOD /path"). */
function operationOf(value: string): string {
  const ops = spec().operations();
  const byId = ops.find((o) => o.operationId === value);
  if (byId) return byId.operationId;
  const [method, ...rest] = value.trim().split(/\s+/);
  const path = rest.join(' ');
  const byRoute = ops.find(
    (o) =>
      o.method.toUpperCase() === method?.toUpperCase() && (o.path === path || o.path === `/api/v1${path}`),
  );
  if (byRoute) return byRoute.operationId;
  throw new ConfigError(
    `unknown operation '${value}' (--operation); known operations: ${ops.map((o) => `${o.operationId} (${o.method} ${o.path})`).join(', ')}`,
  );
}

/** Parses a --level value: must or should (any case). */
export function parseLevel(value: string): Level {
  const v = value.trim().toUpperCase();
  if (v === 'MUST' || v === 'SHOULD') return v;
  throw new ConfigError(`unknown level '${value}' (--level); known levels: must, should`);
}

/**
 * The selection the flags make among `probes` (the registry, in its order); null when they select
 * nothing in particular (every probe).
 */
export function resolveSelection(
  flags: SelectionFlags,
  probes: readonly SelectableProbe[],
): Selection | null {
  const probeIds = flags.probes ?? [];
  const reqIds = flags.requirements ?? [];
  const opValues = flags.operations ?? [];
  const levels = flags.levels ?? [];
  const grep = flags.grep;
  if (
    probeIds.length === 0 &&
    reqIds.length === 0 &&
    opValues.length === 0 &&
    levels.length === 0 &&
    grep === undefined
  )
    return null;
  const knownProbes = probes.map((p) => p.id);
  for (const id of probeIds)
    if (!knownProbes.includes(id))
      throw new ConfigError(`unknown probe '${id}' (--probe); known probes: ${knownProbes.join(', ')}`);
  const knownReqs = REQUIREMENTS.map((r) => r.id as string);
  for (const id of reqIds)
    if (!knownReqs.includes(id))
      throw new ConfigError(
        `unknown requirement '${id}' (--requirement); known requirements: ${knownReqs.join(', ')}`,
      );
  const operations = opValues.map(operationOf);
  let pattern: RegExp | undefined;
  if (grep !== undefined) {
    try {
      pattern = new RegExp(grep);
    } catch (error) {
      throw new ConfigError(`--grep '${grep}' is not a regular expression (${(error as Error).message})`);
    }
  }
  const inLevel = (id: RequirementId): boolean =>
    levels.length === 0 || levels.includes(requirement(id).level as Level);
  const chosen = probes.filter(
    (p) =>
      (probeIds.length === 0 || probeIds.includes(p.id)) &&
      (reqIds.length === 0 || p.requirements.some((id) => reqIds.includes(id))) &&
      (operations.length === 0 || p.operations.some((op) => operations.includes(op))) &&
      p.requirements.some(inLevel) &&
      (pattern === undefined || pattern.test(p.grepTitle)),
  );
  const label = [
    ...probeIds.map((id) => `--probe ${id}`),
    ...reqIds.map((id) => `--requirement ${id}`),
    ...opValues.map((op) => `--operation ${op}`),
    ...levels.map((l) => `--level ${l.toLowerCase()}`),
    ...(grep !== undefined ? [`--grep ${grep}`] : []),
  ].join(' ');
  if (chosen.length === 0)
    throw new ConfigError(`no probe matches the selection ${label}; known probes: ${knownProbes.join(', ')}`);
  const aimed = new Set(chosen.flatMap((p) => p.requirements));
  const requirements = REQUIREMENTS.map((r) => r.id as RequirementId).filter(
    (id) => aimed.has(id) && (reqIds.length === 0 || reqIds.includes(id)) && inLevel(id),
  );
  return { probes: chosen.map((p) => p.id), requirements, label };
}
