/**
 * The gate's own inputs: a malformed waiver file, a missing one or a bad CONFORMANCE_STRICT stop
 * the run with exit 2 and one line before any request is sent. Each is a configuration error of
 * the run's resolution (run/resolve.ts), called here as the CLI calls it (resolveAsCli): the one
 * line is its message. That every such error ends the CLI with exit 2, that line on stderr and
 * nothing sent is proven through the command by cli-config.spec.ts ("configuration errors:
 * exit 2, one line, nothing sent", its first case).
 *
 * The gate end to end lives with the runs that judge it: a waived failure passing it, the report
 * of that run matching its schema and an echoed token redacted in report-token.spec.ts (one run
 * against a deployment whose short token is also its data); strict mode failing it on a SHOULD
 * warning, expired and stale waivers, in report.spec.ts (the whole suite, strict).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import {
  removeTemporaryDirectories,
  resolveAsCli,
  SECRET_TOKEN,
  targetEnv,
  temporaryDirectory,
} from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

/** The one line the CLI prints for what resolving `env` in `dir` throws (without its "conformance: "). */
async function refusal(env: Record<string, string | undefined>, dir: string): Promise<string> {
  try {
    await resolveAsCli([], env, dir);
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('the run was not refused');
}

test('a malformed waiver file, a missing one, or a bad CONFORMANCE_STRICT: exit 2, one line, no request sent', async () => {
  // The CLI resolves the run before its first request (the reachability check, bin/conformance.ts):
  // a run refused here is refused before anything is sent.
  const env = targetEnv('http://127.0.0.1:9', SECRET_TOKEN, false);
  const malformed = temporaryDirectory('payflow-gate-');
  writeFileSync(
    join(malformed, 'conformance-waivers.yaml'),
    'waivers:\n  - requirement: timestamp-format\n    reason: known\n    expires: next week\n',
  );
  expect(await refusal(env, malformed)).toBe(
    "waiver file conformance-waivers.yaml, line 4: expires must be a date YYYY-MM-DD, got 'next week' (waiver of timestamp-format)",
  );
  expect(
    await refusal({ ...env, CONFORMANCE_WAIVERS: 'ci/waivers.yaml' }, temporaryDirectory('payflow-gate-')),
  ).toMatch(/^CONFORMANCE_WAIVERS names ci\/waivers.yaml, which does not exist/);
  expect(await refusal({ ...env, CONFORMANCE_STRICT: 'maybe' }, temporaryDirectory('payflow-gate-'))).toBe(
    "CONFORMANCE_STRICT must be 1 or 0 (or true/false), got 'maybe'",
  );
});
