/** The registry of every oracle: each exchange of a run goes to every one that applies. */
import { AUTH_CHALLENGE_ORACLE } from './auth-challenge.ts';
import { AUTH_ERROR_CODE_ORACLE } from './auth-error-code.ts';
import { CONDITIONAL_GET_ORACLE } from './conditional-get.ts';
import { COUNTERPARTY_RESPONSE_ORACLE } from './counterparty-response.ts';
import { ENTITY_TAGS_ORACLE } from './entity-tags.ts';
import { HEAD_HEADERS_ORACLE } from './head-headers.ts';
import { HEAD_METHOD_ORACLE } from './head-method.ts';
import { LIFECYCLE_HEADERS_ORACLE } from './lifecycle-headers.ts';
import { MEDIA_TYPE_ORACLE } from './media-type.ts';
import { METHOD_NOT_ALLOWED_ORACLE } from './method-not-allowed.ts';
import { PATCH_ENTITY_TAGS_ORACLE } from './patch-entity-tags.ts';
import { PATCH_LIFECYCLE_HEADERS_ORACLE } from './patch-lifecycle-headers.ts';
import { PATCH_CONCURRENT_ORACLE } from './patch-concurrent.ts';
import { PATCH_PRECONDITIONS_ORACLE } from './patch-preconditions.ts';
import { PATCH_REJECTED_ORACLE } from './patch-rejected.ts';
import { PATCH_UPDATE_ORACLE } from './patch-update.ts';
import { READ_STABILITY_ORACLE } from './read-stability.ts';
import { REFERENCE_STATUS_ORACLE } from './reference-status.ts';
import { REQUEST_ANSWERED_ORACLE } from './request-answered.ts';
import { REQUEST_BODY_ORACLE } from './request-body.ts';
import { REQUEST_CREDENTIALS_ORACLE } from './request-credentials.ts';
import { REQUEST_PATH_ORACLE } from './request-path.ts';
import { REVALIDATION_ORACLE } from './revalidation.ts';
import { SERVER_ERROR_ORACLE } from './server-error.ts';
import { WRITE_ISOLATION_ORACLE } from './write-isolation.ts';
import type { Oracle } from './types.ts';

export const ORACLES: Oracle[] = [
  REQUEST_ANSWERED_ORACLE,
  SERVER_ERROR_ORACLE,
  MEDIA_TYPE_ORACLE,
  COUNTERPARTY_RESPONSE_ORACLE,
  REFERENCE_STATUS_ORACLE,
  LIFECYCLE_HEADERS_ORACLE,
  AUTH_CHALLENGE_ORACLE,
  REQUEST_CREDENTIALS_ORACLE,
  REQUEST_BODY_ORACLE,
  REQUEST_PATH_ORACLE,
  AUTH_ERROR_CODE_ORACLE,
  METHOD_NOT_ALLOWED_ORACLE,
  PATCH_UPDATE_ORACLE,
  PATCH_CONCURRENT_ORACLE,
  PATCH_REJECTED_ORACLE,
  PATCH_LIFECYCLE_HEADERS_ORACLE,
  READ_STABILITY_ORACLE,
  WRITE_ISOLATION_ORACLE,
  HEAD_METHOD_ORACLE,
  CONDITIONAL_GET_ORACLE,
  ENTITY_TAGS_ORACLE,
  PATCH_ENTITY_TAGS_ORACLE,
  PATCH_PRECONDITIONS_ORACLE,
  REVALIDATION_ORACLE,
  HEAD_HEADERS_ORACLE,
];

export function oracle(id: string): Oracle {
  const o = ORACLES.find((x) => x.id === id);
  if (!o) throw new Error(`unknown oracle ${id}`);
  return o;
}

/** The file that defines an oracle (oracles/described.ts: one requirement family per file, named after the oracle). */
export { oracleFileOf as oracleFile } from './described.ts';
