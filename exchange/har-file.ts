/**
 * The text of a HAR file the suite writes (a run's exchanges.har, the validating proxy's), made so
 * that `validate` reads it back whatever the run met: its bodies within the budget of kept bodies
 * (exchange/kept.ts), and the whole file within HAR_MAX_BYTES, the most `validate` reads of a HAR
 * file (config/input-files.ts takes its cap from here). Should the entries pass it even so (some
 * hundred thousand exchanges past the budget), the later ones are written without their bodies
 * (their length and SHA-256 kept), and past the cap left out, counted in the log's comment.
 *
 * The text is JSON.stringify's with an indent of one, as a whole, built an entry at a time.
 */
import type { Exchange } from './exchange.ts';
import { entryOfExchange } from './har.ts';
import { BodyBudget, KEPT_HEAD_BYTES, KEPT_WHOLE_BYTES, keptExchange, withoutBodies } from './kept.ts';

const MiB = 1024 * 1024;

/** The largest HAR file `validate` reads, and so the largest the suite writes. */
export const HAR_MAX_BYTES = 256 * MiB;

/** Room kept for the file's frame and its comment. */
const FRAME_BYTES = 64 * 1024;

/** What a HAR file kept of its exchanges. */
export interface HarKept {
  /** Exchanges written. */
  entries: number;
  /** Bodies (of requests and of answers) written as their head, length and SHA-256. */
  cut: number;
  /** Exchanges left out: the file had reached HAR_MAX_BYTES. */
  omitted: number;
}

export interface HarFile {
  text: string;
  kept: HarKept;
}

/** "bodies past 64 MiB kept as ...": the log's comment, when something was not kept whole. */
export function keptComment(kept: HarKept): string | undefined {
  const parts: string[] = [];
  if (kept.cut > 0)
    parts.push(
      `${kept.cut} bod${kept.cut === 1 ? 'y' : 'ies'} past the ${KEPT_WHOLE_BYTES / MiB} MiB kept whole written as ${kept.cut === 1 ? 'its' : 'their'} first ${KEPT_HEAD_BYTES / 1024} KiB at most, with length and SHA-256 (_truncated)`,
    );
  if (kept.omitted > 0)
    parts.push(
      `${kept.omitted} exchange(s) left out: the file reached the ${HAR_MAX_BYTES / MiB} MiB validate reads`,
    );
  return parts.length > 0 ? parts.join('; ') : undefined;
}

const indented = (json: string, spaces: string): string => spaces + json.replace(/\n/g, `\n${spaces}`);

/** An exchange's entry as the file holds it, and what it counts for towards the cap. */
export interface HarEntryText {
  /** The entry, indented in its place in the file, as `HarTextOptions.redact` leaves it. */
  text: string;
  /** The bytes of its text as rendered (before any redaction), with the separator that follows it. */
  bytes: number;
}

const unchanged = (text: string): string => text;

/** The entry of `ex` as harFileText writes it, passed through `redact`. */
export function harEntryText(ex: Exchange, redact: (text: string) => string = unchanged): HarEntryText {
  const text = indented(JSON.stringify(entryOfExchange(ex), null, 1), '   ');
  return { text: redact(text), bytes: Buffer.byteLength(text) + 2 };
}

export interface HarTextOptions {
  /** The largest file (HAR_MAX_BYTES; a test passes a smaller one). */
  capBytes?: number;
  /**
   * Applied to each entry's text and to the frame around them apart, each whole lines (the
   * report's redaction: no JSON string, and so no secret, spans two lines). Default: none.
   */
  redact?: (text: string) => string;
  /**
   * The entry of an exchange whose bodies are kept whole, rendered (and redacted) already, if it
   * was: a run's reporter renders each as its check ends (reporter/traffic-digest.ts).
   */
  rendered?: (ex: Exchange) => HarEntryText | undefined;
}

/**
 * The HAR 1.2 text of `exchanges`, in the order given, within the budget of kept bodies and the
 * cap.
 */
export function harFileText(
  exchanges: readonly Exchange[],
  creatorVersion: string,
  options: HarTextOptions = {},
): HarFile {
  const capBytes = options.capBytes ?? HAR_MAX_BYTES;
  const redact = options.redact ?? unchanged;
  const budget = new BodyBudget();
  const parts: string[] = [];
  const kept: HarKept = { entries: 0, cut: 0, omitted: 0 };
  let size = 0;
  for (const ex of exchanges) {
    let entry = keptExchange(ex, budget);
    // Kept whole (itself, or a copy with the same bodies): its entry is the one rendered already.
    const whole = entry.request === ex.request && entry.textCut === ex.textCut;
    let text = (whole ? options.rendered?.(ex) : undefined) ?? harEntryText(entry, redact);
    if (size + text.bytes > capBytes - FRAME_BYTES) {
      entry = withoutBodies(ex);
      text = harEntryText(entry, redact);
      if (size + text.bytes > capBytes - FRAME_BYTES) {
        kept.omitted++;
        continue;
      }
    }
    size += text.bytes;
    parts.push(text.text);
    kept.entries++;
    kept.cut += (entry.textCut ? 1 : 0) + (entry.request.bodyCut ? 1 : 0);
  }
  const comment = keptComment(kept);
  const frame = JSON.stringify(
    {
      log: {
        version: '1.2',
        creator: { name: 'payflow-conformance', version: creatorVersion },
        ...(comment ? { comment } : {}),
        entries: [0],
      },
    },
    null,
    1,
  );
  // The entries take the place of the placeholder, as JSON.stringify would have written them.
  if (parts.length === 0) return { text: `${redact(frame.replace(/\[\n\s*0\n\s*\]/, '[]'))}\n`, kept };
  const at = frame.indexOf('\n   0\n');
  const head = frame.slice(0, at + 1);
  const tail = frame.slice(at + '\n   0'.length);
  return { text: `${redact(head)}${parts.join(',\n')}${redact(`${tail}\n`)}`, kept };
}
