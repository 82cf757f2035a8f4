/**
 * The body of PATCH /api/v1/counterparties/{ref} against the spec's PatchCounterpartyRequest
 * (interface.md §2.1, §2.2, §4.2, §7, §8). Rules are derived from the schema, one per constraint
 * family of each site (type, length, pattern, format, enum, min-items, min-properties, the
 * permitted properties, each required property): a field the spec gains gains its rules, and ajv
 * (compiled once) finds every breach in one pass. Ids follow the site:
 * patch-details-remarks-pattern, patch-address-country-enum, patch-account-name-required.
 *
 * Three rules are the document's own words over the schema's: "at least one of the two must be
 * present" (§4.2, §7: a body with neither breaks the minimum size, whatever else it holds);
 * counterpartyReference in counterpartyDetails ("immutable and cannot be changed"); createdBy
 * there ("cannot be written by the client"). A property of those two breaks its own rule, not the
 * permitted-fields rule as well: one fault, one rule. Likewise a value of another type where an enum
 * of strings is expected breaks the type rule, not the enum as well.
 *
 * Left open (never valid, never broken): a property an address or an account item does not list
 * (the document lists their fields, but "Permitted" is said of the body and of the details only);
 * an empty address (the schema allows it; whether it changes anything is not said). The inner
 * fields of the identifiers and the rules between fields are relations.ts's.
 */
import { spec, type SchemaNode } from '../spec/index.ts';
import { Q } from './quotes.ts';
import { bodyWith, breakingValue, familyOfKeyword, patchRequest, sampleAt } from './samples.ts';
import {
  bodyRuleIdAt,
  fieldOfPath,
  PATCH_SCHEMA,
  pathOfInstance,
  pointerOfPath,
  sites,
  stemOfPath,
  walkInstance,
} from './schema-sites.ts';
import type { OpenCase, OpenPoint, Quote, RequestRule, RuleCase } from './types.ts';
import type { Family } from './view.ts';
import { isObject, own, ownOf } from '../exchange/own.ts';
import { operationIdOf } from '../spec/operations.ts';

/** The PATCH of a counterparty, whose body schema the spec shows (§4.2). */
const PATCH = operationIdOf('counterparty', 'update');

/** The words each site rests on: a site of the schema that is not here fails at load. */
const SITE_QUOTES: Readonly<Record<string, readonly Quote[]>> = {
  body: [Q.patchBody, Q.minSizes],
  counterpartyDetails: [Q.patchDetails, Q.permittedDetails, Q.minSizes, Q.emptyPatch],
  'counterpartyDetails.accountHolderName': [Q.permittedDetails, Q.holderNameRow],
  'counterpartyDetails.emailAddress': [Q.permittedDetails, Q.emailRow],
  'counterpartyDetails.mobileNumber': [Q.permittedDetails, Q.mobileRow],
  'counterpartyDetails.remarks': [Q.permittedDetails, Q.remarksRow],
  'counterpartyDetails.address': [Q.permittedDetails, Q.addressRow],
  'counterpartyDetails.address.addressLine': [Q.permittedDetails, Q.addressLineRow],
  'counterpartyDetails.address.postalCode': [Q.permittedDetails, Q.postalCodeRow],
  'counterpartyDetails.address.country': [Q.addressCountryRow, Q.countryList, Q.ukNote],
  counterpartyAccounts: [Q.patchAccounts, Q.minSizes, Q.emptyPatch],
  'counterpartyAccounts[]': [Q.patchAccounts],
  'counterpartyAccounts[].accountType': [Q.accountTypeRow],
  'counterpartyAccounts[].accountCategory': [Q.accountCategoryRow],
  'counterpartyAccounts[].name': [Q.accountNameRow],
  'counterpartyAccounts[].accountIdentifier': [Q.accountIdentifierRow],
  'counterpartyAccounts[].country': [Q.accountCountryRow],
  'counterpartyAccounts[].currency': [Q.currencyRow],
  'counterpartyAccounts[].branchIdentifier': [Q.branchRequestRow, Q.branchRow],
};

