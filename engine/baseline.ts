/**
 * The run's original state of each writable counterparty, and who is writing it now. A write
 * probe reads the counterparty before its first PATCH: the first such read of a run is its
 * baseline, kept where every process of the run reads it (the run-state directory, beside the
 * ledger and the stop state of transport/stop.ts), and every probe of the run restores to it:
 * never to what it read itself, which a probe killed before its restore may have left changed.
 *
 * While a probe writes a counterparty, a marker names it and its process. A process that dies
 * mid-probe (a Playwright worker SIGKILLed, or killed by the kernel's OOM killer) leaves its
 * marker: the next probe to write that counterparty, or global teardown at the end of the run,
 * finds it, interrupts the run (transport/stop.ts), and restores the baseline.
 *
 * In a run of several processes, a probe that ends as it should hands its changes on (handOn)
 * instead of restoring them: the next probe of its lane starts from them (it reads the
 * counterparty first anyway), and global teardown restores the baseline once, at the end of the
 * run (probes/recovery.ts restoreHandedOn). One restore per run rather than a PATCH and a read at
 * the end of every write probe: on one writable counterparty 150 ms away, about 1.5 s of a write
 * run (patch-valid-details keeps its own, a judged case). A probe restores at once when the run
 * was interrupted, and in a run of one process, which has no teardown to leave it to, unless its
 * server is thrown away after it (MemoryBaselines: the gallery and the seed sweep send what a run
 * of the suite sends).
 */
import { existsSync, linkSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive, requestStop, type Interruption } from '../transport/stop.ts';

type Obj = Record<string, unknown>;

/** A probe writing a counterparty, as its marker says. */
/** The environment variable carrying the restores of a recovery from global teardown to the reporter. */
export const RECOVERY_ENV = 'CONFORMANCE_RECOVERY';
/** The same, for the restore of what the write probes handed on, at the end of a run not stopped. */
export const END_RESTORE_ENV = 'CONFORMANCE_END_RESTORE';
/** The exchanges those restores sent (a JSON array of Exchange, redacted), for exchanges.har. */
export const END_EXCHANGES_ENV = 'CONFORMANCE_END_EXCHANGES';

export interface Writer {
  ref: string;
  probe: string;
  pid: number;
}

export interface BaselineStore {
  /**
   * The run's original state of `ref`: the one stored, or `current` (read by `probe` before its
   * first PATCH), stored now as the run's first. Marks `probe` as writing `ref` until release().
   * A marker left by a process that is gone interrupts the run (a dead worker), and is taken over.
   */
  capture(ref: string, current: Obj, probe: string): Obj;
  /** `probe` stopped writing (it restored, or could not): its markers go. */
  release(probe: string): void;
  /**
   * `probe` ends with `ref` changed, and leaves the restore to the end of the run: true when this
   * store keeps that for global teardown (a file marker), false when the probe must restore now.
   */
  handOn(ref: string, probe: string): boolean;
  /** `ref` was restored to its baseline: nothing is left for the end of the run. */
  restoredTo(ref: string): void;
}

/**
 * For a run in one process (the self-tests): nothing outlives the process. `handsOn`: its probes
 * hand their changes on as in a run of the suite, and nothing restores them at the end (a run of
 * the whole suite in one process against a throwaway server: the gallery, the seed sweep, which
 * so send what a run of the suite sends); else each probe restores as it ends.
 */
export class MemoryBaselines implements BaselineStore {
  private readonly baselines = new Map<string, Obj>();

  constructor(private readonly handsOn = false) {}

  capture(ref: string, current: Obj): Obj {
    if (!this.baselines.has(ref)) this.baselines.set(ref, current);
    return this.baselines.get(ref)!;
  }

  release(): void {}

  handOn(): boolean {
    return this.handsOn;
  }

  restoredTo(): void {}
}

