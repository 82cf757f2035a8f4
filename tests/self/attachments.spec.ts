/**
 * The protocol between a check and the conformance reporter (suite/attachments.ts), both sides:
 * what a check attaches is what the reporter reads, redacted; an incomplete outcome stays apart
 * from a complete one.
 */
import { expect, test, type TestInfo } from '@playwright/test';
import { emptyOutcome } from '../../engine/run.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import {
  attachExchanges,
  attachOutcome,
  EXCHANGES_ATTACHMENT,
  INCOMPLETE_ATTACHMENT,
  OUTCOME_ATTACHMENT,
  readAttachments,
} from '../../suite/attachments.ts';

const TOKEN = 'attachment-token-0123456789';

/** A test's info as far as attaching goes, and the attachments a reporter would see. */
function fakeTest(): { info: TestInfo; attachments: { name: string; body: Buffer; contentType: string }[] } {
  const attachments: { name: string; body: Buffer; contentType: string }[] = [];
  const info = {
    attach: async (name: string, options: { body: string; contentType: string }) => {
      attachments.push({ name, body: Buffer.from(options.body), contentType: options.contentType });
    },
  } as unknown as TestInfo;
  return { info, attachments };
}

test('a complete outcome and the exchanges come back as attached, the token redacted', async () => {
  const { info, attachments } = fakeTest();
  const outcome = emptyOutcome('known-counterparty', 'GET of the known counterparty', []);
  outcome.requests = 2;
  const exchanges = [
    { request: { method: 'GET', url: `http://127.0.0.1:9/?t=${TOKEN}` } },
  ] as unknown as Exchange[];
  await attachExchanges(info, exchanges, [TOKEN]);
  await attachOutcome(info, outcome, [TOKEN]);
  expect(attachments.map((a) => [a.name, a.contentType])).toEqual([
    [EXCHANGES_ATTACHMENT, 'application/json'],
    [OUTCOME_ATTACHMENT, 'application/json'],
  ]);
  const read = readAttachments({ attachments });
  expect(read.outcome).toEqual({ value: outcome, complete: true });
  expect(read.exchanges).toHaveLength(1);
  expect(JSON.stringify(read.exchanges)).not.toContain(TOKEN);
});

test('an outcome that could not complete is attached apart, and read as incomplete', async () => {
  const { info, attachments } = fakeTest();
  const outcome = {
    ...emptyOutcome('patch-valid-details', 'valid detail patches', []),
    incomplete: 'stopped',
  };
  await attachOutcome(info, outcome, []);
  expect(attachments.map((a) => a.name)).toEqual([INCOMPLETE_ATTACHMENT]);
  expect(readAttachments({ attachments })).toEqual({ outcome: { value: outcome, complete: false } });
});

test('a test that attached nothing hands over nothing', () => {
  expect(readAttachments({ attachments: [] })).toEqual({});
  expect(
    readAttachments({ attachments: [{ name: OUTCOME_ATTACHMENT, contentType: 'application/json' }] }),
  ).toEqual({});
});
