/**
 * The sites of the PATCH counterparty body: every node of the spec's PatchCounterpartyRequest,
 * walked once (root, counterpartyDetails, its fields, the address and its fields,
 * counterpartyAccounts, an item and its fields), each with the path that reaches it. Rule ids,
 * JSON Pointers and the walk of a body along its schema all come from here, so a field the spec
 * gains gains its rules without a line here.
 *
 * A path names properties, with `[]` for "any item": ['counterpartyAccounts', '[]', 'name'];
 * the generators write the same site 'counterpartyAccounts[].name'.
 */
import { spec, type SchemaNode } from '../spec/index.ts';

export const PATCH_SCHEMA = 'PatchCounterpartyRequest';

export interface Site {
  path: readonly string[];
  /** The node, `$ref`s followed. */
  node: SchemaNode;
}

let walked: Site[] | undefined;
const byKey = new Map<string, Site>();

/** Every site, parents before children, in the spec's order. */
export function sites(): readonly Site[] {
  if (walked) return walked;
  const out: Site[] = [];
  const visit = (raw: SchemaNode, path: string[]): void => {
    const node = spec().deref(raw);
    out.push({ path, node });
    for (const [name, child] of Object.entries(node.properties ?? {})) visit(child, [...path, name]);
    if (node.items) visit(node.items, [...path, '[]']);
  };
  visit(spec().schema(PATCH_SCHEMA), []);
  for (const site of out) byKey.set(site.path.join('.'), site);
  walked = out;
  return out;
}

/** The site at `path`, or undefined. */
export function siteAt(path: readonly string[]): Site | undefined {
  sites();
  return byKey.get(path.join('.'));
}

/** 'counterpartyAccounts[].name' (the generators' field names) → ['counterpartyAccounts', '[]', 'name']; 'body' → []. */
export function pathOfField(field: string): string[] {
  if (field === 'body' || field === '') return [];
  return field.split('.').flatMap((p) => (p.endsWith('[]') ? [p.slice(0, -2), '[]'] : [p]));
}

/** ['counterpartyAccounts', '[]', 'name'] → 'counterpartyAccounts[].name'; [] → 'body'. */
export function fieldOfPath(path: readonly string[]): string {
  return path.length === 0 ? 'body' : path.join('.').replace(/\.\[\]/g, '[]');
}

/** '/counterpartyAccounts/*' + '/name': the pointer of a site, `*` for any item. */
export function pointerOfPath(path: readonly string[]): string {
  return path.map((p) => `/${p === '[]' ? '*' : p}`).join('');
}

/** An instance path ('/counterpartyAccounts/0/name') as a site path. */
export function pathOfInstance(instancePath: string): string[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((p) => (/^\d+$/.test(p) ? '[]' : p.replace(/~1/g, '/').replace(/~0/g, '~')));
}

/** 'counterpartyReference' → 'counterparty-reference', 'BANK_ACCOUNT' → 'bank-account': the words of an id. */
export const kebab = (s: string): string =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();

/**
 * The id stem of a site: 'body' for the root, and short names for the two parts of the body so
 * ids stay readable: counterpartyDetails → details, its address → address, counterpartyAccounts
 * → accounts, one of its items → account.
 */
export function stemOfPath(path: readonly string[]): string {
  const [first, second, ...rest] = path;
  let parts: readonly string[];
  if (first === undefined) return 'body';
  if (first === 'counterpartyDetails' && second === 'address') parts = ['address', ...rest];
  else if (first === 'counterpartyDetails') parts = ['details', ...path.slice(1)];
  else if (first === 'counterpartyAccounts' && second === '[]') parts = ['account', ...rest];
  else if (first === 'counterpartyAccounts') parts = ['accounts', ...path.slice(1)];
  else parts = path;
  return parts.map(kebab).join('-');
}

/** The id of the rule of `family` at a site: patch-details-remarks-pattern, patch-account-name-required. */
export function bodyRuleIdAt(path: readonly string[], family: string): string {
  return `patch-${stemOfPath(path)}-${family}`;
}

/** Calls `visit` for every site an instance reaches, with the value there and its pointer. */
export function walkInstance(
  value: unknown,
  visit: (site: Site, value: unknown, pointer: string) => void,
  path: string[] = [],
  pointer = '',
): void {
  const site = siteAt(path);
  if (!site) return;
  visit(site, value, pointer);
  if (Array.isArray(value)) {
    if (site.node.items) value.forEach((v, i) => walkInstance(v, visit, [...path, '[]'], `${pointer}/${i}`));
  } else if (value !== null && typeof value === 'object') {
    for (const [name, v] of Object.entries(value)) {
      if (site.node.properties && Object.hasOwn(site.node.properties, name))
        walkInstance(
          v,
          visit,
          [...path, name],
          `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
        );
    }
  }
}