const baselineFile = (dir: string, ref: string): string => join(dir, `baseline-${ref}.json`);
const writerFile = (dir: string, ref: string): string => join(dir, `writing-${ref}.json`);
const handedOnFile = (dir: string, ref: string): string => join(dir, `handed-on-${ref}.json`);

/** A counterparty a probe left changed for the end of the run to restore (BaselineStore.handOn). */
export interface HandedOn {
  ref: string;
  /** The probe that handed it on last. */
  probe: string;
}

/** Writes `file` whole, or not at all when it exists (the first writer wins). False: it existed. */
function writeOnce(file: string, text: string): boolean {
  const draft = `${file}.${process.pid}.${Date.now()}`;
  try {
    writeFileSync(draft, text);
    linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The baseline of `ref` stored in the run-state directory `dir`, if any. */
export function storedBaseline(dir: string, ref: string): Obj | undefined {
  return readJson<Obj>(baselineFile(dir, ref));
}

/** Why the run stops when a writer is found dead. */
export function deadWriterInterruption(w: Writer): Interruption {
  return {
    signal: null,
    reason: `a Playwright worker (pid ${w.pid}) died while ${w.probe} was writing ${w.ref}, before its restore`,
  };
}

/** The markers in `dir` whose process is gone: probes that died mid-write. */
export function deadWriters(dir: string): Writer[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^writing-.+\.json$/.test(name))
    .map((name) => readJson<Writer>(join(dir, name)))
    .filter((w): w is Writer => w !== undefined && !processAlive(w.pid));
}

/** Removes the marker of a writer that was dealt with. */
export function clearWriter(dir: string, w: Writer): void {
  const current = readJson<Writer>(writerFile(dir, w.ref));
  if (current && current.pid === w.pid && current.probe === w.probe)
    rmSync(writerFile(dir, w.ref), { force: true });
}

/** The counterparties left changed for the end of the run to restore, in `dir`. */
export function handedOn(dir: string): HandedOn[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /^handed-on-.+\.json$/.test(name))
    .map((name) => readJson<HandedOn>(join(dir, name)))
    .filter((h): h is HandedOn => h !== undefined);
}

/** `ref` was restored: the end of the run has nothing left to do for it. */
export function clearHandedOn(dir: string, ref: string): void {
  rmSync(handedOnFile(dir, ref), { force: true });
}

/** For a run of several processes: the baselines and markers live in the run-state directory. */
export class FileBaselines implements BaselineStore {
  private readonly writing = new Map<string, string>();

  constructor(readonly dir: string) {}

  capture(ref: string, current: Obj, probe: string): Obj {
    const marker = readJson<Writer>(writerFile(this.dir, ref));
    if (marker && marker.pid !== process.pid && !processAlive(marker.pid))
      // Its probe died before its restore: the run stops, and this probe's restore puts the
      // baseline back (it is housekeeping, sent after the stop).
      requestStop(this.dir, deadWriterInterruption(marker));
    writeOnce(baselineFile(this.dir, ref), JSON.stringify(current));
    writeFileSync(
      writerFile(this.dir, ref),
      JSON.stringify({ ref, probe, pid: process.pid } satisfies Writer),
    );
    this.writing.set(ref, probe);
    return storedBaseline(this.dir, ref) ?? current;
  }

  release(probe: string): void {
    for (const [ref, p] of this.writing) {
      if (p !== probe) continue;
      clearWriter(this.dir, { ref, probe, pid: process.pid });
      this.writing.delete(ref);
    }
  }

  /**
   * Written before the probe's writing marker goes (release): at every moment one of the two
   * names the counterparty, so a worker that dies in between still leaves it to be restored.
   */
  handOn(ref: string, probe: string): boolean {
    writeFileSync(handedOnFile(this.dir, ref), JSON.stringify({ ref, probe } satisfies HandedOn));
    return true;
  }

  restoredTo(ref: string): void {
    clearHandedOn(this.dir, ref);
  }
}
