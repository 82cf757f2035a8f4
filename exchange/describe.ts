/**
 * Exchanges in words, for a finding's `received` and a report line. What the target sent (the
 * body, the Content-Type) is shown through escapeControls: on one line, with its control
 * characters as visible escapes (exchange/escape.ts), so a body cannot write to the user's
 * terminal or start a line of its own in a report.
 */
import { escapeControls } from './escape.ts';
import type { Exchange } from './exchange.ts';

/** At most this many characters of a body are shown. */
const SNIPPET = 300;

/** One line describing what came back. */
export function describeResponse(ex: Exchange): string {
  if (ex.status === 0) return `no response (${escapeControls(ex.failure?.message ?? 'unknown error')})`;
  const type = ex.headers['content-type'];
  const snippet =
    ex.text.length > SNIPPET ? `${escapeControls(ex.text.slice(0, SNIPPET))}…` : escapeControls(ex.text);
  return `${ex.status}${type ? ` (${escapeControls(type)})` : ''}${snippet ? `: ${snippet}` : ''}`;
}

/** "GET /api/v1/counterparties/x", the path cut at 100 characters. */
export function describeRequest(ex: Exchange): string {
  let path: string;
  try {
    path = new URL(ex.request.url).pathname;
  } catch {
    path = ex.request.url;
  }
  return `${ex.request.method} ${escapeControls(path.length > 100 ? `${path.slice(0, 100)}…` : path)}`;
}
