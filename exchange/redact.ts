/**
 * The one rule that keeps credentials out of every record: the bearer token, every credential the
 * suite derives from it and puts on the wire, and the values of secret extra headers, in every
 * form a target may echo them in, are shown as the variable they come from; and the userinfo of
 * any URL (`http://user:password@host/`) is shown as $REDACTED.
 *
 * Where it is applied, and why there (each with the redactors of exchange/redactors.ts):
 *   Before judging, so that no judgement, finding, log or HAR of the run ever holds a credential:
 *   - the suite's client, to what the target sends back, before anything parses it, and to what
 *     parsing decoded (transport/client.ts, through exchange/redact-exchange.ts redactedAnswer);
 *     what it records of its own requests is written redacted (the token as $API_TOKEN), and so
 *     is the message of a request that got no answer;
 *   - the validator, to a HAR file's or the proxy's exchanges as they are read, their
 *     credentials learnt from the headers first (bin/validate.ts, through
 *     exchange/redact-exchange.ts learnCredentials and redactExchange).
 *   Where text leaves the process, with the secret extra headers too and every URL's userinfo
 *   (the checks above leave a URL's userinfo to be judged as sent):
 *   - each report file as it is written, exchanges.har included (reporter/write-reports.ts); a
 *     run's exchanges.har entry by entry as each check ends, with the same secrets
 *     (reporter/traffic-digest.ts), each entry whole lines, as the writer cuts its pieces;
 *   - the run record, whose every string is redacted as it is built (reporter/build-record.ts
 *     buildRecord; bin/validate.ts for the credentials of validated traffic): the one value the
 *     files and the console summary are rendered from, so that no rendering can cut a secret in two;
 *   - the console: the conformance reporter's lines and summary (suite/conformance-reporter.ts),
 *     the validator's (bin/validate.ts), and the output of Playwright as the command relays it,
 *     a stream of chunks (bin/run-support.ts, through exchange/redact-stream.ts);
 *   - what a check hands Playwright, which writes it into its own report and output: its
 *     attachments (suite/attachments.ts), its error and its annotations (suite/define.ts).
 *
 * Redaction goes by what was sent: the rule knows each secret and looks for its forms, rather
 * than guessing at what looks like a credential (the userinfo of a URL aside, which is one by
 * its place).
 *
 * What is searched (a Secret):
 *   - the token ($API_TOKEN); its near misses the authentication probe sends, one character
 *     changed, one fewer or more, the case flipped ($API_TOKEN_VARIANT, exchange/credentials.ts);
 *     the token as the Basic password the suite sends ($API_TOKEN_BASE64); every credential the
 *     client registers as it sends it (Redactor.add); a secret header's value
 *     ($CONFORMANCE_SECRET_...);
 *   - each of those searched everywhere (below) also in any case (`TOK/SECRET`, `tok/secret`),
 *     and the UTF-8 bytes of it, of it upper-cased and of it lower-cased, in hex (either case:
 *     _HEX) and in base64 wherever they stand in a longer base64 text, in both alphabets (_BASE64);
 *   - each of those in any text encoding a target may write, undone up to three layers deep in
 *     any mix (exchange/encoded-text.ts): JSON escapes (`\/`, `\u0041`, JSON inside JSON),
 *     percent-encoding (`%2F`, `%252F`), HTML character references (`&#x2F;`, `&#47;`, `&sol;`,
 *     every named reference of the HTML standard). So the combinations covered are: a byte
 *     encoding (hex or base64) of the value in one case, inside up to three text encodings. A
 *     byte encoding of a text encoding (base64 of the percent-encoded token) is not searched:
 *     no target met so far writes one, and each would multiply the forms searched.
 *   - the userinfo of a URL, wherever it stands in what the suite writes (not in what the oracles
 *     judge: Redactor's constructor says why), in the same text encodings: after `scheme://`,
 *     or after `//` that begins the text or follows a space, a quote, a bracket, `<`, `=`, `,` or `;`,
 *     up to the last `@` before the authority ends. A URL's password is a credential whether or
 *     not the suite was given it (a HAR's URLs, a Location or Referer header, a proxy's upstream).
 *
 * Where it is searched:
 *   - a secret MIN_SEARCHED_LENGTH (8) characters or longer (every real token: a JWT, an opaque
 *     random string, and what is derived from it), anywhere at all, in any case: no real data
 *     shares it; a shorter secret header's value anywhere too, but as it is and without its byte
 *     encodings;
 *   - a shorter one (a test deployment's `Acme`), as it is, and only where it stands as a
 *     credential: after the scheme Bearer, Basic or Token (any case, spaces or tabs between),
 *     ending there (the next character cannot continue a token68); and in a header value or name
 *     as a whole run (not within a longer run of token68 characters: `token=Acme`, `X-Echo:
 *     Acme`). So a counterparty named "Acme Ltd" (or "ACME LTD") stays as it is in the answer the
 *     oracles judge and in the report, instead of turning into "$API_TOKEN Ltd" and failing its
 *     schema. Such a token can still show where a target repeats it bare in a body field, or
 *     encoded; a token that short is guessable anyway.
 *
 * What it is shown as never holds a character a JSON string, a header value or name, or an HTML
 * page would need escaped, nor a space, so a redacted body still parses and a redacted challenge
 * is still one challenge; a secret found in a decoded layer is replaced over the whole encoded
 * text it came from.
 *
 * The fast path: a text with no backslash, % or & is searched as it is, with one regular
 * expression of every form (V8 matches such an alternation faster than a search per form), and
 * for the userinfo only where it holds `//` and `@`; only a text in which something is found is
 * decoded again with the place each character came from.
 */
