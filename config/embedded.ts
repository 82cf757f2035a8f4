/**
 * The target of a run without API_BASE_URL: the embedded reference server, its token, a readable
 * counterparty with every optional field, a writable one (the server is throwaway, so these runs
 * exercise the writes too) and the account it accepts.
 */
import { DEFAULT_ACCOUNT_FIXTURE, DEFAULT_ACCOUNT_FIXTURES } from '../generators/account-fixture.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN, WRITABLE_COUNTERPARTY } from '../servers/reference.ts';
import type { EmbeddedTarget } from './config.ts';

export const EMBEDDED_TARGET: EmbeddedTarget = {
  token: REFERENCE_TOKEN,
  counterpartyRef: REFERENCE_COUNTERPARTY,
  writableRef: WRITABLE_COUNTERPARTY,
  accountFixture: DEFAULT_ACCOUNT_FIXTURE,
  accountFixtures: DEFAULT_ACCOUNT_FIXTURES,
};
