/**
 * The one rule that keeps credentials out of every record: the bearer token, every credential the
 * suite derives from it and puts on the wire, and the values of secret extra headers, in every
 * form a target may echo them in, are shown as the variable they come from. The HTTP client
 * applies it to what the target sends back before anything parses it, and to what it parsed
 * (transport/client.ts), the validator to recorded and proxied traffic (engine/validate.ts), the
 * reporter to every string of the record and of every report file (reporter/redact.ts), and the
 * CLI to Playwright's output (RedactingStream, bin/run-support.ts).
 *
 * What is searched (a Secret):
 *   - the token ($API_TOKEN); its near misses the authentication probe sends, one character
 *     changed, one fewer or more, the case flipped ($API_TOKEN_VARIANT, exchange/credentials.ts);
 *     the token base64-encoded, as the Basic password the suite sends and wherever it stands in
 *     a longer base64 text, in both alphabets ($API_TOKEN_BASE64); every credential the client
 *     registers as it sends it (Redactor.add); a secret header's value ($CONFORMANCE_SECRET_...);
 *   - each in every encoding a target may echo it in: as is, each character (any number of them)
 *     JSON-escaped (`\/`, `\u0041`, either case of hex), percent-encoded (`%2F`, `%2f`) or written
 *     as an HTML character reference (`&#x2F;`, `&#47;`, `&amp;`).
 *
 * Where it is searched:
 *   - a secret MIN_SEARCHED_LENGTH (8) characters or longer (every real token: a JWT, an opaque
 *     random string, and what is derived from it), anywhere at all: no real data shares it;
 *   - a shorter one (a test deployment's `Acme`) only where it stands as a credential: after the
 *     scheme Bearer, Basic or Token (any case, spaces or tabs between), ending there (the next
 *     character cannot continue a token68); and in a header value as a whole run (not within a
 *     longer run of token68 characters: `token=Acme`, `X-Echo: Acme`). So a counterparty named
 *     "Acme Ltd" stays "Acme Ltd" in the answer the oracles judge and in the report, instead of
 *     turning into "$API_TOKEN Ltd" and failing its schema. Such a token can still show where a
 *     target repeats it bare in a body field; a token that short is guessable anyway.
 *
 * What it is shown as never holds a character a JSON string, a header value or an HTML page
 * would need escaped, nor a space, so a redacted body still parses and a redacted challenge is
 * still one challenge.
 */
import { basicPassword, nearMisses } from './credentials.ts';
import { mapJson } from './json-map.ts';

export const REDACTED_TOKEN = '$API_TOKEN';
/** A near miss of the token the suite sent, echoed back. */
export const REDACTED_VARIANT = '$API_TOKEN_VARIANT';
/** The token base64-encoded (a Basic password), echoed back. */
export const REDACTED_BASE64 = '$API_TOKEN_BASE64';
/** Another credential of validated traffic (Basic, a cookie, an API key). */
export const REDACTED_CREDENTIAL = '$REDACTED';

/** A secret at least this long is replaced wherever it occurs. */
export const MIN_SEARCHED_LENGTH = 8;

/** A credential to keep out of every record. */
export interface Secret {
  value: string;
  /** What it is shown as instead ($API_TOKEN, a variable's name). */
  shownAs: string;
  /** Searched inside any text; otherwise only where it stands as a credential (see above). */
  everywhere: boolean;
}

/**
 * The base64 text of `value` wherever it starts in a longer base64 text: for each of the three
 * alignments, the characters that depend on `value`'s bytes alone (the ones at both ends mix in
 * its neighbours'). In both alphabets (standard, and URL-safe).
 */
export function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value);
  const out = new Set<string>();
  for (let k = 0; k < 3; k++) {
    const text = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    const first = Math.ceil((4 * k) / 3);
    const last = Math.floor((8 * (k + bytes.length) - 6) / 6);
    const core = text.slice(first, last + 1).replace(/=+$/, '');
    if (core.length >= 4) {
      out.add(core);
      out.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...out];
}

