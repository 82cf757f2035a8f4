/**
 * A curl command that reproduces a recorded request; the token is read from $API_TOKEN. The
 * command is one line that is safe to print: a value holding a control, format or separator
 * character (a raw body sent to test malformed input) is written in ANSI-C quotes, $'...', with
 * each such character as the \xHH escapes of its UTF-8 bytes, so it neither reaches the terminal
 * raw nor changes what curl sends (bash, zsh, ksh and busybox sh read $'...'; POSIX sh since
 * the 2024 edition).
 */
import { hasControls } from './escape.ts';
import { requestBodyBytes, type RecordedRequest } from './exchange.ts';
import { REDACTED_TOKEN } from './redact.ts';

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Quotes a string for a shell: single quotes, or $'...' when it holds a control character. */
export function shellQuote(value: string): string {
  if (!hasControls(value)) return `'${value.replace(/'/g, `'\\''`)}'`;
  let out = '';
  for (const char of value) {
    if (char === '\\' || char === "'") out += `\\${char}`;
    else if (UNSAFE.test(char))
      out += [...Buffer.from(char, 'utf8')].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
    else out += char;
  }
  return `$'${out}'`;
}

/** How a secret extra header is recorded (config/headers.ts): the variable its value is read from. */
const SECRET_HEADER_VALUE = /^\$CONFORMANCE_(?:SECRET_)?HEADER_[A-Z0-9_]+$/;

/**
 * Headers a client sent that have no place in a reproduction of traffic the suite did not send
 * (a HAR file, the proxy): what curl sets itself from the URL and body (Host, which in the proxy's
 * traffic names the proxy, not the target; Content-Length; the connection's), and what a browser
 * adds (cookies, Sec-*, Origin, Referer, the user agent, language and encodings, caching hints).
 * Authorization, Content-Type, Accept, the interface's own headers and the user's extra headers
 * are kept.
 */
const NOT_REPRODUCED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'accept-encoding',
  'accept-language',
  'user-agent',
  'origin',
  'referer',
  'cookie',
  'dnt',
  'upgrade-insecure-requests',
  'pragma',
  'cache-control',
  'priority',
]);

/** Whether a header of foreign traffic is left out of its curl command. */
export function notReproduced(name: string): boolean {
  const n = name.toLowerCase();
  return NOT_REPRODUCED.has(n) || n.startsWith('sec-') || n.startsWith(':');
}

/**
 * `options.foreign`: the request is traffic the suite did not send (a HAR entry, a proxied
 * exchange): the headers of notReproduced are left out. The suite's own requests keep every
 * header, since a probe may test one.
 */
export function curlCommand(req: RecordedRequest, options: { foreign?: boolean } = {}): string {
  const parts = ['curl', '-sS', '-i', '--path-as-is', '-g', '-X', req.method, shellQuote(req.url)];
  for (const [name, value] of Object.entries(req.headers)) {
    if (options.foreign && notReproduced(name)) continue;
    if (SECRET_HEADER_VALUE.test(value) && /^[A-Za-z0-9-]+$/.test(name)) {
      // Double quotes, so that the shell reads the secret from the variable it was given in.
      parts.push('-H', `"${name}: ${value}"`);
    } else if (
      name.toLowerCase() === 'authorization' &&
      value.includes(REDACTED_TOKEN) &&
      !hasControls(value)
    ) {
      // Double quotes so that the shell expands $API_TOKEN (as ${API_TOKEN} where a letter,
      // digit or underscore follows, which would otherwise lengthen the variable's name).
      const quoted = value
        .replace(/["\\`]/g, '\\$&')
        .replace(/\$(?!API_TOKEN)/g, '\\$')
        .replace(/\$API_TOKEN(?=[A-Za-z0-9_])/g, '${API_TOKEN}');
      parts.push('-H', `"${name}: ${quoted}"`);
    } else {
      parts.push('-H', shellQuote(`${name}: ${value}`));
    }
  }
  if (req.body !== undefined && req.bodyEncoding === 'base64') {
    // Bytes that are not text (an image): printf writes them from octal escapes, NUL bytes
    // included, which no quoting of a shell word can carry; curl reads them from its input.
    parts.push('--data-binary', '@-');
    return `printf '%b' ${shellQuote(octalEscapes(requestBodyBytes(req)!))} | ${parts.join(' ')}`;
  }
  if (req.body !== undefined) parts.push('--data-binary', shellQuote(req.body));
  return parts.join(' ');
}

/** Bytes as printf's %b reads them: printable ASCII as is (a backslash doubled), the rest as \0ooo. */
export function octalEscapes(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\0${b.toString(8).padStart(3, '0')}`;
  }
  return out;
}
