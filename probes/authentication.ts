/**
 * Bearer authentication on every operation the document lists (interface.md §5; RFC 6750 §3):
 * each is sent without an Authorization header, with empty bearer credentials, under other
 * schemes, and with near misses of the configured token (credentialModes). Reads are also sent
 * with the valid token under the scheme written "bearer" and "BEARER", which HTTP makes the same
 * scheme (RFC 9110 §11.1) and which must therefore not be refused (a SHOULD: the document shows
 * only "Bearer"). The probe judges what
 * needs its plan: the credentials are missing or wrong, so the request must not succeed, and
 * should be answered 401. The challenge a 401 carries is judged by the auth-challenge oracle, on
 * every 401 of the run. Writes are only probed when the run may write.
 */
import { basicPassword, nearMisses } from '../exchange/credentials.ts';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { type Probe, type ProbeContext, requestKey, runCases } from '../engine/probe-api.ts';
import { family } from './family.ts';
import type { Violation } from '../oracles/types.ts';
import type { Operation } from '../spec/index.ts';
import type { Auth, HttpRequest } from '../transport/client.ts';
import { describeOperation, probeRequest } from './operations.ts';
import { operationIds, operationsWhere } from '../spec/operations.ts';

/** One way of sending wrong or missing credentials, and the requirement its refusal keeps. */
export interface CredentialMode {
  auth: Auth;
  requirement: 'auth-missing-rejected' | 'auth-wrong-token-rejected';
  label: string;
  /** A malformed Authorization header: RFC 6750 §3.1 lets it be answered 400 (invalid_request). */
  malformed?: true;
}

/**
 * Every way of sending no credentials, empty ones, another scheme or a near miss of the configured
 * token (one character changed at the first, middle and last place; one fewer; one more; the
 * case flipped), each recorded without the token (a near miss would show all of it but one
 * character). Near misses that equal the token (a token of one character) are left out.
 */
export function credentialModes(token: string): CredentialMode[] {
  const missing = (auth: Auth, label: string): CredentialMode => ({
    auth,
    requirement: 'auth-missing-rejected',
    label,
    ...(auth === 'none' ? {} : { malformed: true as const }),
  });
  const wrong = (authorization: string, recorded: string, label: string): CredentialMode => ({
    auth: { authorization, recorded },
    requirement: 'auth-wrong-token-rejected',
    label,
  });
  const modes: CredentialMode[] = [
    missing('none', 'without an Authorization header'),
    missing({ authorization: 'Bearer' }, 'with "Bearer" and no credentials'),
    missing({ authorization: 'Bearer ' }, 'with "Bearer " and no credentials'),
    wrong(`Basic ${token}`, 'Basic $API_TOKEN', 'with the token under the Basic scheme'),
    wrong(
      `Basic ${basicPassword(token)}`,
      'Basic base64(":" $API_TOKEN)',
      'with the token as a Basic password',
    ),
    wrong(`Token ${token}`, 'Token $API_TOKEN', 'with the token under the Token scheme'),
    // A scheme that ends in "Bearer" is another scheme: a service that looks for "Bearer <token>"
    // anywhere in the field, not at its start, takes it.
    wrong(`XBearer ${token}`, 'XBearer $API_TOKEN', 'with the token under the scheme "XBearer"'),
  ];
  // The near misses (exchange/credentials.ts, where the redaction finds them too).
  for (const near of nearMisses(token))
    modes.push(wrong(`Bearer ${near.value}`, `Bearer ${near.recorded}`, `with ${near.label}`));
  return modes;
}

/** The configured token under the scheme written in other cases: valid HTTP (RFC 9110 §11.1). */
export function schemeCaseModes(token: string): { auth: Auth; label: string }[] {
  return ['bearer', 'BEARER'].map((scheme) => ({
    auth: { authorization: `${scheme} ${token}`, recorded: `${scheme} $API_TOKEN` },
    label: `with the valid token under the scheme written "${scheme}"`,
  }));
}

/** One request of the probe: an operation with wrong or missing credentials, or the token's scheme in another case. */
type AuthCase =
  | { op: Operation; kind: 'refused'; mode: CredentialMode }
  | { op: Operation; kind: 'scheme-case'; mode: { auth: Auth; label: string } };

