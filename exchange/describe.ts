/** Exchanges in words, for a finding's `received` and a report line. */
import type { Exchange } from './exchange.ts';

/** One line describing what came back. */
export function describeResponse(ex: Exchange): string {
  if (ex.status === 0) return `no response (${ex.failure?.message ?? 'unknown error'})`;
  const type = ex.headers['content-type'];
  const snippet = ex.text.length > 300 ? `${ex.text.slice(0, 300)}…` : ex.text;
  return `${ex.status}${type ? ` (${type})` : ''}${snippet ? `: ${snippet}` : ''}`;
}

/** "GET /api/v1/counterparties/x", the path cut at 100 characters. */
export function describeRequest(ex: Exchange): string {
  let path: string;
  try {
    path = new URL(ex.request.url).pathname;
  } catch {
    path = ex.request.url;
  }
  return `${ex.request.method} ${path.length > 100 ? `${path.slice(0, 100)}…` : path}`;
}
