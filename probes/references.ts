/**
 * References in the path of GET and PATCH /api/v1/counterparties/{ref} (interface.md §4.1, §7):
 * generated valid ones, invalid ones (every kind of forbidden character, lengths past both
 * bounds), raw slashes and encoded slashes. What the answers must be is judged by the
 * reference-status oracle from the URL alone; these probes add only what needs their plan: they
 * send the configured, valid token, so an answer 401 or 403 (which the oracle leaves open,
 * since authentication may come first) is wrong here.
 */
import {
  invalidReference,
  invalidReferenceExamples,
  slashReference,
  slashReferenceExamples,
  validReference,
  validReferenceExamples,
} from '../generators/counterparty-reference.ts';
import { describeResponse } from '../exchange/describe.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { COUNTERPARTIES, counterpartyPath, rawSlashCounterpartyPath } from '../exchange/paths.ts';
import { type Probe, requestKey, runProperty } from '../engine/probe-api.ts';
import { family } from './family.ts';
import type { Violation } from '../oracles/types.ts';
import type { RequirementId } from '../spec/requirements.ts';
import type { HttpRequest } from '../transport/client.ts';
import { operationIds } from '../spec/operations.ts';

/**
 * The GET of a reference (percent-encoded) and of a reference with its slashes raw. Cases are
 * independent reads, so every property here sends its cases concurrently, each request once.
 */
const get = (reference: string): HttpRequest => ({ method: 'GET', path: counterpartyPath(reference) });
const rawSlashGet = (reference: string): HttpRequest => ({
  method: 'GET',
  path: rawSlashCounterpartyPath(reference),
});

/** An answer the oracle leaves open (401, 403) to a request carrying the valid token. */
export function refusedValidToken(
  ex: Exchange,
  requirement: RequirementId,
  expected: string,
): Violation | undefined {
  if (ex.status !== 401 && ex.status !== 403) return undefined;
  return {
    requirement,
    exchange: ex,
    message: `${ex.request.method} with the configured (valid) token was answered ${ex.status}`,
    expected,
    received: describeResponse(ex),
  };
}

export const validReferences: Probe = {
  id: 'valid-references',
  title: 'GET of generated valid references (3 to 90 of [-_a-zA-Z0-9], every allowed character)',
  requirements: ['reference-valid-not-400'],
  judges: [],
  operations: operationIds({ resource: 'counterparty', action: 'read' }),
  group: 'references',
  access: 'read',
  async run(ctx) {
    await runProperty(ctx, {
      name: 'valid reference',
      arbitrary: validReference(),
      examples: validReferenceExamples(),
      async probe(input) {
        await ctx.http.send(get(input.value));
        return undefined;
      },
      concurrent: { key: (input) => requestKey(get(input.value)) },
    });
  },
};

export const invalidReferences: Probe = {
  id: 'invalid-references',
  title: 'GET of references breaking the length or the pattern, without a slash',
  requirements: ['reference-invalid-400'],
  judges: ['reference-invalid-400'],
  operations: operationIds({ resource: 'counterparty', action: 'read' }),
  group: 'references',
  access: 'read',
  async run(ctx) {
    await runProperty(ctx, {
      name: 'invalid reference',
      arbitrary: invalidReference(),
      examples: invalidReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send(get(input.value));
        return refusedValidToken(
          ex,
          'reference-invalid-400',
          '400 (interface.md §7: a reference violating length or pattern)',
        );
      },
      concurrent: { key: (input) => requestKey(get(input.value)) },
    });
  },
};

export const slashReferences: Probe = {
  id: 'slash-references',
  title: 'GET of references holding a raw "/"',
  requirements: ['reference-slash-404'],
  judges: ['reference-slash-404'],
  operations: operationIds({ resource: 'counterparty', action: 'read' }),
  group: 'references',
  access: 'read',
  async run(ctx) {
    await runProperty(ctx, {
      name: 'raw slash reference',
      arbitrary: slashReference(),
      examples: slashReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send(rawSlashGet(input.value));
        return refusedValidToken(
          ex,
          'reference-slash-404',
          '404 (interface.md §4.1: the slash is a path separator)',
        );
      },
      concurrent: { key: (input) => requestKey(rawSlashGet(input.value)) },
    });
  },
};

export const encodedSlashReferences: Probe = {
  id: 'encoded-slash-references',
  title: 'GET of references holding a percent-encoded slash (%2F), the known one split by it first',
  requirements: ['reference-encoded-slash-not-success'],
  judges: [],
  operations: operationIds({ resource: 'counterparty', action: 'read' }),
  group: 'references',
  access: 'read',
  async run(ctx) {
    const known = ctx.target.counterpartyRef;
    const half = Math.max(1, Math.floor(known.length / 2));
    // The known reference split by %2F: a server that decodes before routing could find it.
    const knownSplit = {
      value: `${known.slice(0, half)}/${known.slice(half)}`,
      rule: {
        field: 'counterpartyReference',
        keyword: 'pattern',
        keeps: false,
        description: 'contains "/" sent as %2F',
      },
    };
    await runProperty(ctx, {
      name: 'encoded slash reference',
      arbitrary: slashReference().map((l) => ({
        ...l,
        rule: { ...l.rule, description: 'contains "/" sent as %2F' },
      })),
      examples: [knownSplit, ...slashReferenceExamples()],
      async probe(input) {
        await ctx.http.send(get(input.value));
        return undefined;
      },
      concurrent: { key: (input) => requestKey(get(input.value)) },
    });
    ctx.note(`encoded slashes are sent below ${COUNTERPARTIES}/ as %2F`);
  },
};

export const REFERENCE_PROBES = family(import.meta.url, [
  validReferences,
  invalidReferences,
  slashReferences,
  encodedSlashReferences,
]);
