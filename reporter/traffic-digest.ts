/**
 * What a run's reports make of its traffic, made as each check ends rather than once the run has
 * ended: the interface coverage (engine/coverage.ts) and each exchange's entry of exchanges.har,
 * rendered and redacted (exchange/har-file.ts). The conformance reporter hands it each check's
 * exchanges from onTestEnd, while the other checks still run; the work is queued and done in
 * slices, so that Playwright's runner goes on with its workers meanwhile, and only while the
 * machine has a core to spare (reporter/spare-cpu.ts): on a machine the run keeps busy, work
 * moved into the run would only lengthen it, so it waits for the run's last check to end. At the
 * end, what is left of it is done, then the entries' order, their budget of kept bodies and the
 * frame.
 *
 * What it gives is what the whole traffic would give at once, whatever order the checks end in:
 * the coverage is counts; the HAR file is put together in the exchanges' order at the end, an
 * entry rendered before used only when its bodies are kept whole, and redacted with the secrets
 * the reports are written with (else it is written redacted again: reporter/write-reports.ts).
 * A slice that fails, or a check whose exchanges come twice, leaves it to the end to compute
 * everything from the exchanges, as it would without it.
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Coverage, CoverageCounter } from '../engine/coverage.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { harEntryText, harFileText, type HarFile, type HarEntryText } from '../exchange/har-file.ts';
import { redactText, type SecretInput } from '../exchange/redactors.ts';
import { spareCpu, WINDOW_MS } from './spare-cpu.ts';

/**
 * Exchanges digested between two turns of the event loop (a few milliseconds' work): Playwright's
 * runner, ending the run while the last checks are digested, waits at most one slice for each
 * step (a worker's message, its exit).
 */
const SLICE = 8;

/** The traffic as the reports see it: the HAR file's text, redacted, and the coverage. */
export interface DigestedTraffic {
  har: HarFile;
  /** The secrets the HAR file's text was redacted with (ReportContent.harRedactedWith). */
  harRedactedWith: readonly SecretInput[];
  coverage: Coverage;
}

/** Where the traffic goes and what is secret in it: the same for every check of a run. */
export interface DigestSettings {
  /** The base path of the target's URL, for the coverage (exchange/route.ts basePathOf). */
  basePath: string;
  secrets: readonly SecretInput[];
}

/** When to digest (the self-tests inject both). */
export interface DigestPace {
  /** Whether a core is to spare now (default: reporter/spare-cpu.ts, over windows of WINDOW_MS). */
  spare?: () => boolean;
  /** Waits `ms` milliseconds before asking again. */
  wait?: (ms: number) => Promise<unknown>;
}

export class TrafficDigest {
  private readonly lists = new Map<string, readonly Exchange[]>();
  private readonly entries = new WeakMap<Exchange, HarEntryText>();
  private counter: CoverageCounter | undefined;
  private settings: { basePath: string; secretsKey: string } | undefined;
  /** Set when the counter cannot be trusted: the end counts every exchange again. */
  private stale = false;
  private queue: Promise<void> = Promise.resolve();
  private count = 0;
  private readonly spare: () => boolean;
  private readonly wait: (ms: number) => Promise<unknown>;
  /** Set once the run's checks have all ended: what is left is digested at once. */
  private ending = false;
  private endNow: () => void = () => {};
  private readonly ended = new Promise<void>((resolve) => (this.endNow = resolve));

  constructor(pace: DigestPace = {}) {
    this.spare = pace.spare ?? spareCpu();
    // Not what keeps the runner alive: the run's end stops the waiting (finishing).
    this.wait = pace.wait ?? ((ms) => sleep(ms, undefined, { ref: false }));
  }

  /** The run's checks have all ended (or the run is ending): the rest is digested without waiting. */
  finishing(): void {
    this.ending = true;
    this.endNow();
  }

  /** The exchanges of one check (its test's id), digested after those handed before. */
  add(testId: string, exchanges: readonly Exchange[], settings: DigestSettings): void {
    if (this.lists.has(testId)) this.stale = true;
    this.lists.set(testId, exchanges);
    this.queue = this.queue
      .then(() => this.digest(exchanges, settings))
      .catch(() => {
        // Only time is lost: the end computes what is missing.
        this.stale = true;
      });
  }

  /** Exchanges digested so far: their coverage counted, their entry rendered. */
  get digested(): number {
    return this.count;
  }

  /** Resolves once every check handed so far is digested. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** Every check's exchanges, in the order the checks were handed. */
  exchangeLists(): (readonly Exchange[])[] {
    return [...this.lists.values()];
  }

  /**
   * The traffic's HAR file and coverage, once every check handed is digested: `inOrder` is every
   * exchange of the lists, in the order the file lists them.
   */
  async traffic(
    inOrder: readonly Exchange[],
    creatorVersion: string,
    settings: DigestSettings,
  ): Promise<DigestedTraffic> {
    this.finishing();
    await this.settled();
    const { CoverageCounter } = await import('../engine/coverage.ts');
    // An entry depends on its exchange and the secrets alone; the counts, on every check's
    // exchanges counted once.
    const same = this.sameSettings(settings);
    let counter = same && !this.stale ? this.counter : undefined;
    if (counter === undefined) {
      counter = new CoverageCounter(settings.basePath);
      for (const ex of inOrder) counter.add(ex);
    }
    const redact = (text: string): string => redactText(text, settings.secrets);
    const har = harFileText(inOrder, creatorVersion, {
      redact,
      ...(same ? { rendered: (ex: Exchange) => this.entries.get(ex) } : {}),
    });
    return { har, harRedactedWith: settings.secrets, coverage: counter.coverage() };
  }

  /** The next turn of the event loop with a core to spare, or the next turn once the run ends. */
  private async turn(): Promise<void> {
    await nextTurn();
    while (!this.ending && !this.spare()) await Promise.race([this.wait(WINDOW_MS), this.ended]);
  }

  private sameSettings(settings: DigestSettings): boolean {
    return (
      this.settings === undefined ||
      (this.settings.basePath === settings.basePath &&
        this.settings.secretsKey === JSON.stringify(settings.secrets))
    );
  }

  private async digest(exchanges: readonly Exchange[], settings: DigestSettings): Promise<void> {
    if (this.stale) return;
    if (this.settings === undefined)
      this.settings = { basePath: settings.basePath, secretsKey: JSON.stringify(settings.secrets) };
    else if (!this.sameSettings(settings)) {
      this.stale = true;
      return;
    }
    // Loaded with the first check's end, not with the reporter: Playwright's runner loads the
    // reporter to list the tests, and the coverage reads requests with the request model.
    if (this.counter === undefined) {
      const { CoverageCounter } = await import('../engine/coverage.ts');
      this.counter ??= new CoverageCounter(settings.basePath);
    }
    const redact = (text: string): string => redactText(text, settings.secrets);
    for (let at = 0; at < exchanges.length; at += SLICE) {
      await this.turn();
      for (const ex of exchanges.slice(at, at + SLICE)) {
        this.counter.add(ex);
        this.entries.set(ex, harEntryText(ex, redact));
        this.count++;
      }
    }
  }
}
