/**
 * A valid PATCH sent in every form HTTP (RFC 9110) and JSON (RFC 8259) make one with its plain
 * form, as the request model enumerates them (requests/equivalence.ts, `equivalents`): white space
 * around header values, the media type in other cases and with parameters, several spaces after
 * Bearer, JSON white space, member order and escapes. Each is a change of the writable
 * counterparty's remarks and email address, so each is a real update; a refusal of one is a
 * finding (patch-equivalent-accepted), and the oracles judge each as any accepted PATCH (what was
 * sent applied, persisted, the rest unchanged). The changes are handed on (finishWriting).
 *
 * Left out, and why: the rewritings the catalogue asks at SHOULD level under their own
 * requirement (the scheme in another case, percent-encoded path characters: other probes send
 * those), those the API may read differently (query order, number forms), a header name in
 * another case (a server receives names normalised; the transport writes its own), and chunked
 * framing (the transport sends a Content-Length).
 */
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { counterpartyPath } from '../exchange/paths.ts';
import { REDACTED_TOKEN } from '../exchange/redact.ts';
import { type Probe, type ProbeContext, runCases } from '../engine/probe-api.ts';
import { COUNTERPARTY_RESPONSE_REQUIREMENTS } from '../oracles/counterparty-response.ts';
import type { Violation } from '../oracles/types.ts';
import { equivalents, type Rewriting } from '../requests/index.ts';
import type { HttpRequest } from '../transport/client.ts';
import { family } from './family.ts';
import { acceptedRoundTrips, finishWriting, ROLE, startWriting, Writer } from './write-lane.ts';
import { operationIds } from '../spec/operations.ts';

/** The rewritings this probe sends: MUST-level sameness of the RFCs, with no requirement of its own. */
export const SENT_KINDS = [
  'header-value-whitespace',
  'media-type-case',
  'media-type-charset',
  'media-type-parameters',
  'bearer-spaces',
  'json-whitespace',
  'json-key-order',
  'json-escapes',
] as const;

/** The plain valid body of case `i`: a change of two detail fields, so member order matters. */
export function plainBody(i: number): { counterpartyDetails: { remarks: string; emailAddress: string } } {
  return {
    counterpartyDetails: {
      remarks: `Equivalent form ${i + 1}`,
      emailAddress: `equivalent.${i + 1}@example.com`,
    },
  };
}

/** The model's request for a plain body: the form the rewritings start from. */
function modelRequestOf(
  ref: string,
  body: unknown,
): { method: string; url: string; headers: Record<string, string>; body: string } {
  return {
    method: 'PATCH',
    url: counterpartyPath(ref),
    headers: { Authorization: `Bearer ${REDACTED_TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  };
}

/** One case: the rewriting of kind `kind` (the first the model gives) of case `i`'s plain PATCH. */
export interface EquivalentCase {
  kind: (typeof SENT_KINDS)[number];
  rewriting: Rewriting;
}

export function equivalentCases(ref: string): EquivalentCase[] {
  return SENT_KINDS.map((kind, i) => {
    const rewriting = equivalents(modelRequestOf(ref, plainBody(i))).find((r) => r.kind === kind);
    if (!rewriting) throw new Error(`the request model gives no ${kind} rewriting of a valid PATCH`);
    return { kind, rewriting };
  });
}

/** The transport's request for a rewriting: its Authorization (the real token in place of $API_TOKEN), Content-Type and text. */
export function transportRequest(ctx: ProbeContext, rewriting: Rewriting): HttpRequest {
  const lines = Array.isArray(rewriting.request.headers)
    ? rewriting.request.headers
    : Object.entries(rewriting.request.headers);
  const headers: Record<string, string> = {};
  let auth: HttpRequest['auth'] = 'token';
  for (const [name, value] of lines) {
    if (name.toLowerCase() === 'authorization')
      auth = { authorization: value.replace(REDACTED_TOKEN, ctx.target.token), recorded: value };
    else if (name.toLowerCase() === 'content-type') headers['Content-Type'] = value;
  }
  return {
    method: 'PATCH',
    path: counterpartyPath(ctx.target.writableRef!),
    auth,
    headers,
    rawBody: String(rewriting.request.body),
    role: `${ROLE.patch} (${rewriting.kind})`,
  };
}

/** The probe's own judgement: the valid PATCH, written another way, is accepted. */
function judge(ctx: ProbeContext, c: EquivalentCase, ex: Exchange): Violation | undefined {
  if (ex.status === 0) return undefined;
  if (is2xx(ex.status)) {
    ctx.held('patch-equivalent-accepted');
    return undefined;
  }
  return {
    requirement: 'patch-equivalent-accepted',
    exchange: ex,
    message: `a valid PATCH written another way (${c.rewriting.description}) was answered ${ex.status}`,
    expected: `2xx, as for the same PATCH in its plain form: ${c.rewriting.basis} makes the two one request`,
    received: describeResponse(ex),
  };
}

export const patchEquivalentForms: Probe = {
  id: 'patch-equivalent-forms',
  title:
    'a valid PATCH in every form HTTP and JSON make one with it: header value white space, media type case and parameters, Bearer spacing, JSON white space, member order, escapes',
  requirements: [
    'patch-equivalent-accepted',
    'patch-persisted',
    'patch-sent-fields-applied',
    'patch-unsent-fields-unchanged',
    ...COUNTERPARTY_RESPONSE_REQUIREMENTS,
  ],
  judges: ['patch-equivalent-accepted'],
  operations: operationIds({ resource: 'counterparty' }),
  roundTrips: () => acceptedRoundTrips(SENT_KINDS.length),
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const { original } = await startWriting(ctx, ref);
    const writer = new Writer(ctx, ref);
    // The read startWriting made or found, with nothing sent since, is the read before the first form.
    writer.resume();
    try {
      // One after another: each is accepted by a conforming deployment, a change of the same counterparty.
      await runCases(ctx, equivalentCases(ref), {
        async probe(c) {
          const ex = await writer.patch(transportRequest(ctx, c.rewriting), true);
          return judge(ctx, c, ex);
        },
        schedule: { lane: () => ref },
      });
      await writer.settle();
    } finally {
      await finishWriting(ctx, ref, original);
    }
    ctx.note(`sent ${SENT_KINDS.length} forms of a valid PATCH: ${SENT_KINDS.join(', ')}`);
  },
};

export const EQUIVALENT_REQUEST_PROBES = family(import.meta.url, [patchEquivalentForms]);
