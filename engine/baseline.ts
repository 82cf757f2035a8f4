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
 */
import { existsSync, linkSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive, requestStop, type Interruption } from '../transport/stop.ts';

type Obj = Record<string, unknown>;

/** A probe writing a counterparty, as its marker says. */
/** The environment variable carrying the restores of a recovery from global teardown to the reporter. */
export const RECOVERY_ENV = 'CONFORMANCE_RECOVERY';

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
}

/** For a run in one process (the self-tests): nothing outlives the process. */
export class MemoryBaselines implements BaselineStore {
  private readonly baselines = new Map<string, Obj>();

  capture(ref: string, current: Obj): Obj {
    if (!this.baselines.has(ref)) this.baselines.set(ref, current);
    return this.baselines.get(ref)!;
  }

  release(): void {}
}

const baselineFile = (dir: string, ref: string): string => join(dir, `baseline-${ref}.json`);
const writerFile = (dir: string, ref: string): string => join(dir, `writing-${ref}.json`);

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
}
