/**
 * Bearer authentication on every operation the document lists (interface.md §5; RFC 6750 §3):
 * no Authorization header, or a wrong token, never succeeds, and is answered 401 with a Bearer
 * challenge. Writes are only probed when the run may write.
 */
import { spec, type Operation } from '../spec/index.ts';
import { describeResponse, type Auth } from '../transport/client.ts';
import { describeOperation, isWrite, probeRequest } from './operations.ts';
import type { Check, CheckContext } from '../engine/types.ts';

/** Whether a WWW-Authenticate value holds a challenge for the Bearer scheme. */
export function hasBearerChallenge(value: string | undefined): boolean {
  return value !== undefined && /(^|[\s,])bearer(\s|,|$)/i.test(value);
}

async function probeOperations(ctx: CheckContext, ops: Operation[]): Promise<void> {
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
      const ex = await ctx.http.send({ ...probeRequest(op, ctx.target), auth: mode.auth });
      const name = describeOperation(op);
      if (ex.status >= 200 && ex.status <= 299) {
        ctx.failOn(ex, {
          requirement: mode.requirement,
          message: `${name} succeeded ${mode.label}`,
          expected: 'a refusal (not 2xx): every operation requires a bearer token (interface.md §5)',
          received: describeResponse(ex),
        });
      }
      const challenge = ex.headers['www-authenticate'];
      if (ex.status !== 401 || !hasBearerChallenge(challenge)) {
        ctx.failOn(ex, {
          requirement: 'auth-401-bearer-challenge',
          message: `${name} ${mode.label} was not answered 401 with a Bearer challenge`,
          expected: '401 with WWW-Authenticate: Bearer ... (RFC 6750 §3)',
          received: `${ex.status || 'no response'}${challenge ? `, WWW-Authenticate: ${challenge}` : ', no WWW-Authenticate'}`,
        });
      }
    }
  }
  ctx.note(`probed ${ops.length} operation(s): ${ops.map(describeOperation).join(', ')}`);
}

const REQUIREMENTS = [
  'auth-missing-rejected',
  'auth-wrong-token-rejected',
  'auth-401-bearer-challenge',
] as const;

export const readsRequireAuth: Check = {
  id: 'reads-require-authentication',
  title: 'every listed read operation refuses a missing or wrong bearer token',
  requirements: [...REQUIREMENTS],
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

export const writesRequireAuth: Check = {
  id: 'writes-require-authentication',
  title: 'every listed write operation refuses a missing or wrong bearer token',
  requirements: [...REQUIREMENTS],
  group: 'authentication',
  access: 'write',
  run: (ctx) => probeOperations(ctx, spec().operations().filter(isWrite)),
};

export const AUTHENTICATION_CHECKS: Check[] = [readsRequireAuth, writesRequireAuth];
