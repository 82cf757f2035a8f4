/**
 * What a target says about its rate limit in its answers' headers, in the forms in use:
 *   - draft-ietf-httpapi-ratelimit-headers (since -08), Structured Fields (RFC 9651):
 *     `RateLimit-Policy: "default";q=100;w=10` (a quota of q per w seconds) and
 *     `RateLimit: "default";r=50;t=30` (r left, for t more seconds);
 *   - the earlier drafts: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds),
 *     a `RateLimit-Policy: 100;w=10` whose item is the quota, and the combined
 *     `RateLimit: limit=100, remaining=50, reset=30`;
 *   - the common `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (seconds, or
 *     an epoch time in seconds as some services send).
 * The Structured Fields are parsed by the structured-headers package; a header that does not
 * parse is ignored, never guessed at.
 */
import { parseDictionary, parseList, type Item, type Parameters } from 'structured-headers';
import { own } from '../exchange/own.ts';

export interface RateLimitInfo {
  /** The announced quota: `limit` requests per `windowSeconds`. */
  quota?: { limit: number; windowSeconds: number };
  /** Requests left in the current window. */
  remaining?: number;
  /** Seconds until the quota resets (or `remaining` is restored). */
  resetSeconds?: number;
}

/** Whether an answer carries any rate-limit header at all (cheap: no parsing). */
export function hasRateLimitHeaders(headers: Record<string, string>): boolean {
  return (
    'ratelimit' in headers ||
    'ratelimit-policy' in headers ||
    'ratelimit-limit' in headers ||
    'ratelimit-remaining' in headers ||
    'x-ratelimit-limit' in headers ||
    'x-ratelimit-remaining' in headers
  );
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function param(params: Parameters, key: string): number | undefined {
  return nonNegative(params.get(key));
}

function number(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  // A list (`10, 10;w=1`) or parameters (`10;w=1`) of the older drafts: the first number counts.
  const m = /^\s*(\d+(?:\.\d+)?)/.exec(raw);
  return m ? Number(m[1]) : undefined;
}

/** Seconds from now of a reset value: delta-seconds, or an epoch time in seconds. */
function resetSeconds(value: number | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  // No window lasts 30 years: a value that large is an epoch time.
  if (value > 1e9) return Math.max(0, value - nowMs / 1000);
  return value;
}

/** The policy with the smallest quota per second, of the items of a RateLimit-Policy. */
function policy(raw: string): RateLimitInfo['quota'] | undefined {
  let items: ReturnType<typeof parseList>;
  try {
    items = parseList(raw);
  } catch {
    return undefined;
  }
  let best: RateLimitInfo['quota'] | undefined;
  for (const member of items) {
    const [value, params] = member as Item;
    if (Array.isArray(value)) continue;
    // The current form names the policy and gives the quota as q; the earlier ones give it as the item.
    const limit = typeof value === 'number' ? nonNegative(value) : param(params, 'q');
    const window = param(params, 'w');
    if (limit === undefined || window === undefined || window === 0) continue;
    if (best === undefined || limit / window < best.limit / best.windowSeconds)
      best = { limit, windowSeconds: window };
  }
  return best;
}

/** The current form's RateLimit: the item with the fewest requests left. */
function structuredRemaining(raw: string): { remaining?: number; reset?: number } | undefined {
  let items: ReturnType<typeof parseList>;
  try {
    items = parseList(raw);
  } catch {
    return undefined;
  }
  let best: { remaining?: number; reset?: number } | undefined;
  for (const member of items) {
    const [value, params] = member as Item;
    if (Array.isArray(value) || typeof value === 'number') continue;
    const remaining = param(params, 'r');
    if (remaining === undefined) continue;
    if (best?.remaining === undefined || remaining < best.remaining) {
      const reset = param(params, 't');
      best = { remaining, ...(reset !== undefined ? { reset } : {}) };
    }
  }
  return best;
}

/** The combined RateLimit of draft -07: `limit=100, remaining=50, reset=30`. */
function combined(raw: string): { limit?: number; remaining?: number; reset?: number } | undefined {
  let dict: ReturnType<typeof parseDictionary>;
  try {
    dict = parseDictionary(raw);
  } catch {
    return undefined;
  }
  const get = (key: string): number | undefined => {
    const entry = dict.get(key);
    return entry && !Array.isArray(entry[0]) ? nonNegative(entry[0]) : undefined;
  };
  const out = { limit: get('limit'), remaining: get('remaining'), reset: get('reset') };
  if (out.limit === undefined && out.remaining === undefined) return undefined;
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** What the headers (names in lower case) say; empty when they say nothing usable. */
export function parseRateLimitHeaders(headers: Record<string, string>, nowMs = Date.now()): RateLimitInfo {
  const info: RateLimitInfo = {};
  const policyHeader = headers['ratelimit-policy'];
  if (policyHeader !== undefined) {
    const quota = policy(policyHeader);
    if (quota) info.quota = quota;
  }
  const current = headers['ratelimit'];
  if (current !== undefined) {
    const structured = structuredRemaining(current);
    const older = structured ? undefined : combined(current);
    const remaining = structured?.remaining ?? older?.remaining;
    const reset = structured?.reset ?? older?.reset;
    if (remaining !== undefined) info.remaining = remaining;
    if (reset !== undefined) info.resetSeconds = reset;
  }
  for (const prefix of ['ratelimit-', 'x-ratelimit-']) {
    const remaining = number(own(headers, `${prefix}remaining`));
    const reset = resetSeconds(number(own(headers, `${prefix}reset`)), nowMs);
    if (info.remaining === undefined && remaining !== undefined) info.remaining = remaining;
    if (info.resetSeconds === undefined && reset !== undefined) info.resetSeconds = reset;
    // The earlier drafts' `RateLimit-Limit: 100, 100;w=10` may carry the window as a parameter.
    const limitHeader = own(headers, `${prefix}limit`);
    if (info.quota === undefined && limitHeader !== undefined) {
      const window = /;\s*w=(\d+)/.exec(limitHeader);
      const limit = number(limitHeader);
      if (limit !== undefined && window && Number(window[1]) > 0)
        info.quota = { limit, windowSeconds: Number(window[1]) };
    }
  }
  return info;
}
