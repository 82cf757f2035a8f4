/**
 * Authentication left out of one family of operations (interface.md §5: "Every operation above is
 * declared with it"): the kind of fault a route table gives when one router is mounted outside the
 * authentication middleware. Caught by the authentication probe, and in recorded traffic by the
 * request-credentials oracle, which judges every answer against the credentials its request
 * carried.
 */
import type { Operation } from '../../spec/index.ts';
import { ReferenceServer } from '../reference.ts';
import type { Variant } from './types.ts';

export const AUTH_OPERATION_VARIANTS: Variant[] = [
  {
    id: 'direct-debit-unauthenticated',
    fault:
      'The direct-debit operations (list, read and start a collection) are served without authentication; every other operation requires the token.',
    trips: ['auth-missing-rejected', 'auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: () =>
      new (class extends ReferenceServer {
        protected override authRequired(op: Operation): boolean {
          return !op.path.startsWith('/api/v1/direct-debit');
        }
      })(),
  },
];
