/**
 * The timeline of a run (reporter/timeline.ts): the marks handed down from process to process,
 * and the record's `durations` built from them and the exchanges, on injected clocks.
 */
import { expect, test } from '@playwright/test';
import { durationsOf, mark, marksIn, startTimeline, TIMELINE_ENV } from '../../reporter/timeline.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import { buildRecord } from '../../reporter/build-record.ts';

const START = Date.parse('2026-11-28T06:00:00.000Z');

test('marks are handed down in the environment, each process adding its own', () => {
  const env: Record<string, string | undefined> = {};
  startTimeline(env, START);
  mark(env, 'configurationRead', START + 40);
  // What the runner inherits: it adds its mark to what the CLI set.
  const child = { ...env };
  mark(child, 'runnerReady', START + 900, START + 500);
  expect(marksIn(child)).toEqual({
    processStart: START,
    configurationRead: START + 40,
    runnerReady: START + 900,
  });
  // The CLI's own start replaces whatever an outer process left in its environment.
  startTimeline(child, START + 5000);
  expect(marksIn(child)).toEqual({ processStart: START + 5000 });
});

test('without the CLI the runner starts its own timeline', () => {
  const env: Record<string, string | undefined> = {};
  expect(mark(env, 'runnerReady', START + 700, START)).toEqual({
    processStart: START,
    runnerReady: START + 700,
  });
});

test('what is not a timeline is none: not JSON, no start, an inherited name', () => {
  for (const text of ['', 'nope', '[]', 'null', '{"runnerReady":5}', '{"processStart":"x"}'])
    expect(marksIn({ [TIMELINE_ENV]: text })).toBeUndefined();
  const marks = marksIn({
    [TIMELINE_ENV]: '{"processStart":1,"__proto__":{"runnerReady":9},"toString":3,"preflightEnd":"late"}',
  });
  expect(marks).toEqual({ processStart: 1 });
});

test('durations: every mark after the start, the first request out and the last one back', () => {
  const marks = { processStart: START, configurationRead: START + 40.4, runnerReady: START + 900 };
  const exchanges = [
    { startedAt: START + 1500, durationMs: 3 },
    { startedAt: START + 1200, durationMs: 900 },
    { startedAt: START + 1900, durationMs: 10 },
  ];
  const durations = durationsOf(marks, exchanges, START + 2500);
  expect(durations).toEqual({
    processStart: '2026-11-28T06:00:00.000Z',
    configurationRead: 40,
    runnerReady: 900,
    firstRequest: 1200,
    lastRequest: 2100,
    recordBuilt: 2500,
  });
  // No request sent (a run stopped before it began): no request steps.
  expect(durationsOf(marks, [], START + 100)).not.toHaveProperty('firstRequest');
});

test("a record's durations match its JSON Schema", () => {
  const record = buildRecord({
    outcomes: [],
    incomplete: [],
    run: { seed: 1, runs: 1 },
    startedAt: new Date(START),
    durationMs: 10,
    durations: durationsOf(
      { processStart: START, preflightStart: START + 5, preflightEnd: START + 9 },
      [],
      START + 20,
    ),
  });
  expect(recordErrors(record)).toEqual([]);
  expect(recordErrors({ ...record, durations: { ...record.durations, exit: 5 } })).not.toEqual([]);
});
