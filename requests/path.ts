/**
 * Path parameters. Rules: one per constraint family (length, pattern) of each path parameter the
 * spec gives a schema (counterpartyReference of §4.1; mandateReference and collectionReference
 * of the 1.3.0 change note; a bill's reference has none), read from the operations of
 * spec/openapi.yaml, plus the slash of §4.1.
 *
 * A parameter is judged decoded (exchange/route.ts decodes it): `%41` is `A` (RFC 3986 §2.3), so
 * a reference written with percent-encoded unreserved characters is the same reference; `%2F` is
 * a slash inside the segment, which the pattern refuses (a raw `/` is routing, not pattern: §4.1
 * sends it to 404, and the length and pattern are not judged then, §7: "without a slash").
 */
import { spec, type SchemaNode } from '../spec/index.ts';
import { Q } from './quotes.ts';
import { kebab } from './schema-sites.ts';
import { familyOfKeyword, sampleOf, sampleRequest, urlOf, SAMPLE_PARAMS, stringOfLength } from './samples.ts';
import type { Quote, RequestRule, RuleCase } from './types.ts';
import type { Family } from './view.ts';
import { own } from '../exchange/own.ts';
import { operationIds } from '../spec/operations.ts';

/** What each constrained parameter rests on: a parameter the spec constrains must be listed. */
const PARAMETER_QUOTES: Readonly<Record<string, readonly Quote[]>> = {
  counterpartyReference: [Q.referenceParam, Q.patternRow],
  mandateReference: [Q.mandatePattern],
  collectionReference: [Q.collectionPattern],
};

interface ParamRule {
  rule: RequestRule;
  name: string;
  family: string;
  schema: SchemaNode;
}

function describe(schema: SchemaNode, family: string): string {
  if (family === 'length') return `has ${schema.minLength ?? 0} to ${schema.maxLength ?? '∞'} characters`;
  return `matches ${schema.pattern ?? ''}`;
}

function deriveRules(): ParamRule[] {
  const byName = new Map<string, { schema: SchemaNode; operations: string[] }>();
  for (const op of spec().operations()) {
    for (const [name, schema] of op.pathParamSchemas) {
      const entry = byName.get(name) ?? { schema, operations: [] };
      entry.operations.push(op.operationId);
      byName.set(name, entry);
    }
  }
  const out: ParamRule[] = [];
  for (const [name, { schema, operations }] of byName) {
    const families = [
      ...(schema.minLength !== undefined || schema.maxLength !== undefined ? ['length'] : []),
      ...(schema.pattern !== undefined ? ['pattern'] : []),
    ];
    if (families.length === 0) continue;
    const quotes = own(PARAMETER_QUOTES, name);
    if (!quotes) throw new Error(`requests: path parameter ${name} is constrained but quotes nothing`);
    for (const family of families) {
      out.push({
        name,
        family,
        schema,
        rule: {
          id: `path-${kebab(name)}-${family}`,
          level: 'MUST',
          refusal: 'required',
          where: { in: 'path', name },
          operations,
          statement: `The path parameter ${name}, decoded, ${describe(schema, family)}.`,
          quotes,
          ...(name === 'counterpartyReference'
            ? { rationale: 'Answered 400 without a slash (§7).' }
            : {
                rationale:
                  'Which 4xx is not shown (§7 settles 400 for counterpartyReference only): no resource can have such a reference, so a conforming deployment does not answer 2xx.',
              }),
        },
      });
    }
  }
  return out;
}

const PARAM_RULES = deriveRules();

export const SLASH_RULE: RequestRule = {
  id: 'path-counterparty-reference-no-slash',
  level: 'MUST',
  refusal: 'required',
  where: { in: 'path', name: 'counterpartyReference' },
  operations: operationIds({ resource: 'counterparty' }),
  statement:
    'The counterparty reference holds no raw "/": one is a path separator, and the request a routing failure (404), its length and pattern not judged.',
  quotes: [Q.slash, Q.slashRow],
};

const show = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** A value of the parameter that breaks `family` alone, by its schema. */
function breaking(p: ParamRule): string {
  const check = spec().compile(p.schema);
  const sample = own(SAMPLE_PARAMS, p.name)!;
  const at = Math.floor(sample.length / 2);
  const candidates =
    p.family === 'length'
      ? [
          stringOfLength(p.schema, (p.schema.maxLength ?? 0) + 1),
          stringOfLength(p.schema, (p.schema.minLength ?? 0) - 1),
        ]
      : ['$', '.', '_', '~', ' ', 'é'].map((c) => sample.slice(0, at) + c + sample.slice(at + 1));
  for (const v of candidates) {
    if (v === undefined || v === '' || check(v)) continue;
    if ((check.errors ?? []).every((e) => familyOfKeyword(e.keyword) === p.family)) return v;
  }
  throw new Error(`requests: no value of ${p.name} breaks its ${p.family} alone`);
}

export const PATH: Family = {
  name: 'path',
  rules: [...PARAM_RULES.map((p) => p.rule), SLASH_RULE],
  open: [],
  judge(view, sink) {
    const t = view.target;
    if (t.kind === 'slash') {
      sink.breach(
        SLASH_RULE,
        'path counterpartyReference',
        `the reference ${show(t.reference)} holds a raw "/"`,
      );
      return;
    }
    if (t.kind !== 'operation') return;
    for (const p of PARAM_RULES) {
      const value = Object.hasOwn(t.params, p.name) ? t.params[p.name] : undefined;
      if (value === undefined) continue;
      const check = spec().compile(p.schema);
      if (check(value)) continue;
      const errors = (check.errors ?? []).filter((e) => familyOfKeyword(e.keyword) === p.family);
      if (errors.length > 0)
        sink.breach(
          p.rule,
          `path ${p.name}`,
          `${p.name} ${show(value)} (length ${[...value].length}): ${errors.map((e) => e.message ?? e.keyword).join('; ')}`,
        );
    }
  },
  cases(): RuleCase[] {
    const out: RuleCase[] = PARAM_RULES.map((p) => {
      const operationId = p.rule.operations[0]!;
      return {
        rule: p.rule.id,
        holds: sampleRequest(operationId),
        breaks: {
          ...sampleRequest(operationId),
          url: urlOf(operationId, { ...SAMPLE_PARAMS, [p.name]: breaking(p) }),
        },
      };
    });
    const get = sampleOf('counterparty', 'read');
    out.push({
      rule: SLASH_RULE.id,
      holds: get,
      breaks: { ...get, url: get.url.replace('ACME-0001', 'ACME/0001') },
    });
    return out;
  },
  openCases: () => [],
};
