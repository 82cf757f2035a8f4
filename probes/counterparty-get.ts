/** Checks of GET /api/v1/counterparties/{ref} for the configured, existing counterparty. */
import { counterpartyPath } from '../exchange/paths.ts';
import { describeResponse } from '../transport/client.ts';
import {
  COUNTERPARTY_RESPONSE_REQUIREMENTS,
  checkCounterpartyResponse,
} from '../oracles/counterparty-response.ts';
import { LIFECYCLE_REQUIREMENTS, checkLifecycleHeaders } from '../oracles/lifecycle-headers.ts';
import type { Check } from '../engine/types.ts';

export const knownCounterpartyConforms: Check = {
  id: 'known-counterparty-conforms',
  title:
    'the known counterparty answers 200 with a JSON body valid against the schema, for the reference asked',
  requirements: ['get-known-counterparty-200', ...COUNTERPARTY_RESPONSE_REQUIREMENTS],
  group: 'counterparty-get',
  access: 'read',
  async run(ctx) {
    const ref = ctx.target.counterpartyRef;
    const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(ref) });
    if (ex.status !== 200) {
      ctx.failOn(ex, {
        requirement: 'get-known-counterparty-200',
        message: `GET of the known counterparty ${ref} did not answer 200`,
        expected: '200 with the counterparty',
        received: describeResponse(ex),
      });
      for (const id of this.requirements.slice(1)) {
        ctx.notApplicable(
          id,
          `GET of ${ref} answered ${ex.status || 'nothing'}, so no counterparty could be inspected`,
        );
      }
      return;
    }
    checkCounterpartyResponse(ctx, ex, { reference: ref, where: `GET ${ref}` });
    const body = ex.body as Record<string, unknown> | undefined;
    if (body && typeof body === 'object') {
      if (body.address === undefined)
        ctx.notApplicable('address-schema', `counterparty ${ref} has no address`);
      if (!Array.isArray(body.counterpartyAccounts) || body.counterpartyAccounts.length === 0) {
        ctx.notApplicable('account-schema', `counterparty ${ref} has no accounts`);
      }
    }
  },
};

export const lifecycleHeadersConform: Check = {
  id: 'lifecycle-headers-conform',
  title: 'Deprecation and Sunset headers, where sent, are dates in order (RFC 9745, RFC 8594)',
  requirements: [...LIFECYCLE_REQUIREMENTS],
  group: 'counterparty-get',
  access: 'read',
  async run(ctx) {
    const ref = ctx.target.counterpartyRef;
    const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(ref) });
    checkLifecycleHeaders(ctx, ex, `GET ${ref}`);
    const hasSunset = ex.headers['sunset'] !== undefined;
    const hasDeprecation = ex.headers['deprecation'] !== undefined;
    if (!hasSunset) {
      ctx.notApplicable('sunset-date-time', 'the target sent no Sunset header');
      ctx.notApplicable('sunset-document-format', 'the target sent no Sunset header');
    }
    if (!hasDeprecation)
      ctx.notApplicable('deprecation-structured-date', 'the target sent no Deprecation header');
    if (!hasSunset || !hasDeprecation) {
      ctx.notApplicable(
        'sunset-not-before-deprecation',
        'the target did not send both Deprecation and Sunset',
      );
    }
  },
};

export const COUNTERPARTY_GET_CHECKS: Check[] = [knownCounterpartyConforms, lifecycleHeadersConform];