import { basicPassword, nearMisses } from './credentials.ts';
import { mapJson } from './json-map.ts';
import { FormSet, type Secret } from './form-set.ts';
import { holdsUserinfo, USERINFO } from './userinfo.ts';
import {
  layersOf,
  MAX_UNIT_LENGTH,
  MAY_BE_ENCODED,
  searchRanges,
  spanOf,
  type Layer,
} from './encoded-text.ts';

export const REDACTED_TOKEN = '$API_TOKEN';
/** A near miss of the token the suite sent, echoed back. */
export const REDACTED_VARIANT = '$API_TOKEN_VARIANT';
/** The token base64-encoded (a Basic password), echoed back. */
export const REDACTED_BASE64 = '$API_TOKEN_BASE64';
/** The token's UTF-8 bytes in hex, echoed back. */
export const REDACTED_HEX = '$API_TOKEN_HEX';
/** Another credential of validated traffic (Basic, a cookie, an API key), or a URL's userinfo. */
export const REDACTED_CREDENTIAL = '$REDACTED';

/** A secret at least this long is replaced wherever it occurs, in any case. */
export const MIN_SEARCHED_LENGTH = 8;

/** A credential to keep out of every record. */
export type { Secret };

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
 * The byte encodings of a secret searched everywhere: its UTF-8 bytes, those of it upper-cased
 * and lower-cased, in hex and in base64 at any offset (base64Cores); shown as $API_TOKEN_HEX and
 * $API_TOKEN_BASE64 for the token's forms, else as the secret's own name with _HEX or _BASE64.
 */
export function byteForms(secret: Secret): Secret[] {
  if (!secret.everywhere) return [];
  const token = secret.shownAs.startsWith(REDACTED_TOKEN);
  const hexAs = token ? REDACTED_HEX : `${secret.shownAs}_HEX`;
  const base64As = token ? REDACTED_BASE64 : `${secret.shownAs}_BASE64`;
  const cases = new Set([secret.value, secret.value.toUpperCase(), secret.value.toLowerCase()]);
  return [...cases].flatMap((v) => [
    { value: Buffer.from(v).toString('hex'), shownAs: hexAs, everywhere: true },
    ...base64Cores(v).map((value) => ({ value, shownAs: base64As, everywhere: true })),
  ]);
}

/** Every credential of `token` a run sends or a target may echo, as secrets (see the header). */
export function tokenForms(token: string): Secret[] {
  if (token === '') return [];
  const everywhere = token.length >= MIN_SEARCHED_LENGTH;
  return [
    { value: token, shownAs: REDACTED_TOKEN, everywhere },
    ...nearMisses(token).map((near) => ({ value: near.value, shownAs: REDACTED_VARIANT, everywhere })),
    { value: basicPassword(token), shownAs: REDACTED_BASE64, everywhere },
  ];
}

/**
 * Characters of a token68 (RFC 7235 §2.1): a short secret does not begin right after one, nor
 * end right before one, where a dot or = (a JWT's separator, base64 padding) counts only when
 * more of a token follows it, so that "Bearer Acme." ending a sentence is the token.
 */
const CONTINUES = /^(?:[A-Za-z0-9\-_~+/]|[.=]+[A-Za-z0-9\-_~+/])/;
/** The schemes a credential follows (the suite sends these three), ending where the secret starts. */
const AFTER_SCHEME = /(?<![A-Za-z0-9_])(?:bearer|basic|token)[ \t]+$/i;

/** For a search that only asks whether anything is found (made once: the hot path makes no closure). */
const stopAtFirst = (): 'stop' => 'stop';

/** A place where something is replaced, in the original text. */
interface Found {
  from: number;
  to: number;
  shownAs: string;
  /** The length of what was found: where two places overlap, the longer one names the whole. */
  length: number;
}

