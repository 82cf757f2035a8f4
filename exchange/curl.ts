/** A curl command that reproduces a recorded request; the token is read from $API_TOKEN. */
import type { RecordedRequest } from './exchange.ts';
import { REDACTED_TOKEN } from './redact.ts';

/** Quotes a string for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(req: RecordedRequest): string {
  const parts = ['curl', '-sS', '-i', '--path-as-is', '-g', '-X', req.method, shellQuote(req.url)];
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.toLowerCase() === 'authorization' && value.includes(REDACTED_TOKEN)) {
      // Double quotes so that the shell expands $API_TOKEN.
      parts.push('-H', `"${name}: ${value.replace(/["\\`]/g, '\\$&')}"`);
    } else {
      parts.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  if (req.body !== undefined) parts.push('--data-binary', shellQuote(req.body));
  return parts.join(' ');
}
