/**
 * The record of a real run against a faulty server of the gallery, built as the conformance
 * reporter builds it (outcomes, coverage of the run's exchanges): what the report's layout tests
 * and the README's screenshot (scripts/screenshot.ts) render, so that both show a report a user
 * sees, findings with the server's own long texts, curl lines and JSON included.
 */
import { coverageOf } from '../../engine/coverage.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { REFERENCE_TOKEN, WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import { runVariant, SELF_TEST_RUNS, SELF_TEST_SEED } from './suite-runner.ts';

/** The variant the layout tests and the screenshot render: a write run with findings on PATCH bodies and on reads. */
export const REPORT_VARIANT = 'address-line-newline';

/** Fixed for the screenshot: a page that does not change with the day it was taken. */
const STARTED = new Date('2026-11-28T09:00:00Z');

/**
 * The record of the whole suite's run against `variantId`, in write mode, or read-only (no
 * writable counterparty: the write probes skip, as against a deployment by default).
 */
export async function galleryRecord(
  variantId = REPORT_VARIANT,
  options: { readOnly?: boolean } = {},
): Promise<ConformanceRecord> {
  const variant = GALLERY.find((v) => v.id === variantId);
  if (!variant) throw new Error(`no gallery variant ${variantId}`);
  const run = await runVariant(variant, {
    all: true,
    ...(options.readOnly ? { target: { writableRef: undefined } } : {}),
  });
  const baseURL = new URL(run.exchanges[0]!.request.url).origin;
  return buildRecord({
    outcomes: run.outcomes,
    incomplete: run.incomplete.map((i) => ({ test: i.probe, error: i.reason })),
    run: {
      baseURL,
      targetKind: 'gallery variant',
      token: REFERENCE_TOKEN,
      ...(options.readOnly ? {} : { writableRef: WRITABLE_COUNTERPARTY }),
      seed: SELF_TEST_SEED,
      runs: SELF_TEST_RUNS,
    },
    startedAt: STARTED,
    durationMs: 0,
    now: STARTED,
    coverage: coverageOf(run.exchanges),
  });
}
