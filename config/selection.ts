/**
 * Choosing what runs: by probe id, requirement id, operation and level, and by a regular
 * expression over the probes' test titles (Playwright's --grep). Each kind of flag may repeat
 * (a union); different kinds narrow each other (an intersection). The result is the probes that
 * run and the requirements selected: those the probes aim at, narrowed by --requirement and
 * --level. The report calls a requirement outside the selection that nothing judged "not
 * selected"; one an oracle judged on the selected probes' traffic anyway is reported as judged,
 * since it was (engine/verdicts.ts).
 */
import { PROBES } from '../probes/index.ts';
import { spec } from '../spec/index.ts';
import { REQUIREMENTS, requirement, type RequirementId } from '../spec/requirements.ts';
import type { Probe } from '../engine/types.ts';
import { ConfigError } from './config.ts';

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

export interface Selection {
  /** The probes that run, in the registry's order. */
  probes: string[];
  /** The requirements selected; a requirement outside it that nothing judged is "not selected". */
  requirements: RequirementId[];
  /** The flags that made it, for the reason of a requirement not selected: "--level must". */
  label: string;
}

/**
 * The operations each probe sends requests to. tests/self/selection.spec.ts compares it with the
 * traffic of a run against the reference server, so a probe that starts calling another operation
 * fails a test until it is listed here.
 */
export const PROBE_OPERATIONS: Record<string, readonly string[]> = {
  'known-counterparty': ['getCounterparty'],
  'valid-references': ['getCounterparty'],
  'invalid-references': ['getCounterparty'],
  'slash-references': ['getCounterparty'],
  'encoded-slash-references': ['getCounterparty'],
  'patch-invalid-references': ['patchCounterparty'],
  'patch-slash-references': ['patchCounterparty'],
  'reads-require-authentication': [
    'getBill',
    'getCounterparty',
    'getDirectDebit',
    'getMandate',
    'listBills',
    'listDirectDebits',
    'listMandates',
  ],
  'writes-require-authentication': [
    'cancelMandate',
    'createDirectDebit',
    'createMandate',
    'ingestBill',
    'patchCounterparty',
    'updateBill',
    'uploadBillDocument',
  ],
  'collections-routed': ['listBills', 'listDirectDebits', 'listMandates'],
  'patch-valid-details': ['getCounterparty', 'patchCounterparty'],
  'patch-valid-accounts': ['getCounterparty', 'patchCounterparty'],
  'patch-invalid-bodies': ['getCounterparty', 'patchCounterparty'],
  'patch-unknown-counterparty': ['getCounterparty', 'patchCounterparty'],
  'bill-list-filters': ['listBills'],
  'bill-list-pagination': ['listBills'],
  'lists-without-query': ['listDirectDebits', 'listMandates'],
  'invalid-item-references': ['getDirectDebit', 'getMandate'],
  'item-writes-unknown-references': ['cancelMandate', 'getBill', 'getMandate', 'uploadBillDocument'],
  'unlabelled-bodies': [
    'createDirectDebit',
    'createMandate',
    'getCounterparty',
    'ingestBill',
    'patchCounterparty',
    'updateBill',
    'uploadBillDocument',
  ],
  'undocumented-methods': [],
  'unknown-item-references': ['getBill', 'getDirectDebit', 'getMandate'],
  'malformed-write-bodies': [
    'createDirectDebit',
    'createMandate',
    'ingestBill',
    'updateBill',
    'uploadBillDocument',
  ],
  'patch-finite-classes': ['getCounterparty', 'patchCounterparty'],
  'reference-variants': ['getCounterparty'],
};

/**
 * The text --grep is matched against, as Playwright matches it: the spec file, the test title
 * ("<probe id>: <title>", tests/conformance/define.ts) and the tags.
 */
export function grepTitle(probe: Probe): string {
  const file =
    probe.access === 'read'
      ? `${probe.group}.spec.ts`
      : probe.elsewhere
        ? 'writes-elsewhere.spec.ts'
        : 'writes.spec.ts';
  const levels = [...new Set(probe.requirements.map((id) => `@${requirement(id).level.toLowerCase()}`))];
  return `${file} ${probe.id}: ${probe.title} @${probe.access} ${levels.join(' ')}`;
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

/** The selection the flags make; null when they select nothing in particular (every probe). */
export function resolveSelection(flags: SelectionFlags): Selection | null {
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
  const knownProbes = PROBES.map((p) => p.id);
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
  const probes = PROBES.filter(
    (p) =>
      (probeIds.length === 0 || probeIds.includes(p.id)) &&
      (reqIds.length === 0 || p.requirements.some((id) => reqIds.includes(id))) &&
      (operations.length === 0 || (PROBE_OPERATIONS[p.id] ?? []).some((op) => operations.includes(op))) &&
      p.requirements.some(inLevel) &&
      (pattern === undefined || pattern.test(grepTitle(p))),
  );
  const label = [
    ...probeIds.map((id) => `--probe ${id}`),
    ...reqIds.map((id) => `--requirement ${id}`),
    ...opValues.map((op) => `--operation ${op}`),
    ...levels.map((l) => `--level ${l.toLowerCase()}`),
    ...(grep !== undefined ? [`--grep ${grep}`] : []),
  ].join(' ');
  if (probes.length === 0)
    throw new ConfigError(`no probe matches the selection ${label}; known probes: ${knownProbes.join(', ')}`);
  const aimed = new Set(probes.flatMap((p) => p.requirements));
  const requirements = REQUIREMENTS.map((r) => r.id as RequirementId).filter(
    (id) => aimed.has(id) && (reqIds.length === 0 || reqIds.includes(id)) && inLevel(id),
  );
  return { probes: probes.map((p) => p.id), requirements, label };
}