/**
 * A secret and, when it is searched everywhere, its base64 text wherever it may stand in a longer
 * one (a target echoing `base64(header)`): shown as $API_TOKEN_BASE64, or as the secret's own
 * name with _BASE64.
 */
export function withBase64(secret: Secret): Secret[] {
  if (!secret.everywhere) return [secret];
  const shownAs = secret.shownAs.startsWith(REDACTED_TOKEN) ? REDACTED_BASE64 : `${secret.shownAs}_BASE64`;
  return [secret, ...base64Cores(secret.value).map((value) => ({ value, shownAs, everywhere: true }))];
}

/** Every form of `token` a run sends or a target may echo, as secrets (see the header). */
export function tokenForms(token: string): Secret[] {
  if (token === '') return [];
  const everywhere = token.length >= MIN_SEARCHED_LENGTH;
  return [
    { value: token, shownAs: REDACTED_TOKEN, everywhere },
    ...nearMisses(token).map((near) => ({ value: near.value, shownAs: REDACTED_VARIANT, everywhere })),
    { value: basicPassword(token), shownAs: REDACTED_BASE64, everywhere },
  ].flatMap(withBase64);
}

/**
 * Characters of a token68 (RFC 7235 §2.1): a short secret does not begin right after one, nor
 * end right before one, where a dot or = (a JWT's separator, base64 padding) counts only when
 * more of a token follows it, so that "Bearer Acme." ending a sentence is the token.
 */
const CONTINUES = /^(?:[A-Za-z0-9\-_~+/]|[.=]+[A-Za-z0-9\-_~+/])/;
/** The schemes a credential follows (the suite sends these three), ending where the secret starts. */
const AFTER_SCHEME = /(?<![A-Za-z0-9_])(?:bearer|basic|token)[ \t]+$/i;

const NAMED_REFERENCE: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;|&apos;',
};

const ESCAPED_CONTROL: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** Whether a text may hold an encoded form at all: no backslash, % or & is the fast path. */
const MAY_BE_ENCODED = /[\\%&]/;

/**
 * `text` decoded as a target may have encoded it, each decoded character with the span of the
 * text it came from: JSON escapes (`\u0074`, `\/`, `\"`, with any number of backslashes before
 * them, as JSON inside JSON has; an odd run before b f n r t is a control character), percent-
 * encoding, HTML character references. Everything else is itself. A secret found in the decoded
 * text is replaced over the whole span it came from, so a redacted JSON text stays JSON.
 * `spans` false: the decoded characters alone (start and end left empty).
 */