/** Redacts the secrets it holds, in every form, and every URL's userinfo, from text, header values and names, and JSON values. */
export class Redactor {
  private readonly secrets = new Map<string, Secret>();
  /** The forms searched everywhere in any case: the long secrets and their byte encodings. */
  private readonly everywhere = new FormSet(true);
  /**
   * The forms searched as they are: the short secrets, only where they stand as a credential;
   * and a short secret searched everywhere all the same (a secret header's value), with none of
   * its byte encodings (six hex digits are data as often as not).
   */
  private readonly credentials = new FormSet(false);

  /** Whether the userinfo of URLs is replaced too (see the constructor). */
  private readonly userinfo: boolean;

  /**
   * `userinfo` false: the userinfo of URLs is left as it is, in what the oracles judge (an answer
   * as the client parses it, recorded traffic as the validator judges it). A generated text such
   * as a remark "see //a@b" is echoed back by a conforming deployment, and judged as what was
   * sent; replaced in the answer alone, it would be a false alarm. The suite's outputs (every
   * report file, the HAR, the attachments, the console) are redacted with it, as they are written.
   */
  constructor(secrets: Iterable<Secret> = [], options: { userinfo?: boolean } = {}) {
    this.userinfo = options.userinfo ?? true;
    for (const s of secrets) this.add(s);
  }

  /** Registers a secret and its byte encodings (the first registration of a value keeps its name). */
  add(secret: Secret): void {
    if (secret.value === '' || this.secrets.has(secret.value)) return;
    this.secrets.set(secret.value, secret);
    if (!secret.everywhere || secret.value.length < MIN_SEARCHED_LENGTH) {
      this.credentials.add(secret);
      return;
    }
    this.everywhere.add(secret);
    for (const form of byteForms(secret)) this.everywhere.add(form);
  }

  /** The secrets registered (their byte encodings are derived again by whoever registers them). */
  list(): Secret[] {
    return [...this.secrets.values()];
  }

  /** Every form searched, the byte encodings included, and whether case is ignored: for a stream. */
  forms(): { value: string; caseless: boolean; everywhere: boolean }[] {
    const of = (set: FormSet, caseless: boolean) =>
      [...set.values()].map((f) => ({
        value: f.secrets[0]!.value,
        caseless,
        everywhere: f.secrets.some((s) => s.everywhere),
      }));
    return [...of(this.everywhere, true), ...of(this.credentials, false)];
  }

  /** Registers every form of a token (tokenForms). */
  addToken(token: string): this {
    for (const s of tokenForms(token)) this.add(s);
    return this;
  }

  /** True when it holds no secret (the userinfo of URLs is redacted all the same). */
  get isEmpty(): boolean {
    return this.secrets.size === 0;
  }

  /** The longest text one occurrence of a form may take, encoded. */
  get longestForm(): number {
    const longest = (set: FormSet): number => set.search?.longest ?? 0;
    return Math.max(longest(this.everywhere), longest(this.credentials)) * MAX_UNIT_LENGTH;
  }

  /**
   * Whether `layer` may hold something to replace: a form (to be judged in place), or a URL's
   * userinfo. A decoded layer is searched for forms only around what was decoded in it.
   */
  private holdsAny(layer: Layer): boolean {
    if (Redactor.matches(this.everywhere, layer, false, stopAtFirst)) return true;
    if (Redactor.matches(this.credentials, layer, true, stopAtFirst)) return true;
    return this.userinfo && holdsUserinfo(layer.chars);
  }

  /**
   * Calls `found` with each match of `set`'s forms in `layer` (in the ranges where one may be new,
   * each searched on its own, so that the text between them is not read), leftmost first; `found`
   * says whether to stop, to go on after the match, or to go on from the character after the
   * match's first (a place judged not to be a credential: another match may start inside it).
   * Returns whether it stopped.
   *
   * A match is new in a decoded layer when it starts up to the longest form's length before a
   * decoded run; for a short secret, `inContext`, also when the context its place is judged by
   * holds one (64 characters after it, 24 before).
   */
  private static matches(
    set: FormSet,
    layer: Layer,
    inContext: boolean,
    found: (m: RegExpExecArray, at: number) => 'stop' | 'after' | 'inside',
  ): boolean {
    const search = set.search;
    const chars = layer.chars;
    // Shorter than every form: header names and most header values.
    if (!search || chars.length < search.shortest) return false;
    const { pattern, longest } = search;
    const ranges = searchRanges(layer, longest + (inContext ? 64 : 0), inContext ? 24 : 0);
    if (!ranges) return Redactor.matchesIn(pattern, chars, 0, chars.length, found);
    for (let r = 0; r < ranges.length; r += 2) {
      const from = ranges[r]!;
      const part = chars.slice(from, ranges[r + 1]! + longest);
      if (Redactor.matchesIn(pattern, part, from, ranges[r + 1]! - from, found)) return true;
    }
    return false;
  }

