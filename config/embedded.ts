/**
 * The target of a run without API_BASE_URL: the embedded reference server, its token, a readable
 * counterparty with every optional field, a writable one (the server is throwaway, so these runs
 * exercise the writes too), the account it accepts, and the bills, mandates and collections it
 * holds and accepts.
 */
import { DEFAULT_ACCOUNT_FIXTURE, DEFAULT_ACCOUNT_FIXTURES } from '../generators/account-fixture.ts';
import { embeddedItemFixtures } from '../generators/item-fixtures.ts';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  SEED_ITEM_REFS,
  WRITABLE_COUNTERPARTY,
} from '../servers/reference/seed.ts';
import type { EmbeddedTarget } from './config.ts';

export const EMBEDDED_TARGET: EmbeddedTarget = {
  token: REFERENCE_TOKEN,
  counterpartyRef: REFERENCE_COUNTERPARTY,
  writableRef: WRITABLE_COUNTERPARTY,
  accountFixture: DEFAULT_ACCOUNT_FIXTURE,
  accountFixtures: DEFAULT_ACCOUNT_FIXTURES,
  itemFixtures: embeddedItemFixtures(SEED_ITEM_REFS, REFERENCE_COUNTERPARTY),
};