function decodedView(text: string, spans = true): { chars: string; start: Int32Array; end: Int32Array } {
  const chunks: string[] = [];
  const start = new Int32Array(spans ? text.length : 0);
  const end = new Int32Array(spans ? text.length : 0);
  let n = 0;
  const emit = (char: string, from: number, to: number): void => {
    chunks.push(char);
    if (!spans) return;
    start[n] = from;
    end[n++] = to;
  };
  const special = /[\\%&]/g;
  for (let i = 0; i < text.length;) {
    // A run of characters that are themselves, copied whole.
    special.lastIndex = i;
    const next = special.exec(text);
    const stop = next ? next.index : text.length;
    if (stop > i) {
      chunks.push(text.slice(i, stop));
      if (spans)
        for (let k = i; k < stop; k++) {
          start[n] = k;
          end[n++] = k + 1;
        }
      i = stop;
      if (!next) break;
    }
    const c = text[i]!;
    if (c === '\\') {
      let run = 0;
      while (text[i + run] === '\\') run++;
      const after = text[i + run];
      const unicode = /^u([0-9a-fA-F]{4})/.exec(text.slice(i + run, i + run + 5));
      if (unicode) {
        emit(String.fromCharCode(parseInt(unicode[1]!, 16)), i, i + run + 5);
        i += run + 5;
      } else if (after === '/' || after === '"') {
        emit(after, i, i + run + 1);
        i += run + 1;
      } else if (run % 2 === 1 && after !== undefined && ESCAPED_CONTROL[after]) {
        for (let k = 0; k < run - 1; k++) emit('\\', i + k, i + k + 1);
        emit(ESCAPED_CONTROL[after], i + run - 1, i + run + 1);
        i += run + 1;
      } else {
        for (let k = 0; k < run; k++) emit('\\', i + k, i + k + 1);
        i += run;
      }
      continue;
    }
    if (c === '%') {
      const hex = /^%([0-9a-fA-F]{2})/.exec(text.slice(i, i + 3));
      if (hex) {
        emit(String.fromCharCode(parseInt(hex[1]!, 16)), i, i + 3);
        i += 3;
        continue;
      }
    } else {
      const rest = text.slice(i, i + 12);
      const numeric = /^&#([xX][0-9a-fA-F]+|[0-9]+);/.exec(rest);
      const code = numeric
        ? /^[xX]/.test(numeric[1]!)
          ? parseInt(numeric[1]!.slice(1), 16)
          : Number(numeric[1])
        : undefined;
      if (numeric && code !== undefined && code <= 0x10ffff) {
        emit(String.fromCodePoint(code), i, i + numeric[0].length);
        i += numeric[0].length;
        continue;
      }
      const named = Object.entries(NAMED_REFERENCE).flatMap(([char, names]) =>
        names
          .split('|')
          .filter((name) => rest.startsWith(name))
          .map((name) => ({ char, name })),
      )[0];
      if (named) {
        emit(named.char, i, i + named.name.length);
        i += named.name.length;
        continue;
      }
    }
    emit(c, i, i + 1);
    i++;
  }
  return { chars: chunks.join(''), start, end };
}

/** Redacts the secrets it holds, in every form, from text, header values and JSON values. */
export class Redactor {
  private readonly secrets = new Map<string, Secret>();
  /** The secrets, longest first (a secret that holds another, the token one character longer, wins). */
  private ordered: Secret[] | undefined;