/** Properties the document names and forbids in an object, each with its own rule. */
const FORBIDDEN: Readonly<
  Record<string, Readonly<Record<string, { suffix: string; statement: string; quotes: readonly Quote[] }>>>
> = {
  counterpartyDetails: {
    counterpartyReference: {
      suffix: 'immutable',
      statement:
        'counterpartyDetails does not carry counterpartyReference: the reference is immutable (even the same value is no permitted field).',
      quotes: [Q.patchDetails, Q.referenceRow],
    },
    createdBy: {
      suffix: 'not-writable',
      statement:
        'counterpartyDetails does not carry createdBy: the service fills it, the client cannot write it.',
      quotes: [Q.createdByRow, Q.permittedDetails],
    },
  },
};

/** The rule of its own a property named `name` breaks in the object at `path`, if any. */
function forbiddenAt(path: readonly string[], name: string): { suffix: string } | undefined {
  const names = own(FORBIDDEN, fieldOfPath(path));
  return names && own(names, name);
}

const article = (t: string): string => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);

function statementOf(path: readonly string[], node: SchemaNode, family: string): string {
  const f = fieldOfPath(path);
  switch (family) {
    case 'type':
      return `${f} is ${article(String(node.type))}.`;
    case 'length':
      return `${f} has ${node.minLength ?? 0} to ${node.maxLength ?? '∞'} characters.`;
    case 'pattern':
      return `${f} matches ${node.pattern ?? ''}.`;
    case 'format':
      return `${f} has the format ${node.format ?? ''}.`;
    case 'enum': {
      const values = node.enum ?? [];
      return `${f} is one of ${values.length > 6 ? `the country list (${values.length} codes)` : values.join(', ')}.`;
    }
    case 'min-items':
      return `${f} holds at least ${node.minItems ?? 0} item.`;
    case 'min-properties':
      return `${f} holds at least ${node.minProperties ?? 0} property.`;
    default:
      return `${f} holds only ${Object.keys(node.properties ?? {}).join(', ')}.`;
  }
}

interface SchemaRule {
  rule: RequestRule;
  path: readonly string[];
  family: string;
}

function schemaRule(
  path: readonly string[],
  family: string,
  statement: string,
  quotes: readonly Quote[],
): SchemaRule {
  return {
    path,
    family,
    rule: {
      id: bodyRuleIdAt(path, family),
      level: 'MUST',
      refusal: 'required',
      where: { in: 'body', pointer: pointerOfPath(path) },
      operations: [PATCH],
      statement,
      quotes,
    },
  };
}

function derive(): SchemaRule[] {
  const out: SchemaRule[] = [];
  for (const { path, node } of sites()) {
    const quotes = own(SITE_QUOTES, fieldOfPath(path));
    if (!quotes) throw new Error(`requests: the body site ${fieldOfPath(path)} quotes nothing`);
    const families = [
      ...(node.type !== undefined ? ['type'] : []),
      ...(node.minLength !== undefined || node.maxLength !== undefined ? ['length'] : []),
      ...(['pattern', 'format', 'enum'] as const).filter((k) => node[k] !== undefined),
      ...(node.minItems !== undefined ? ['min-items'] : []),
      ...(node.minProperties !== undefined && path.length > 0 ? ['min-properties'] : []),
      ...(node.additionalProperties === false ? ['permitted-properties'] : []),
    ];
    for (const family of families)
      out.push(schemaRule(path, family, statementOf(path, node, family), quotes));
    for (const name of node.required ?? []) {
      const child = [...path, name];
      out.push(
        schemaRule(
          child,
          'required',
          `${fieldOfPath(path)} holds ${name}.`,
          own(SITE_QUOTES, fieldOfPath(child)) ?? quotes,
        ),
      );
    }
    for (const [name, f] of Object.entries(own(FORBIDDEN, fieldOfPath(path)) ?? {}))
      out.push(schemaRule([...path, name], f.suffix, f.statement, f.quotes));
  }
  return out;
}

const RULES = derive();
const BY_ID = new Map(RULES.map((r) => [r.rule.id, r]));

