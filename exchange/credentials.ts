/**
 * The credentials the suite derives from the configured token and puts on the wire (the
 * authentication probe's wrong credentials, probes/authentication.ts), in one place, so that the
 * redaction of every process of a run (exchange/redact.ts) knows each of them without being told:
 * the token with one character changed at the first, middle or last place, one fewer, one more,
 * its case flipped, and the token as a Basic password (base64 of ":" and the token).
 */

/** A character of the same kind as `c` (letter, digit, other) that differs from it. */
function other(c: string): string {
  if (/[a-y]/.test(c) || /[A-Y]/.test(c) || /[0-8]/.test(c)) return String.fromCharCode(c.charCodeAt(0) + 1);
  if (c === 'z') return 'a';
  if (c === 'Z') return 'A';
  if (c === '9') return '0';
  return c === 'x' ? 'y' : 'x';
}

const swapCase = (s: string): string =>
  [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

/** A near miss of the token: its value, how a request record shows it, and what the probe says it is. */
export interface NearMiss {
  value: string;
  /** As the records show it, without the token: `$API_TOKEN with its first character changed`. */
  recorded: string;
  label: string;
}

/**
 * Every near miss of `token` the suite sends: one character changed at the first, middle and last
 * place; one fewer; one more; the case flipped. Those equal to the token (a token of one
 * character, a token with no letter) or empty are left out.
 */
export function nearMisses(token: string): NearMiss[] {
  const at = (i: number): string => token.slice(0, i) + other(token[i] ?? 'a') + token.slice(i + 1);
  const mid = Math.floor(token.length / 2);
  const all: NearMiss[] = [
    {
      value: at(0),
      recorded: '$API_TOKEN with its first character changed',
      label: 'the token with its first character changed',
    },
    {
      value: at(mid),
      recorded: '$API_TOKEN with its middle character changed',
      label: 'the token with its middle character changed',
    },
    {
      value: at(token.length - 1),
      recorded: '$API_TOKEN with its last character changed',
      label: 'the token with its last character changed',
    },
    {
      value: token.slice(0, -1),
      recorded: '$API_TOKEN without its last character',
      label: 'the token truncated by one character',
    },
    {
      value: `${token}${other(token.slice(-1))}`,
      recorded: '$API_TOKEN with one character more',
      label: 'the token extended by one character',
    },
    {
      value: swapCase(token),
      recorded: '$API_TOKEN with its case flipped',
      label: 'the token with its letters in the other case',
    },
  ];
  return all.filter((n) => n.value !== token && n.value !== '');
}

/** The credentials of the Basic scheme with the token as the password and no user: base64(":" token). */
export function basicPassword(token: string): string {
  return Buffer.from(`:${token}`).toString('base64');
}
