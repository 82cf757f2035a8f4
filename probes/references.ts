/**
 * The reference in the path of GET /api/v1/counterparties/{ref} (interface.md §4.1, §7):
 * valid references are never a pattern violation, invalid ones are, a raw slash is routing.
 */
import {
  invalidReference,
  invalidReferenceExamples,
  slashReference,
  slashReferenceExamples,
  validReference,
  validReferenceExamples,
} from '../generators/counterparty-reference.ts';
import { describeResponse } from '../transport/client.ts';
import { COUNTERPARTIES, counterpartyPath, rawSlashCounterpartyPath } from '../exchange/paths.ts';
import { runProperty } from '../engine/property.ts';
import type { Check } from '../engine/types.ts';

export const validReferencesNot400: Check = {
  id: 'valid-references-not-400',
  title: 'references of length 3 to 90 from [-_a-zA-Z0-9] are never answered 400',
  requirements: ['reference-valid-not-400'],
  group: 'references',
  access: 'read',
  async run(ctx) {
    await runProperty(ctx, {
      name: 'valid reference',
      arbitrary: validReference(),
      examples: validReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(input.value) });
        if (ex.status !== 400 && ex.status !== 0) return undefined;
        return {
          exchange: ex,
          requirement: 'reference-valid-not-400',
          message: `the valid reference ${JSON.stringify(input.value)} was ${ex.status === 0 ? 'not answered' : 'answered 400'}`,
          expected: 'any status but 400 (the reference keeps length and pattern; whether it exists is open)',
          received: describeResponse(ex),
        };
      },
    });
  },
};

export const invalidReferences400: Check = {
  id: 'invalid-references-400',
  title: 'references breaking the length or pattern, without a slash, are answered 400',
  requirements: ['reference-invalid-400'],
  group: 'references',
  access: 'read',
  async run(ctx) {
    await runProperty(ctx, {
      name: 'invalid reference',
      arbitrary: invalidReference(),
      examples: invalidReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(input.value) });
        if (ex.status === 400) return undefined;
        return {
          exchange: ex,
          requirement: 'reference-invalid-400',
          message: `the invalid reference ${JSON.stringify(input.value)} (${input.rule.description}) was not answered 400`,
          expected: '400 (interface.md §7: a reference violating length or pattern without a slash)',
          received: describeResponse(ex),
        };
      },
    });
  },
};

export const slashReferences404: Check = {
  id: 'slash-references-404',
  title: 'a reference holding a raw "/" is a routing failure answered 404',
  requirements: ['reference-slash-404'],
  group: 'references',
  access: 'read',
  async run(ctx) {
    await runProperty(ctx, {
      name: 'raw slash reference',
      arbitrary: slashReference(),
      examples: slashReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send({ method: 'GET', path: rawSlashCounterpartyPath(input.value) });
        if (ex.status === 404) return undefined;
        return {
          exchange: ex,
          requirement: 'reference-slash-404',
          message: `the reference ${JSON.stringify(input.value)} with a raw slash was not answered 404`,
          expected: '404 (interface.md §4.1: the slash is a path separator, a routing failure)',
          received: describeResponse(ex),
        };
      },
    });
  },
};

export const encodedSlashNotSuccess: Check = {
  id: 'encoded-slash-not-success',
  title: 'a reference holding a percent-encoded slash (%2F) never returns a counterparty',
  requirements: ['reference-encoded-slash-not-success'],
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
        const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(input.value) });
        if (ex.status < 200 || ex.status > 299) return undefined;
        return {
          exchange: ex,
          requirement: 'reference-encoded-slash-not-success',
          message: `the reference ${JSON.stringify(input.value)} sent with %2F was answered ${ex.status}`,
          expected: 'not 2xx: a reference holding a slash matches no counterparty (400 or 404 are both open)',
          received: describeResponse(ex),
        };
      },
    });
    ctx.note(`encoded slashes are sent below ${COUNTERPARTIES}/ as %2F`);
  },
};

/** A valid body for the PATCH reference probes: only the reference is being judged. */
const PROBE_BODY = { counterpartyDetails: { remarks: 'conformance reference probe' } };

export const patchInvalidReferences400: Check = {
  id: 'patch-invalid-references-400',
  title:
    'a PATCH with a valid body to a reference breaking the length or pattern, without a slash, is answered 400',
  requirements: ['reference-invalid-400'],
  group: 'references',
  access: 'write',
  async run(ctx) {
    await runProperty(ctx, {
      name: 'invalid reference (PATCH)',
      arbitrary: invalidReference(),
      examples: invalidReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send({
          method: 'PATCH',
          path: counterpartyPath(input.value),
          json: PROBE_BODY,
        });
        if (ex.status === 400) return undefined;
        return {
          exchange: ex,
          requirement: 'reference-invalid-400',
          message: `PATCH of the invalid reference ${JSON.stringify(input.value)} (${input.rule.description}) with a valid body was not answered 400`,
          expected:
            '400 (interface.md §4.2: the path parameter is as in §4.1; §7: a reference violating length or pattern)',
          received: describeResponse(ex),
        };
      },
    });
  },
};

export const patchSlashReferences404: Check = {
  id: 'patch-slash-references-404',
  title: 'a PATCH to a reference holding a raw "/" is a routing failure answered 404',
  requirements: ['reference-slash-404'],
  group: 'references',
  access: 'write',
  async run(ctx) {
    await runProperty(ctx, {
      name: 'raw slash reference (PATCH)',
      arbitrary: slashReference(),
      examples: slashReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send({
          method: 'PATCH',
          path: rawSlashCounterpartyPath(input.value),
          json: PROBE_BODY,
        });
        if (ex.status === 404) return undefined;
        return {
          exchange: ex,
          requirement: 'reference-slash-404',
          message: `PATCH of the reference ${JSON.stringify(input.value)} with a raw slash was not answered 404`,
          expected: '404 (interface.md §4.1, §7: the slash is a path separator, a routing failure)',
          received: describeResponse(ex),
        };
      },
    });
  },
};

export const REFERENCE_CHECKS: Check[] = [
  validReferencesNot400,
  invalidReferences400,
  slashReferences404,
  encodedSlashNotSuccess,
  patchInvalidReferences400,
  patchSlashReferences404,
];