/** The body's anyOf: the properties of which one must be present. */
const ONE_OF_NAMES: readonly string[] = (
  (spec().schema(PATCH_SCHEMA).anyOf as { required?: string[] }[] | undefined) ?? []
).flatMap((b) => b.required ?? []);

export const DETAILS_OR_ACCOUNTS: RequestRule = {
  id: `patch-body-${ONE_OF_NAMES.map((n) => stemOfPath([n])).join('-or-')}`,
  level: 'MUST',
  refusal: 'required',
  where: { in: 'body', pointer: '' },
  operations: [PATCH],
  statement: `The body holds ${ONE_OF_NAMES.join(', ')} or both: so never fewer than one property.`,
  quotes: [Q.patchBody, Q.emptyPatch, Q.minSizes],
};

/**
 * The rule of a site (pathOfField('counterpartyAccounts[].name'), as the generators label their
 * values) and a JSON Schema keyword, if the schema has it: how a labelled value finds its rule.
 */
export function bodyRuleId(path: readonly string[], keyword: string): string | undefined {
  if (path.length === 0 && keyword === 'minProperties') return DETAILS_OR_ACCOUNTS.id;
  const id = bodyRuleIdAt(
    path,
    familyOfKeyword(keyword) === 'additionalProperties' ? 'permitted-properties' : familyOfKeyword(keyword),
  );
  return BY_ID.has(id) ? id : undefined;
}

export const NOT_LISTED: OpenPoint = {
  id: 'patch-property-not-listed',
  where: { in: 'body', pointer: '/counterpartyDetails/address, /counterpartyAccounts/*' },
  operations: [PATCH],
  statement:
    'A property an address or an account item does not list: the document lists their fields but says "Permitted" only of the body and of counterpartyDetails.',
  quotes: [Q.patchAccounts, Q.permittedDetails],
};

/** Object sites the document describes by fields without requiring any: empty, they are open. */
const EMPTY_SITES = sites().filter(
  (s) => s.path.length > 0 && s.node.properties && !s.node.required && s.node.minProperties === undefined,
);

export const EMPTY_OBJECT: readonly OpenPoint[] = EMPTY_SITES.map((s) => ({
  id: `patch-${stemOfPath(s.path)}-empty`,
  where: { in: 'body', pointer: pointerOfPath(s.path) },
  operations: [PATCH],
  statement: `An empty ${fieldOfPath(s.path)}: the schema allows it, but the document describes it by its fields and does not say what an empty one changes.`,
  quotes: own(SITE_QUOTES, fieldOfPath(s.path))!,
}));

/** The value at an instance path of ajv ('/counterpartyAccounts/0/name'). */
function valueAt(value: unknown, instancePath: string): unknown {
  let at = value;
  for (const token of instancePath.split('/').slice(1))
    at = ownOf(at, token.replace(/~1/g, '/').replace(/~0/g, '~'));
  return at;
}

const show = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 50 ? `${s.slice(0, 50)}…` : s;
};

