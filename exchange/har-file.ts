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

/**
 * The HAR 1.2 text of `exchanges`, in the order given, within the budget of kept bodies and
 * `capBytes` (HAR_MAX_BYTES; a test passes a smaller one).
 */
export function harFileText(
  exchanges: readonly Exchange[],
  creatorVersion: string,
  capBytes = HAR_MAX_BYTES,
): HarFile {
  const budget = new BodyBudget();
  const parts: string[] = [];
  const kept: HarKept = { entries: 0, cut: 0, omitted: 0 };
  let size = 0;
  for (const ex of exchanges) {
    let entry = keptExchange(ex, budget);
    let text = indented(JSON.stringify(entryOfExchange(entry), null, 1), '   ');
    let bytes = Buffer.byteLength(text) + 2;
    if (size + bytes > capBytes - FRAME_BYTES) {
      entry = withoutBodies(ex);
      text = indented(JSON.stringify(entryOfExchange(entry), null, 1), '   ');
      bytes = Buffer.byteLength(text) + 2;
      if (size + bytes > capBytes - FRAME_BYTES) {
        kept.omitted++;
        continue;
      }
    }
    size += bytes;
    parts.push(text);
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
  const text =
    parts.length === 0
      ? frame.replace(/\[\n\s*0\n\s*\]/, '[]')
      : frame.replace(/\n {3}0\n/, () => `\n${parts.join(',\n')}\n`);
  return { text: `${text}\n`, kept };
}
