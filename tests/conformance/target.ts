/**
 * The target of a conformance run, as global setup resolved it into the environment that the
 * workers inherit (API_BASE_URL always set, CONFORMANCE_SEED fixed for the whole run).
 */
import type { TargetConfig } from '../../checks/types.ts';
import { parseConfig } from '../../config/config.ts';

export function targetFromEnv(env: Record<string, string | undefined> = process.env): TargetConfig {
  if (!env.API_BASE_URL)
    throw new Error('API_BASE_URL is not set: run through global setup (npm run conformance)');
  const config = parseConfig(env, { token: '', counterpartyRef: '' });
  return {
    baseURL: config.baseURL!,
    token: config.token,
    counterpartyRef: config.counterpartyRef,
    writableRef: config.writableRef,
    accountFixture: config.accountFixture,
    accountBudget: config.accountBudget,
    seed: config.seed,
    runs: config.runs,
  };
}
