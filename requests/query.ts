/**
 * Query parameters. Rules: one per constraint family of each query parameter the spec declares
 * with a constraint (GET /api/v1/bills: counterpartyReference keeps §2.1's length and pattern;
 * page and pageSize are integers of minimum 0, §8 and 1.3.0), read from spec/openapi.yaml.
 *
 * What the document leaves open is reported, never judged: a parameter an operation does not
 * declare (the due-date range's names, the mandate filters, the direct-debit cursor are not
 * shown), a value of a declared parameter the document does not settle (a bill status outside
 * the four it names, whose complete list is not shown; any `type` or `cashflowType`, named
 * without values), and a parameter given twice (the document shows no list-valued filter).
 *
 * Values are decoded as a form (URLSearchParams: `%41` and `A`, `+` and a space, are the same);
 * an integer is written in decimal digits, a leading `-` for a negative one.
 */
import { spec, type SchemaNode } from '../spec/index.ts';
import { Q } from './quotes.ts';
import { kebab } from './schema-sites.ts';
import { familyOfKeyword, sampleOf, sampleRequest, stringOfLength } from './samples.ts';
import type { Level, OpenPoint, Quote, Refusal, RequestRule, RuleCase } from './types.ts';
import type { Family } from './view.ts';
import { own } from '../exchange/own.ts';
import { operationOf, operationsWhere } from '../spec/operations.ts';

/** The list of bills, the one operation whose query parameters the document shows. */
const BILL_LIST = operationOf('bill', 'list');

interface ParamDecision {
  level: Level;
  refusal: Refusal;
  quotes: readonly Quote[];
  rationale: string;
}

/** What each constrained query parameter rests on (a parameter the spec constrains must be here). */
const DECISIONS: Readonly<Record<string, Readonly<Record<string, ParamDecision>>>> = {
  [BILL_LIST.operationId]: {
    counterpartyReference: {
      level: 'MUST',
      refusal: 'permitted',
      quotes: [BILL_LIST.row, Q.referenceRow],
      rationale:
        'A counterparty reference keeps §2.1 wherever it is written; a filter no counterparty can match may be refused or answered with an empty list.',
    },
    page: {
      level: 'SHOULD',
      refusal: 'permitted',
      quotes: [Q.pagination, Q.paginationChange, BILL_LIST.row],
      rationale:
        "The minimum is stated; that page and pageSize are the query parameters of the list is the spec's reading of the 1.3.0 change note, not a sentence of the document (as bill-list-pagination-zero-accepted): SHOULD.",
    },
    pageSize: {
      level: 'SHOULD',
      refusal: 'permitted',
      quotes: [Q.pagination, Q.paginationChange, BILL_LIST.row],
      rationale:
        "As page: the minimum is stated, the parameter name is the spec's reading of the change note. No maximum is shown.",
    },
  },
};

interface QueryParam {
  operationId: string;
  name: string;
  /** Resolved. */
  node: SchemaNode;
  raw: SchemaNode;
  rules: Map<string, RequestRule>;
}

function familiesOf(node: SchemaNode): string[] {
  const out: string[] = [];
  if (node.type === 'integer') out.push('integer');
  if (node.minimum !== undefined) out.push('minimum');
  if (node.minLength !== undefined || node.maxLength !== undefined) out.push('length');
  if (node.pattern !== undefined) out.push('pattern');
  if (node.enum !== undefined) out.push('enum');
  return out;
}

function statement(name: string, node: SchemaNode, family: string): string {
  switch (family) {
    case 'integer':
      return `The query parameter ${name} is an integer in decimal digits.`;
    case 'minimum':
      return `The query parameter ${name} is at least ${node.minimum ?? 0}.`;
    case 'length':
      return `The query parameter ${name} has ${node.minLength ?? 0} to ${node.maxLength ?? '∞'} characters.`;
    case 'pattern':
      return `The query parameter ${name} matches ${node.pattern ?? ''}.`;
    default:
      return `The query parameter ${name} is one of ${(node.enum ?? []).join(', ')}.`;
  }
}

function derive(): QueryParam[] {
  const out: QueryParam[] = [];
  for (const op of spec().operations()) {
    for (const p of spec().parameters(op.operationId)) {
      if (p.in !== 'query') continue;
      const node = spec().resolve(p.schema);
      const rules = new Map<string, RequestRule>();
      const families = familiesOf(node);
      const forOperation = own(DECISIONS, op.operationId);
      const decision = forOperation && own(forOperation, p.name);
      if (families.length > 0 && !decision)
        throw new Error(
          `requests: query parameter ${p.name} of ${op.operationId} is constrained but quotes nothing`,
        );
      for (const family of families) {
        rules.set(family, {
          id: `query-${kebab(op.operationId)}-${kebab(p.name)}-${family}`,
          level: decision!.level,
          refusal: decision!.refusal,
          where: { in: 'query', name: p.name },
          operations: [op.operationId],
          statement: statement(p.name, node, family),
          quotes: decision!.quotes,
          rationale: decision!.rationale,
        });
      }
      out.push({ operationId: op.operationId, name: p.name, node, raw: p.schema, rules });
    }
  }
  return out;
}

