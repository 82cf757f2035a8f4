/**
 * Bearer authentication on every operation the document lists (interface.md §5; RFC 6750 §3):
 * each is sent without an Authorization header and with a wrong token. The probe judges what
 * needs its plan: the credentials are missing or wrong, so the request must not succeed, and
 * should be answered 401. The challenge a 401 carries is judged by the auth-challenge oracle, on
 * every 401 of the run. Writes are only probed when the run may write.
 */
import { describeResponse } from '../exchange/describe.ts';
import { is2xx } from '../exchange/exchange.ts';
import type { Probe, ProbeContext } from '../engine/types.ts';
import { spec, type Operation } from '../spec/index.ts';
import type { Auth } from '../transport/client.ts';
import { describeOperation, isWrite, probeRequest } from './operations.ts';

async function probeOperations(ctx: ProbeContext, ops: Operation[]): Promise<void> {
  const wrong = `Bearer conformance-wrong-token-${(ctx.target.seed >>> 0).toString(36)}`;
  const modes: {
    auth: Auth;
    requirement: 'auth-missing-rejected' | 'auth-wrong-token-rejected';
    label: string;
  }[] = [
    { auth: 'none', requirement: 'auth-missing-rejected', label: 'without an Authorization header' },
    {
      auth: { authorization: wrong },
      requirement: 'auth-wrong-token-rejected',
      label: 'with a wrong bearer token',
    },
  ];
  for (const op of ops) {
    for (const mode of modes) {
      const ex = await ctx.http.send({ ...probeRequest(op, ctx.target), auth: mode.auth, role: mode.label });
      const name = describeOperation(op);
      if (is2xx(ex.status)) {
        ctx.fail({
          requirement: mode.requirement,
          exchange: ex,
          message: `${name} succeeded ${mode.label}`,
          expected: 'a refusal (not 2xx): every operation requires a bearer token (interface.md §5)',
          received: describeResponse(ex),
        });
      } else ctx.held(mode.requirement);
      if (ex.status === 401) ctx.held('auth-unauthenticated-401');
      else {
        ctx.fail({
          requirement: 'auth-unauthenticated-401',
          exchange: ex,
          message: `${name} ${mode.label} was answered ${ex.status}, not 401`,
          expected: '401 (RFC 6750 §3.1: a missing or invalid token)',
          received: describeResponse(ex),
        });
      }
    }
  }
  ctx.note(`probed ${ops.length} operation(s): ${ops.map(describeOperation).join(', ')}`);
}

const REQUIREMENTS = [
  'auth-missing-rejected',
  'auth-wrong-token-rejected',
  'auth-unauthenticated-401',
] as const;

export const readsRequireAuth: Probe = {
  id: 'reads-require-authentication',
  title: 'every listed read operation, without a token and with a wrong one',
  requirements: [...REQUIREMENTS, 'auth-401-bearer-challenge'],
  judges: [...REQUIREMENTS],
  group: 'authentication',
  access: 'read',
  run: (ctx) =>
    probeOperations(
      ctx,
      spec()
        .operations()
        .filter((op) => !isWrite(op)),
    ),
};

export const writesRequireAuth: Probe = {
  id: 'writes-require-authentication',
  title: 'every listed write operation, without a token and with a wrong one',
  requirements: [...REQUIREMENTS, 'auth-401-bearer-challenge'],
  judges: [...REQUIREMENTS],
  group: 'authentication',
  access: 'write',
  run: (ctx) => probeOperations(ctx, spec().operations().filter(isWrite)),
};

export const AUTHENTICATION_PROBES: Probe[] = [readsRequireAuth, writesRequireAuth];
