/**
 * Resolves the configuration once for the whole run: starts the embedded reference server when
 * no API_BASE_URL is configured, and fixes the seed (and the account fixture) so every worker
 * generates the same inputs.
 */
import { loadEnvFile, parseConfig } from '../../config/config.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import { ReferenceServer } from '../../servers/reference.ts';

export default async function globalSetup(): Promise<() => Promise<void>> {
  loadEnvFile();
  const config = parseConfig(process.env, EMBEDDED_TARGET);
  let server: ReferenceServer | undefined;
  if (config.baseURL === undefined) {
    server = new ReferenceServer({ token: config.token });
    process.env.API_BASE_URL = await server.start(0);
    process.env.API_TOKEN = config.token;
    process.env.COUNTERPARTY_REF = config.counterpartyRef;
    process.env.CONFORMANCE_TARGET_KIND = 'embedded reference server';
  } else {
    process.env.CONFORMANCE_TARGET_KIND = 'configured deployment';
  }
  process.env.CONFORMANCE_SEED = String(config.seed);
  process.env.CONFORMANCE_RUNS = String(config.runs);
  process.env.CONFORMANCE_ACCOUNT_BUDGET = String(config.accountBudget);
  if (config.writableRef === undefined) delete process.env.WRITABLE_COUNTERPARTY_REF;
  else process.env.WRITABLE_COUNTERPARTY_REF = config.writableRef;
  if (config.accountFixture === undefined) delete process.env.ACCOUNT_FIXTURE;
  else process.env.ACCOUNT_FIXTURE = JSON.stringify(config.accountFixture);
  return async () => {
    await server?.stop();
  };
}
