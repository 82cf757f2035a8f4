/**
 * The one rule that keeps the bearer token out of every record: where the token stands as the
 * token, it is shown as $API_TOKEN. The HTTP client applies it to what the target sends back
 * (transport/client.ts), the reporter to every string of the record and report files
 * (reporter/redact.ts), and the CLI to Playwright's output (RedactingStream, bin/run-support.ts).
 *
 * The token "stands as the token":
 *   1. in the Authorization header the suite sends: recorded as `Bearer $API_TOKEN` without
 *      searching (transport/client.ts), and curl commands read it from $API_TOKEN;
 *   2. after the Bearer scheme, anywhere: `Bearer <token>` (any case, spaces or tabs between),
 *      the token ending there (the next character cannot continue a token68). A target echoing
 *      the Authorization header back, in a header or in a body, echoes it so;
 *   3. in a response header, as a whole run: not within a longer run of token68 characters
 *      (letters, digits, - . _ ~ + / =). A header value equal to the token, `token=<token>` or
 *      `error_description="token <token> expired"` in a WWW-Authenticate: headers carry
 *      credentials and metadata, not the data the suite checks. (`<token>.example.com` in a
 *      Location is a host name, not the token);
 *   4. anywhere at all, inside any text, when it is MIN_SEARCHED_LENGTH (8) characters or longer.
 *      A real bearer token (a JWT, an opaque random string) is, and no real data shares it,
 *      so any occurrence is a leak.
 *
 * A shorter token (a test deployment's `Acme`) is not searched for inside data: a counterparty
 * named "Acme Ltd" stays "Acme Ltd" in the answer the oracles judge and in the report, instead
 * of turning into "$API_TOKEN Ltd" and failing its schema. Such a token can still show where a
 * target repeats it bare in a body field; a token that short is guessable anyway.
 */

export const REDACTED_TOKEN = '$API_TOKEN';

/** A token at least this long is replaced wherever it occurs (rule 4). */
export const MIN_SEARCHED_LENGTH = 8;

/**
 * Characters of a token68 (RFC 7235 §2.1): the token does not begin right after one, nor end
 * right before one, where a dot or = (a JWT's separator, base64 padding) counts only when more
 * of a token follows it, so that "Bearer Acme." ending a sentence is the token.
 */
const TOKEN68 = 'A-Za-z0-9\\-_~+/';
const NOT_AFTER = `[${TOKEN68}.]`;
const NOT_BEFORE = `(?:[${TOKEN68}]|[.=]+[${TOKEN68}])`;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A compiled form of the rule for one token. */
class TokenRule {
  private readonly bearer: RegExp;
  private readonly word: RegExp;
  /** A tail of text that may be the start of a `Bearer <token>` not complete yet. */
  private readonly bearerStart: RegExp;

  constructor(readonly token: string) {
    const t = escapeRegExp(token);
    const after = `(?!${NOT_BEFORE})`;
    this.bearer = new RegExp(`\\b([Bb][Ee][Aa][Rr][Ee][Rr][ \\t]+)${t}${after}`, 'g');
    this.word = new RegExp(`(?<!${NOT_AFTER})${t}${after}`, 'g');
    const prefixes = Array.from({ length: token.length }, (_, i) => escapeRegExp(token.slice(0, i + 1)));
    prefixes.reverse();
    let scheme = `(?:[ \\t]+(?:${prefixes.join('|')})?)?`;
    for (const c of 'reraeB') scheme = `[${c.toUpperCase()}${c.toLowerCase()}](?:${scheme})?`;
    this.bearerStart = new RegExp(`\\b${scheme}$`);
  }

  get searchedEverywhere(): boolean {
    return this.token.length >= MIN_SEARCHED_LENGTH;
  }

  text(text: string): string {
    if (this.searchedEverywhere) return text.split(this.token).join(REDACTED_TOKEN);
    return text.replace(this.bearer, (_match, scheme: string) => scheme + REDACTED_TOKEN);
  }

  header(value: string): string {
    return this.text(value).replace(this.word, () => REDACTED_TOKEN);
  }

  /**
   * The length of the longest tail of `text` that could be the start of an occurrence the rule
   * replaces, or one whose end is not decided yet (`Bearer <token>` at the very end, which the
   * next character may continue into another token).
   */
  pendingTail(text: string): number {
    if (this.searchedEverywhere) {
      for (let k = Math.min(this.token.length - 1, text.length); k > 0; k--)
        if (text.endsWith(this.token.slice(0, k))) return k;
      return 0;
    }
    const m = this.bearerStart.exec(text);
    return m ? m[0].length : 0;
  }
}

const rules = new Map<string, TokenRule>();

function ruleFor(token: string): TokenRule {
  let rule = rules.get(token);
  if (!rule) {
    rule = new TokenRule(token);
    rules.set(token, rule);
  }
  return rule;
}

/** `text` (a body, an error message, a report line) with the token replaced where it stands as the token. */
export function redact(text: string, token: string): string {
  return token === '' ? text : ruleFor(token).text(text);
}

/** A header value with the token replaced where it stands as the token, a whole run included (rule 3). */
export function redactHeaderValue(value: string, token: string): string {
  return token === '' ? value : ruleFor(token).header(value);
}

/**
 * Redacts a stream of text chunks (a child process's output) without missing a token split
 * across two chunks: a tail that could be the start of one is held back until the next chunk
 * or the end.
 */
export class RedactingStream {
  private held = '';

  constructor(
    private readonly tokens: readonly string[],
    private readonly write: (text: string) => void,
  ) {}

  push(chunk: string): void {
    const text = this.held + chunk;
    let pending = 0;
    for (const token of this.tokens)
      if (token !== '') pending = Math.max(pending, ruleFor(token).pendingTail(text));
    // No occurrence straddles the cut: the held tail starts where the earliest possible one does.
    const cut = text.length - pending;
    this.held = text.slice(cut);
    if (cut > 0) this.write(this.redact(text.slice(0, cut)));
  }

  end(): void {
    if (this.held) this.write(this.redact(this.held));
    this.held = '';
  }

  private redact(text: string): string {
    return this.tokens.reduce((out, token) => redact(out, token), text);
  }
}