export const BODY_SCHEMA: Family = {
  name: 'body-schema',
  rules: [DETAILS_OR_ACCOUNTS, ...RULES.map((r) => r.rule)],
  open: [NOT_LISTED, ...EMPTY_OBJECT],
  judge(view, sink) {
    if (view.operationId !== PATCH) return;
    const json = view.json();
    if (json.state !== 'json') return;
    const body = json.value;
    const validate = spec().validator(PATCH_SCHEMA);
    const seen = new Set<string>();
    const report = (rule: RequestRule, at: string, message: string): void => {
      if (seen.has(`${rule.id}\u0000${at}`)) return;
      seen.add(`${rule.id}\u0000${at}`);
      sink.breach(rule, at, message);
    };
    if (isObject(body) && ONE_OF_NAMES.every((n) => !Object.hasOwn(body, n)))
      report(DETAILS_OR_ACCOUNTS, '(body)', `a body with none of ${ONE_OF_NAMES.join(', ')}: ${show(body)}`);
    if (!validate(body)) {
      const errors = validate.errors ?? [];
      // A value of another type is outside an enum of strings too: the type rule names the fault.
      const mistyped = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
      for (const e of errors) {
        if (e.keyword === 'enum' && mistyped.has(e.instancePath)) continue;
        if (e.keyword === 'anyOf' || e.keyword === 'if' || /\/(anyOf|then)\//.test(e.schemaPath)) continue;
        const path = pathOfInstance(e.instancePath);
        if (path.length === 0 && e.keyword === 'minProperties') continue;
        const params = e.params as { missingProperty?: string; additionalProperty?: string };
        const at = e.instancePath || '(body)';
        let id: string;
        if (e.keyword === 'required') id = bodyRuleIdAt([...path, params.missingProperty!], 'required');
        else if (e.keyword === 'additionalProperties') {
          const name = params.additionalProperty!;
          const forbidden = forbiddenAt(path, name);
          id = bodyRuleIdAt(
            forbidden ? [...path, name] : path,
            forbidden ? forbidden.suffix : 'permitted-properties',
          );
        } else id = bodyRuleIdAt(path, familyOfKeyword(e.keyword));
        const r = BY_ID.get(id);
        if (!r) throw new Error(`requests: no rule ${id} for the schema error ${e.schemaPath}`);
        const name = params.missingProperty ?? params.additionalProperty;
        const detail = name ? '' : ` (${show(valueAt(body, e.instancePath))})`;
        report(r.rule, name ? `${e.instancePath}/${name}` : at, `${at}: ${e.message ?? e.keyword}${detail}`);
      }
    }
    walkInstance(body, (site, value, pointer) => {
      if (!isObject(value) || !site.node.properties) return;
      if (site.node.additionalProperties !== false)
        for (const name of Object.keys(value))
          if (!Object.hasOwn(site.node.properties, name))
            sink.open(NOT_LISTED, `${pointer}/${name}`, `${fieldOfPath(site.path)} does not list ${name}`);
      const empty = EMPTY_OBJECT[EMPTY_SITES.findIndex((s) => s === site)];
      if (empty && Object.keys(value).length === 0)
        sink.open(empty, pointer, `an empty ${fieldOfPath(site.path)}`);
    });
  },
  cases(): RuleCase[] {
    const at = (path: readonly string[], value?: unknown) =>
      patchRequest(value === undefined ? bodyWith(path) : bodyWith(path, value));
    const out: RuleCase[] = [{ rule: DETAILS_OR_ACCOUNTS.id, holds: at([]), breaks: patchRequest({}) }];
    for (const { rule, path, family } of RULES) {
      const parent = path.slice(0, -1);
      const name = path[path.length - 1]!;
      let breaks: unknown;
      if (family === 'required') {
        const { [name]: _dropped, ...rest } = sampleAt(parent) as Record<string, unknown>;
        out.push({ rule: rule.id, holds: at(parent), breaks: at(parent, rest) });
        continue;
      }
      if (family === 'permitted-properties')
        breaks = { ...(sampleAt(path) as object), unlistedProperty: 'x' };
      else if (forbiddenAt(parent, name)) {
        const value = name === 'counterpartyReference' ? 'ACME-0002' : 'web';
        out.push({
          rule: rule.id,
          holds: at(parent),
          breaks: at(parent, { ...(sampleAt(parent) as object), [name]: value }),
        });
        continue;
      } else
        breaks = breakingValue(
          sites().find((s) => s.path.join('.') === path.join('.'))!,
          family,
        );
      out.push({ rule: rule.id, holds: at(path), breaks: at(path, breaks) });
    }
    return out;
  },
  openCases(): OpenCase[] {
    const address = ['counterpartyDetails', 'address'];
    const account = ['counterpartyAccounts', '[]'];
    return [
      {
        point: NOT_LISTED.id,
        request: patchRequest(bodyWith(address, { ...(sampleAt(address) as object), street: 'Main' })),
      },
      {
        point: NOT_LISTED.id,
        request: patchRequest(bodyWith(account, { ...(sampleAt(account) as object), nickname: 'Ops' })),
      },
      ...EMPTY_SITES.map((s, i) => ({
        point: EMPTY_OBJECT[i]!.id,
        request: patchRequest(bodyWith(s.path, {})),
      })),
    ];
  },
};