/** Wrong or missing credentials: the request must not succeed, and should be answered 401. */
function judgeRefused(ctx: ProbeContext, name: string, mode: CredentialMode, ex: Exchange): Violation[] {
  const violations: Violation[] = [];
  if (is2xx(ex.status)) {
    violations.push({
      requirement: mode.requirement,
      exchange: ex,
      message: `${name} succeeded ${mode.label}`,
      expected: 'a refusal (not 2xx): every operation requires a bearer token (interface.md §5)',
      received: describeResponse(ex),
    });
  } else ctx.held(mode.requirement);
  if (ex.status === 401 || (mode.malformed && ex.status === 400)) ctx.held('auth-unauthenticated-401');
  else {
    violations.push({
      requirement: 'auth-unauthenticated-401',
      exchange: ex,
      message: `${name} ${mode.label} was answered ${ex.status}, not 401`,
      expected: mode.malformed
        ? '401, or 400 (RFC 6750 §3.1: a malformed request, invalid_request)'
        : '401 (RFC 6750 §3.1: a missing or invalid token)',
      received: describeResponse(ex),
    });
  }
  return violations;
}

/** The valid token under "bearer" or "BEARER": the same scheme, so not refused. */
function judgeSchemeCase(
  ctx: ProbeContext,
  name: string,
  label: string,
  ex: Exchange,
): Violation | undefined {
  if (ex.status === 401 || ex.status === 403) {
    return {
      requirement: 'auth-scheme-case-insensitive',
      exchange: ex,
      message: `${name} ${label} was answered ${ex.status}`,
      expected:
        'the request judged as authenticated, as with "Bearer": the scheme is case-insensitive (RFC 9110 §11.1)',
      received: describeResponse(ex),
    };
  }
  if (ex.status > 0) ctx.held('auth-scheme-case-insensitive');
  return undefined;
}

/**
 * Every operation with every credential mode, and (reads only, since it authenticates) with the
 * valid token under the scheme in another case. The cases are independent, so they go together:
 * the PATCHes of the writable counterparty among them are refused on a conforming target (a
 * batch between the same reads, engine/judge.ts), and the write probes run one at a time.
 */
async function probeOperations(ctx: ProbeContext, ops: Operation[], read: boolean): Promise<void> {
  const modes = credentialModes(ctx.target.token);
  const cases: AuthCase[] = ops.flatMap((op) => [
    ...modes.map((mode): AuthCase => ({ op, kind: 'refused', mode })),
    ...(read ? schemeCaseModes(ctx.target.token) : []).map((mode): AuthCase => ({
      op,
      kind: 'scheme-case',
      mode,
    })),
  ]);
  const request = (c: AuthCase): HttpRequest => ({
    ...probeRequest(c.op, ctx.target),
    auth: c.mode.auth,
    role: c.mode.label,
  });
  const skipped = await runCases(ctx, cases, {
    async probe(c) {
      const ex = await ctx.http.send(request(c));
      const name = describeOperation(c.op);
      return c.kind === 'refused'
        ? judgeRefused(ctx, name, c.mode, ex)
        : judgeSchemeCase(ctx, name, c.mode.label, ex);
    },
    // Near misses of a very short token can coincide: the same request is sent once.
    schedule: { key: (c) => requestKey(request(c)) },
  });
  ctx.note(
    `probed ${ops.length} operation(s) ${modes.length} way(s) each${read ? ', and the valid token under "bearer" and "BEARER"' : ''}: ${ops.map(describeOperation).join(', ')}`,
  );
  if (skipped > 0) ctx.note(`${skipped} equivalent request(s) sent once`);
}

const REQUIREMENTS = [
  'auth-missing-rejected',
  'auth-wrong-token-rejected',
  'auth-unauthenticated-401',
] as const;

export const readsRequireAuth: Probe = {
  id: 'reads-require-authentication',
  title:
    'every listed read operation, without a token, with empty ones, other schemes and near misses of the token; the token under "bearer"',
  requirements: [
    ...REQUIREMENTS,
    'auth-scheme-case-insensitive',
    'auth-401-bearer-challenge',
    'auth-401-error-code',
  ],
  judges: [...REQUIREMENTS, 'auth-scheme-case-insensitive'],
  operations: operationIds({ writes: false }),
  group: 'authentication',
  access: 'read',
  run: (ctx) => probeOperations(ctx, operationsWhere({ writes: false }), true),
};

export const writesRequireAuth: Probe = {
  id: 'writes-require-authentication',
  title:
    'every listed write operation, without a token, with empty ones, other schemes and near misses of the token',
  requirements: [...REQUIREMENTS, 'auth-401-bearer-challenge', 'auth-401-error-code'],
  judges: [...REQUIREMENTS],
  operations: operationIds({ writes: true }),
  group: 'authentication',
  access: 'write',
  run: (ctx) => probeOperations(ctx, operationsWhere({ writes: true }), false),
};

export const AUTHENTICATION_PROBES = family(import.meta.url, [readsRequireAuth, writesRequireAuth]);