  /** matches() in `part`, which starts at `offset` of its layer, for matches starting before `before`. */
  private static matchesIn(
    pattern: RegExp,
    part: string,
    offset: number,
    before: number,
    found: (m: RegExpExecArray, at: number) => 'stop' | 'after' | 'inside',
  ): boolean {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(part); m && m.index < before; m = pattern.exec(part)) {
      const next = found(m, offset + m.index);
      if (next === 'stop') return true;
      if (next === 'inside') pattern.lastIndex = m.index + 1;
    }
    return false;
  }

  /**
   * Everything to replace in `text`. `header`: a short secret also counts as a whole run (not
   * within a longer run of token68 characters), besides after a scheme.
   */
  private apply(text: string, header: boolean): string {
    // Nothing encoded and nothing found: the text of nearly every exchange of a run.
    if (!MAY_BE_ENCODED.test(text)) {
      const layer = { chars: text };
      return this.holdsAny(layer) ? this.replaced(text, [layer], header) : text;
    }
    // Where each decoded character came from is needed only where something is found: most
    // texts with an escape, a percent sign or an ampersand in them hold nothing.
    if (!layersOf(text, false).some((layer) => this.holdsAny(layer))) return text;
    return this.replaced(text, layersOf(text, true), header);
  }

  /**
   * True when `text` is left as it is by every rule here, and so is every part of it: nothing in
   * it may be encoded, and nothing in it is found. A JSON value parsed from such a text holds only
   * strings that are parts of it (no escape to decode), so value() would return it unchanged.
   */
  untouched(text: string): boolean {
    return !MAY_BE_ENCODED.test(text) && !this.holdsAny({ chars: text });
  }

  /** Whether a short secret found at [at, stop) of `chars` stands as a credential there. */
  private static standsAsCredential(chars: string, at: number, stop: number, header: boolean): boolean {
    if (CONTINUES.test(chars.slice(stop, stop + 64))) return false;
    if (AFTER_SCHEME.test(chars.slice(Math.max(0, at - 24), at))) return true;
    return header && (at === 0 || !/[A-Za-z0-9\-_~+/.]/.test(chars[at - 1]!));
  }

  /** The places of `layer` where a form of `set` is found (a short one only as a credential). */
  private search(set: FormSet, layer: Layer, header: boolean, out: Found[]): void {
    const chars = layer.chars;
    Redactor.matches(set, layer, set === this.credentials, (m, at) => {
      const stop = at + m[0].length;
      const secret = set.secretOf(m[0]);
      if (!secret || (!secret.everywhere && !Redactor.standsAsCredential(chars, at, stop, header)))
        return 'inside';
      out.push({ ...spanOf(layer, at, stop), shownAs: secret.shownAs, length: m[0].length });
      return 'after';
    });
  }

  /** `text` with everything found in any of its layers replaced over the span it came from. */
  private replaced(text: string, layers: Layer[], header: boolean): string {
    const found: Found[] = [];
    for (const layer of layers) {
      this.search(this.everywhere, layer, header, found);
      this.search(this.credentials, layer, header, found);
      if (!this.userinfo || !holdsUserinfo(layer.chars)) continue;
      for (const m of layer.chars.matchAll(USERINFO)) {
        const [from, to] = m.indices![1]!;
        found.push({ ...spanOf(layer, from, to), shownAs: REDACTED_CREDENTIAL, length: 0 });
      }
    }
    if (found.length === 0) return text;
    // Places found in several layers, or overlapping, are replaced as one.
    found.sort((a, b) => a.from - b.from || b.to - a.to);
    let out = '';
    let last = 0;
    let current: Found | undefined;
    const flush = (f: Found): void => {
      out += text.slice(last, f.from) + f.shownAs;
      last = f.to;
    };
    for (const f of found) {
      if (current && f.from < current.to) {
        current.to = Math.max(current.to, f.to);
        if (f.length > current.length) {
          current.shownAs = f.shownAs;
          current.length = f.length;
        }
        continue;
      }
      if (current) flush(current);
      current = { ...f };
    }
    if (current) flush(current);
    return out + text.slice(last);
  }

  /** `text` (a body, an error message, a report line) with every secret and userinfo replaced where it is found. */
  text(text: string): string {
    return this.apply(text, false);
  }

  /** A header value or name: the same, and the short secrets also as whole runs. */
  header(value: string): string {
    return this.apply(value, true);
  }

  /**
   * A JSON value with every string (keys too) redacted: the value itself when nothing in it
   * changed (so that a caller can tell), else a copy. It walks with a stack of its own rather than
   * by recursion, so a value of any depth is redacted (exchange/json-body.ts).
   */
  value<T>(value: T): T {
    return mapJson(value, (s) => this.text(s)) as T;
  }
}