const PARAMS = derive();

export const NOT_DOCUMENTED: OpenPoint = {
  id: 'query-parameter-not-documented',
  where: { in: 'query', name: '(any)' },
  operations: [],
  statement:
    'A query parameter the operation does not declare: the mandate filters, the direct-debit cursor and the bill due-date range are named without parameter names, so it may be one of them.',
  quotes: [...operationsWhere({ action: 'list' }).map((op) => op.row), Q.notShown43],
};

export const VALUE_NOT_SHOWN: OpenPoint = {
  id: 'query-value-not-shown',
  where: { in: 'query', name: 'status, type, cashflowType' },
  operations: [BILL_LIST.operationId],
  statement:
    'A value the document does not settle: a bill status other than the four it names (the complete list is not shown), any type or cashflowType (named without values).',
  quotes: [BILL_LIST.row, Q.billStatusesNotShown],
};

export const REPEATED: OpenPoint = {
  id: 'query-parameter-repeated',
  where: { in: 'query', name: '(any)' },
  operations: [],
  statement: 'A query parameter given more than once: the document shows no filter taking a list.',
  quotes: [BILL_LIST.row],
};

/** A declared parameter with nothing to settle its value: no enum, pattern, bounds or format. */
function unsettled(p: QueryParam, value: string): boolean {
  if (p.rules.size > 0) return false;
  const examples = p.node.examples;
  return !(Array.isArray(examples) && examples.includes(value));
}

function judgeValue(
  p: QueryParam,
  value: string,
  report: (rule: RequestRule, message: string) => void,
): void {
  let instance: unknown = value;
  if (p.node.type === 'integer') {
    if (!/^-?[0-9]+$/.test(value)) {
      report(p.rules.get('integer')!, `${p.name}=${JSON.stringify(value)} is not an integer`);
      return;
    }
    instance = Number(value);
  }
  const check = spec().compile(p.raw);
  if (check(instance)) return;
  const seen = new Set<string>();
  for (const e of check.errors ?? []) {
    const family = familyOfKeyword(e.keyword);
    const rule = p.rules.get(family);
    if (!rule || seen.has(family)) continue;
    seen.add(family);
    report(
      rule,
      `${p.name}=${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}: ${e.message ?? e.keyword}`,
    );
  }
}

export const QUERY: Family = {
  name: 'query',
  rules: PARAMS.flatMap((p) => [...p.rules.values()]),
  open: [NOT_DOCUMENTED, VALUE_NOT_SHOWN, REPEATED],
  judge(view, sink) {
    if (view.target.kind !== 'operation' || view.query.length === 0) return;
    const declared = PARAMS.filter((p) => p.operationId === view.operationId);
    const counts = new Map<string, number>();
    for (const [name] of view.query) counts.set(name, (counts.get(name) ?? 0) + 1);
    for (const [name, n] of counts)
      if (n > 1) sink.open(REPEATED, `query ${name}`, `${name} is given ${n} times`);
    for (const [name, value] of view.query) {
      const p = declared.find((d) => d.name === name);
      if (!p) {
        sink.open(NOT_DOCUMENTED, `query ${name}`, `${view.operationId} declares no query parameter ${name}`);
        continue;
      }
      if (unsettled(p, value)) {
        sink.open(
          VALUE_NOT_SHOWN,
          `query ${name}`,
          `the document does not settle ${name}=${JSON.stringify(value)}`,
        );
        continue;
      }
      judgeValue(p, value, (rule, message) => sink.breach(rule, `query ${name}`, message));
    }
  },
  cases(): RuleCase[] {
    const out: RuleCase[] = [];
    for (const p of PARAMS) {
      const base = sampleRequest(p.operationId);
      const at = (value: string) => ({
        ...base,
        url: `${base.url}?${new URLSearchParams([[p.name, value]]).toString()}`,
      });
      for (const [family, rule] of p.rules) {
        const min = p.node.minimum ?? 0;
        const good = p.node.type === 'integer' ? String(min) : stringOfLength(p.node, p.node.minLength ?? 1)!;
        const bad: Record<string, string | undefined> = {
          integer: `${min}.5`,
          minimum: String(min - 1),
          length: stringOfLength(p.node, (p.node.maxLength ?? 0) + 1),
          pattern: `${good.slice(0, -1)}$`,
          enum: 'not-a-member',
        };
        out.push({ rule: rule.id, holds: at(good), breaks: at(own(bad, family)!) });
      }
    }
    return out;
  },
  openCases() {
    const bills = sampleOf('bill', 'list');
    return [
      { point: NOT_DOCUMENTED.id, request: { ...bills, url: `${bills.url}?dueDateFrom=2026-01-01` } },
      { point: VALUE_NOT_SHOWN.id, request: { ...bills, url: `${bills.url}?status=DRAFT` } },
      { point: REPEATED.id, request: { ...bills, url: `${bills.url}?page=0&page=1` } },
    ];
  },
};
