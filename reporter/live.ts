/**
 * What is printed while traffic flows, before any report: one line per violation the validating
 * proxy judges, as it judges it (bin/validate.ts), so that a person watching the proxy sees a
 * violation when the client causes it, not only when the proxy stops.
 */
import type { Finding } from '../engine/types.ts';
import { escapeControls } from '../exchange/escape.ts';
import { REQUIREMENTS } from '../spec/requirements.ts';

const LEVELS = new Map<string, string>(REQUIREMENTS.map((r) => [r.id, r.level]));

/** The path (and query) of a URL as sent; the text itself when it is no absolute URL. */
function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/**
 * One line for a finding: its level and requirement, the method and path of the request that
 * shows it and what it was answered, the exchange's number in the session, and what went wrong.
 * What came from the target is escaped: the line goes to a terminal.
 */
export function violationLine(f: Finding): string {
  const level = LEVELS.get(f.requirement) ?? '?';
  const request = f.request
    ? `${f.request.method} ${pathOf(f.request.url)}`
    : (f.context
        ?.at(-1)
        ?.request.replace(/^(\S+) (\S+)$/, (_, m: string, u: string) => `${m} ${pathOf(u)}`) ?? 'no request');
  const answered = f.status === undefined ? '' : f.status === 0 ? ' -> no answer' : ` -> ${f.status}`;
  const where = f.proxied !== undefined ? ` (exchange ${f.proxied})` : '';
  return escapeControls(`✗ ${level} ${f.requirement}: ${request}${answered}${where}: ${f.message}`);
}
