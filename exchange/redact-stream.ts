/**
 * Redaction of a stream of text chunks (a child process's output: bin/run-support.ts) by the rule
 * of exchange/redact.ts, without missing what a chunk boundary splits. No form of a secret and no
 * URL's userinfo holds a line break, so whole lines are redacted: the text after the last line
 * break is held back until the next chunk or the end. A line longer than LINE_HELD is let
 * through as it comes, all but its tail that could still be the start of a form, in one layer of
 * encoding (its characters, decoded, a prefix of a form; for a short secret, of a scheme and the
 * secret); in such a line, a form encoded twice, or a URL's userinfo, split across two chunks is
 * missed.
 */
import { unitAt } from './encoded-text.ts';
import { Redactor } from './redact.ts';

/** The longest line held back whole. */
export const LINE_HELD = 64 * 1024;

/** A scheme, or the start of one, then its spaces, then what follows: for short secrets. */
const SCHEME_PREFIX = /^(?:b(?:e(?:a(?:r(?:e(?:r)?)?)?)?|a(?:s(?:i(?:c)?)?)?)?|t(?:o(?:k(?:e(?:n)?)?)?)?)$/i;
const SCHEME_THEN = /^(?:bearer|basic|token)([ \t]+)?([^]*)$/i;

type Form = ReturnType<Redactor['forms']>[number];

export class RedactingStream {
  private held = '';
  private readonly redactor: Redactor;
  private readonly forms: Form[];

  constructor(
    secrets: Redactor | readonly string[],
    private readonly write: (text: string) => void,
  ) {
    this.redactor = secrets instanceof Redactor ? secrets : new Redactor();
    if (!(secrets instanceof Redactor)) for (const t of secrets) this.redactor.addToken(t);
    this.forms = this.redactor.forms().map((f) => (f.caseless ? { ...f, value: f.value.toLowerCase() } : f));
  }

  /** The characters of the current line (not ended yet) already written: a line longer than LINE_HELD. */
  private lineWritten = 0;

  push(chunk: string): void {
    const text = this.held + chunk;
    const lineEnd = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) + 1;
    const line = (lineEnd > 0 ? 0 : this.lineWritten) + text.length - lineEnd;
    const cut = line <= LINE_HELD ? lineEnd : Math.max(lineEnd, text.length - this.pendingTail(text));
    this.lineWritten = lineEnd > 0 ? cut - lineEnd : this.lineWritten + cut;
    this.held = text.slice(cut);
    if (cut > 0) this.write(this.redactor.text(text.slice(0, cut)));
  }

  end(): void {
    if (this.held) this.write(this.redactor.text(this.held));
    this.held = '';
    this.lineWritten = 0;
  }

  /** The length of the tail that may be, or start, an occurrence not decided yet. */
  private pendingTail(text: string): number {
    const from = Math.max(0, text.length - this.redactor.longestForm - 32);
    for (let p = from; p < text.length; p++) {
      if (this.mayStartAt(text, p)) return text.length - p;
    }
    return 0;
  }

  private mayStartAt(text: string, p: number): boolean {
    let decoded = '';
    const atWordStart = p === 0 || /\W/.test(text[p - 1]!);
    for (let i = p; i < text.length;) {
      const unit = unitAt(text, i, false);
      if (unit === 'partial') break;
      decoded += unit?.chars ?? text[i];
      i += unit?.length ?? 1;
      if (!this.forms.some((f) => RedactingStream.couldBe(decoded, f, atWordStart))) return false;
    }
    return true;
  }

  /** Whether `decoded` may be, or begin, an occurrence of `f` (for a short one, with its scheme). */
  private static couldBe(decoded: string, f: Form, atWordStart: boolean): boolean {
    if (f.everywhere) return f.value.startsWith(f.caseless ? decoded.toLowerCase() : decoded);
    if (!atWordStart) return false;
    if (SCHEME_PREFIX.test(decoded)) return true;
    const m = SCHEME_THEN.exec(decoded);
    if (!m) return false;
    if (m[1] === undefined) return m[2] === '';
    // The whole secret, and nothing after it yet: whether a token68 character follows is not known.
    return f.value.startsWith(m[2]!);
  }
}