  constructor(secrets: Iterable<Secret> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Registers a secret (the first registration of a value keeps its name). */
  add(secret: Secret): void {
    if (secret.value === '' || this.secrets.has(secret.value)) return;
    this.secrets.set(secret.value, secret);
    this.ordered = undefined;
  }

  /** The secrets it holds. */
  list(): Secret[] {
    return [...this.secrets.values()];
  }

  /** Registers every form of a token (tokenForms). */
  addToken(token: string): this {
    for (const s of tokenForms(token)) this.add(s);
    return this;
  }

  get isEmpty(): boolean {
    return this.secrets.size === 0;
  }

  /** The longest text one occurrence may take, encoded (12 characters per character at most). */
  get longestForm(): number {
    let n = 0;
    for (const s of this.secrets.values()) n = Math.max(n, s.value.length);
    return n * 12;
  }

  private get all(): Secret[] {
    this.ordered ??= [...this.secrets.values()].sort((a, b) => b.value.length - a.value.length);
    return this.ordered;
  }

  /**
   * Every secret in `text` replaced. `header`: a short secret also counts as a whole run (not
   * within a longer run of token68 characters), besides after a scheme.
   */
  private apply(text: string, header: boolean): string {
    const all = this.all;
    const encoded = MAY_BE_ENCODED.test(text);
    // Nothing encoded and no secret in it: the text of nearly every exchange of a run.
    if (!encoded && !all.some((s) => text.includes(s.value))) return text;
    return this.found(text, header, encoded);
  }

  /**
   * True when `text` is left as it is by every rule here, and so is every part of it: nothing in
   * it may be encoded, and no secret occurs in it. A JSON value parsed from such a text holds only
   * strings that are parts of it (no escape to decode), so value() would return it unchanged.
   */
  untouched(text: string): boolean {
    return this.isEmpty || (!MAY_BE_ENCODED.test(text) && !this.all.some((s) => text.includes(s.value)));
  }

  private found(text: string, header: boolean, encoded: boolean): string {
    const all = this.all;
    const short = all.some((s) => !s.everywhere);
    if (!short && !encoded) {
      // The fast path: nothing encoded, nothing that needs its place judged.
      let out = text;
      for (const s of all) if (out.includes(s.value)) out = out.split(s.value).join(s.shownAs);
      return out;
    }
    // Where each decoded character came from is needed only where a secret is found: most
    // texts with an escape or a percent sign in them hold none.
    const chars = decodedView(text, false).chars;
    if (!all.some((s) => chars.includes(s.value))) return text;
    const view = decodedView(text);
    const taken = new Uint8Array(view.chars.length);
    const found: { from: number; to: number; shownAs: string }[] = [];
    for (const s of all) {
      for (let at = view.chars.indexOf(s.value); at >= 0; at = view.chars.indexOf(s.value, at + 1)) {
        const stop = at + s.value.length;
        if (taken.subarray(at, stop).some((t) => t === 1)) continue;
        if (!s.everywhere) {
          const after = CONTINUES.test(view.chars.slice(stop, stop + 64));
          const credential = AFTER_SCHEME.test(view.chars.slice(Math.max(0, at - 24), at));
          const wholeRun = header && (at === 0 || !/[A-Za-z0-9\-_~+/.]/.test(view.chars[at - 1]!));
          if (after || !(credential || wholeRun)) continue;
        }
        taken.fill(1, at, stop);
        found.push({ from: view.start[at]!, to: view.end[stop - 1]!, shownAs: s.shownAs });
      }
    }
    if (found.length === 0) return text;
    found.sort((a, b) => a.from - b.from);
    let out = '';
    let last = 0;
    for (const f of found) {
      out += text.slice(last, f.from) + f.shownAs;
      last = f.to;
    }
    return out + text.slice(last);
  }

  /** `text` (a body, an error message, a report line) with every secret replaced where it is found. */
  text(text: string): string {
    return this.isEmpty ? text : this.apply(text, false);
  }

  /** A header value: the same, and the short secrets also as whole runs. */
  header(value: string): string {
    return this.isEmpty ? value : this.apply(value, true);
  }

  /**
   * A JSON value with every string (keys too) redacted: the value itself when nothing in it
   * changed (so that a caller can tell), else a copy. It walks with a stack of its own rather than
   * by recursion, so a value of any depth is redacted (exchange/json-body.ts).
   */
  value<T>(value: T): T {
    if (this.isEmpty) return value;
    return mapJson(value, (s) => this.text(s)) as T;
  }
}

const byToken = new Map<string, Redactor>();

/** The redactor of every form of `token`, made once. */
export function tokenRedactor(token: string): Redactor {
  let r = byToken.get(token);
  if (!r) {
    r = new Redactor().addToken(token);
    byToken.set(token, r);
  }
  return r;
}

/** `text` with every form of `token` replaced where it stands as the token (see the header). */
export function redact(text: string, token: string): string {
  return token === '' ? text : tokenRedactor(token).text(text);
}

/** A header value with every form of `token` replaced, a whole run of a short one included. */
export function redactHeaderValue(value: string, token: string): string {
  return token === '' ? value : tokenRedactor(token).header(value);
}

/**
 * The next character of `text` at `i` as an encoding may write it (charPattern): the character
 * and the length it takes, or 'partial' when the text ends inside what may be an encoding.
 */
function decodeUnit(text: string, i: number): { char: string; length: number } | 'partial' {
  const c = text[i]!;
  const rest = text.slice(i, i + 12);
  const complete = (m: RegExpExecArray | null, code: (m: RegExpExecArray) => number) =>
    m ? { char: String.fromCodePoint(code(m)), length: m[0].length } : undefined;
  if (c === '\\') {
    const unicode = complete(/^\\u([0-9a-fA-F]{4})/.exec(rest), (m) => parseInt(m[1]!, 16));
    if (unicode) return unicode;
    if (/^\\(?:u[0-9a-fA-F]{0,3})?$/.test(rest)) return 'partial';
    if (/^\\[/"\\]/.test(rest)) return { char: rest[1]!, length: 2 };
  } else if (c === '%') {
    const percent = complete(/^%([0-9a-fA-F]{2})/.exec(rest), (m) => parseInt(m[1]!, 16));
    if (percent) return percent;
    if (/^%[0-9a-fA-F]?$/.test(rest)) return 'partial';
  } else if (c === '&') {
    const numeric = complete(/^&#([xX][0-9a-fA-F]+|[0-9]+);/.exec(rest), (m) =>
      /^[xX]/.test(m[1]!) ? parseInt(m[1]!.slice(1), 16) : Number(m[1]),
    );
    if (numeric) return numeric;
    for (const [char, names] of Object.entries(NAMED_REFERENCE))
      for (const name of names.split('|')) if (rest.startsWith(name)) return { char, length: name.length };
    if (/^&(?:#[xX]?[0-9a-fA-F]*|[a-z0-9#]*)$/.test(rest)) return 'partial';
  }
  return { char: c, length: 1 };
}

/** A scheme, or the start of one, then its spaces, then what follows: for short secrets. */
const SCHEME_PREFIX = /^(?:b(?:e(?:a(?:r(?:e(?:r)?)?)?)?|a(?:s(?:i(?:c)?)?)?)?|t(?:o(?:k(?:e(?:n)?)?)?)?)$/i;
const SCHEME_THEN = /^(?:bearer|basic|token)([ \t]+)?([^]*)$/i;

/**
 * Redacts a stream of text chunks (a child process's output) without missing a secret split
 * across two chunks, in any encoding: the tail of the text that could still be the start of one
 * (its characters, decoded, a prefix of a secret; for a short secret, of a scheme and the
 * secret), or one whose end is not decided yet, is held back until the next chunk or the end.
 */
export class RedactingStream {
  private held = '';
  private readonly redactor: Redactor;

  constructor(
    secrets: Redactor | readonly string[],
    private readonly write: (text: string) => void,
  ) {
    this.redactor = secrets instanceof Redactor ? secrets : new Redactor();
    if (!(secrets instanceof Redactor)) for (const t of secrets) this.redactor.addToken(t);
  }

  push(chunk: string): void {
    const text = this.held + chunk;
    const cut = text.length - this.pendingTail(text);
    this.held = text.slice(cut);
    if (cut > 0) this.write(this.redactor.text(text.slice(0, cut)));
  }

  end(): void {
    if (this.held) this.write(this.redactor.text(this.held));
    this.held = '';
  }

  /** The length of the tail that may be, or start, an occurrence not decided yet. */
  private pendingTail(text: string): number {
    const secrets = this.redactor.list();
    const from = Math.max(0, text.length - this.redactor.longestForm - 32);
    for (let p = from; p < text.length; p++) {
      if (this.mayStartAt(text, p, secrets)) return text.length - p;
    }
    return 0;
  }

  private mayStartAt(text: string, p: number, secrets: readonly Secret[]): boolean {
    let decoded = '';
    for (let i = p; i < text.length;) {
      const unit = decodeUnit(text, i);
      if (unit === 'partial') break;
      decoded += unit.char;
      i += unit.length;
      if (!secrets.some((s) => this.couldBe(decoded, s, p === 0 || /\W/.test(text[p - 1]!)))) return false;
    }
    return true;
  }

  /** Whether `decoded` may be, or begin, an occurrence of `s` (for a short one, with its scheme). */
  private couldBe(decoded: string, s: Secret, atWordStart: boolean): boolean {
    if (s.everywhere) return s.value.startsWith(decoded) || decoded === s.value;
    if (!atWordStart) return false;
    if (SCHEME_PREFIX.test(decoded)) return true;
    const m = SCHEME_THEN.exec(decoded);
    if (!m) return false;
    if (m[1] === undefined) return m[2] === '';
    const rest = m[2]!;
    // The whole secret, and nothing after it yet: whether a token68 character follows is not known.
    return s.value.startsWith(rest);
  }
}
