/**
 * Hostile answers that are not wrong as HTTP but costly to hold or to walk: every JSON answer
 * 4 MB long (white space after the value: as conforming as the reference server's), and the known
 * counterparty with a member nested 3,000 levels deep. Against them the suite must finish, judge
 * what it can and say what it could not, keep its memory bounded, and write every report, its
 * exchanges.har one `validate` reads (tests/self/hostile.spec.ts, tests/self/hostile-cli.spec.ts).
 */
import type { IncomingMessage } from 'node:http';
import { HostileFront, readsKnown, WHOLE_RUN_BACKSTOP_MS } from './hostile.ts';
import type { HostileVariant } from './types.ts';

/**
 * The body cap of a run (CONFORMANCE_MAX_RESPONSE_BYTES's default, config/config.ts: the servers
 * import only the spec; tests/self/hostile.spec.ts checks the two agree).
 */
export const ASSUMED_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** How long every JSON answer of `answers-4-mb` is: 4 MB, under the cap. */
export const LARGE_ANSWER_BYTES = 4_000_000;

/** How deep the member of `answers-deep-json` nests. */
export const DEEP_ANSWER_LEVELS = 3_000;

const isJson = (answer: IncomingMessage): boolean => /json/i.test(answer.headers['content-type'] ?? '');

/** A JSON body padded with white space after its value to LARGE_ANSWER_BYTES: the same JSON value. */
function padded(body: Buffer, answer: IncomingMessage): Buffer {
  if (body.length === 0 || body.length >= LARGE_ANSWER_BYTES || !isJson(answer)) return body;
  return Buffer.concat([body, Buffer.alloc(LARGE_ANSWER_BYTES - body.length, 0x20)]);
}

/**
 * JSON text nested `levels` deep, arrays and objects by turns ({"x": ...}), with a percent sign
 * at the bottom (so that a redactor looking for encoded secrets walks it): well-formed, and
 * 4 bytes a level.
 */
export function deepJson(levels: number): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < levels; i++) {
    open.push(i % 2 === 0 ? '[' : '{"x":');
    close.push(i % 2 === 0 ? ']' : '}');
  }
  return `${open.join('')}"100%"${close.reverse().join('')}`;
}

/** The counterparty with one more member, `x`, nested DEEP_ANSWER_LEVELS deep: no counterparty nests so. */
function deepened(body: Buffer, answer: IncomingMessage): Buffer {
  const text = body.toString('utf8');
  if (!isJson(answer) || !text.startsWith('{')) return body;
  return Buffer.from(`{"x":${deepJson(DEEP_ANSWER_LEVELS)},${text.slice(1)}`, 'utf8');
}

export const BODY_VARIANTS: HostileVariant[] = [
  {
    id: 'answers-4-mb',
    fault:
      'Answers every request as the reference server does, each JSON body padded with white space to 4 MB (under the 4 MiB cap): conforming, and large.',
    trips: [],
    incomplete: [],
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    // Over a hundred reads at once (a round of a concurrent property), the PATCH sequences of a
    // write lane and their reads, and a pair of reads: the whole suite is the CLI's
    // (tests/self/hostile-cli.spec.ts, docs/testing.md).
    probes: ['known-counterparty', 'invalid-references', 'patch-valid-details'],
    create: () => new HostileFront((req, res, _n, front) => front.forward(req, res, padded)),
  },
  {
    id: 'answers-deep-json',
    fault:
      'Answers the known counterparty with one more member nested 3,000 levels deep (12 KB of JSON): well-formed, and deeper than any counterparty.',
    // The one wrong answer: not a counterparty of the schema, and too deep to judge further.
    trips: ['counterparty-schema'],
    incomplete: [],
    maxDurationMs: WHOLE_RUN_BACKSTOP_MS,
    create: () =>
      new HostileFront((req, res, _n, front) => {
        if (!readsKnown(req)) return 'forward';
        front.forward(req, res, deepened);
      }),
  },
];
