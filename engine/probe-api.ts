/**
 * What a probe may use of the engine, and all it may use: the vocabulary of a probe (its context,
 * its target, what it restores), the property and case runners, batches of cases that must be
 * refused, whether a read shows a state, why a probe stopped, and the run's original state of the
 * writable counterparties, for the recovery after a worker died. The files of probes/ import this
 * one and no other of engine/, so the engine's inside (the judge, the run, the verdicts) can
 * change without them.
 */
export type { Probe, ProbeContext, RestoreRecord, TargetConfig } from './types.ts';
export { requestKey, runCases } from './cases.ts';
export { runProperty } from './property.ts';
export { ANY_VALUE, coverCases, NO_VALUE, type CasePacking, type PackValue } from './packing.ts';
export { CHANGED_CASES_BUDGET, sendInBatches, type BatchResult } from './batch.ts';
export { showsState } from './judge-states.ts';
export { incompleteReason } from './run.ts';
export { clearWriter, deadWriterInterruption, deadWriters, storedBaseline } from './baseline.ts';
