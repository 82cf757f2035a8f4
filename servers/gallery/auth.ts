/** Faults of bearer authentication (interface.md §5; RFC 6750 §3). */
import type { ServerResponse } from 'node:http';
import type { Operation } from '../../spec/index.ts';
import { REALM, ReferenceServer, type AuthResult } from '../reference.ts';
import type { Variant } from './types.ts';
import { operationIdOf } from '../../spec/operations.ts';

/** A server that requires authentication only where `required` says so. */
function authRequiredWhere(required: (op: Operation) => boolean): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override authRequired(op: Operation): boolean {
        return required(op);
      }
    })();
}

/** A server whose 401 carries this challenge (or none). */
export function challenging(challenge: string | undefined): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override challenge(): string | undefined {
        return challenge;
      }
    })();
}

export const AUTH_VARIANTS: Variant[] = [
  /** The credentials are looked for anywhere in the field, not at its start. */
  {
    id: 'bearer-anywhere-in-field',
    fault:
      'Authorization is matched by "Bearer <token>" anywhere in the field, so the token under another scheme whose name ends in "Bearer" (XBearer) is taken.',
    trips: ['auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: () =>
      new (class extends ReferenceServer {
        protected override authenticate(header: string | undefined): AuthResult {
          if (header === undefined) return 'missing';
          const m = /Bearer +(\S+) *$/i.exec(header);
          return m?.[1] === this.token ? 'ok' : 'invalid';
        }
      })(),
  },
  /** Authentication is switched off everywhere. */
  {
    id: 'auth-not-enforced',
    fault:
      'No operation checks the Authorization header: requests without a token or with a wrong one succeed.',
    trips: ['auth-missing-rejected', 'auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: authRequiredWhere(() => false),
  },
  /** GET counterparty was left out of the authentication middleware. */
  {
    id: 'get-counterparty-unauthenticated',
    fault:
      'GET /api/v1/counterparties/{ref} is served without authentication; every other operation requires the token.',
    trips: ['auth-missing-rejected', 'auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: authRequiredWhere((op) => op.operationId !== operationIdOf('counterparty', 'read')),
  },
  /** PATCH counterparty was left out of the authentication middleware (a write without a token). */
  {
    id: 'patch-counterparty-unauthenticated',
    fault:
      'PATCH /api/v1/counterparties/{ref} is served without authentication; every other operation requires the token.',
    trips: ['auth-missing-rejected', 'auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: authRequiredWhere((op) => op.operationId !== operationIdOf('counterparty', 'update')),
  },
  /** Any bearer token is accepted: the header's presence is checked, its value is not. */
  {
    id: 'any-token-accepted',
    fault:
      'The Authorization header must be present but its token is never verified, so a wrong token, or "Bearer" with none, succeeds.',
    trips: ['auth-missing-rejected', 'auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: () =>
      new (class extends ReferenceServer {
        protected override authenticate(header: string | undefined): AuthResult {
          return header === undefined ? 'missing' : 'ok';
        }
      })(),
  },
  /** Unauthenticated requests are answered 403 without a challenge (SHOULD only). */
  {
    id: 'forbidden-403',
    fault: 'Unauthenticated requests are answered 403 without a WWW-Authenticate challenge instead of 401.',
    trips: ['auth-unauthenticated-401'],
    create: () =>
      new (class extends ReferenceServer {
        protected override rejectUnauthenticated(res: ServerResponse): void {
          this.sendError(res, 403, 'FORBIDDEN', 'Access denied.');
        }
      })(),
  },
  /** 401 without WWW-Authenticate (SHOULD only). */
  {
    id: 'no-www-authenticate',
    fault: 'Unauthenticated requests are answered 401 without a WWW-Authenticate header.',
    trips: ['auth-401-bearer-challenge'],
    create: challenging(undefined),
  },
  /** 401 with a Basic challenge although the scheme is Bearer (SHOULD only). */
  {
    id: 'basic-challenge',
    fault: 'Unauthenticated requests are answered 401 with a Basic challenge instead of a Bearer one.',
    trips: ['auth-401-bearer-challenge'],
    create: challenging(`Basic realm="${REALM}"`),
  },
  /** The challenge carries error="invalid_token" whatever was sent, no credentials included. */
  {
    id: 'auth-error-code-without-credentials',
    fault:
      'A request without an Authorization header is answered 401 with error="invalid_token" in the challenge, as if a token had been sent (RFC 6750 §3.1: no error code when no credentials came).',
    trips: ['auth-401-error-code'],
    create: challenging(`Bearer realm="${REALM}", error="invalid_token"`),
  },
  /** The challenge never says why a token was refused. */
  {
    id: 'auth-error-code-missing',
    fault:
      'A wrong bearer token is answered 401 with a bare Bearer challenge, without the error attribute that says why (RFC 6750 §3).',
    trips: ['auth-401-error-code'],
    create: challenging(`Bearer realm="${REALM}"`),
  },
];
