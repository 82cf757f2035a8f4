/**
 * The start-up reachability check of a deployment: one GET of the readable counterparty, within
 * CONFORMANCE_TIMEOUT_MS, before anything else is sent. What it tells apart:
 *   - no connection at all (refused, DNS failure, TLS failure, no connection within the time,
 *     a connection that fails before any answer): a configuration error, one line, exit 2;
 *   - a connection that opens (and, for https, completes its handshake) but gets no answer in
 *     time: not a configuration error. The deployment is there and misbehaving, which is the
 *     suite's to judge: the run goes on and its request-answered oracle reports the requests
 *     left unanswered. The check returns a note saying so;
 *   - any answer, whatever its status: reachable.
 * Then whether the target is the one meant, told apart from a faulty one: the interface answers
 * the known counterparty with JSON. A 404 of it (COUNTERPARTY_REF names no counterparty there),
 * an answer that is not JSON at all (a static file server, a web page: API_BASE_URL is not the
 * interface's), and a redirect (the suite follows none, so every request would get it) are
 * configuration errors with the likely cause, exit 2, rather than hundreds of findings against a
 * deployment that was never tested. Anything else (a 5xx, a 429, a 403, a malformed JSON
 * counterparty) is the deployment's to be judged on: the run goes on.
 * And one thing more: whether the token is accepted. When the authenticated read is answered 401,
 * the same read is sent once without a token. Answered 401 too, the deployment refuses the token
 * as it refuses none: the run stops (exit 2, one line) rather than judging hundreds of 401s as
 * the deployment's faults. A deployment that answers 401 to every token does not conform either,
 * but with a token it cannot know to be valid the suite cannot tell the two apart, and the line
 * says so. Answered otherwise (the deployment serves without a token, or breaks), the run goes on
 * and the suite judges it.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { ConfigError } from '../config/error.ts';
import { escapeControls } from '../exchange/escape.ts';
import { API_PREFIX } from '../exchange/route.ts';
import { createPool, proxyEnv, transmit, TransportFailure, type ProxyEnv } from '../transport/wire.ts';

export interface PreflightTarget {
  baseURL: string;
  token: string;
  counterpartyRef: string;
  timeoutMs: number;
  /** Extra headers the deployment needs (a gateway's API key): without them it may not answer. */
  extraHeaders?: readonly { name: string; value: string }[];
}

/** The most of an answer's body the check reads: enough to tell JSON from a page. */
const BODY_HEAD = 64 * 1024;

/**
 * Resolves with undefined when the target answered as the interface does (or as a deployment to
 * be judged), or with a note when it connected but did not answer in time; rejects with a
 * ConfigError when it cannot be reached, when it answers 401 to the token as to no token
 * (tokenRefused), or when the answer shows a wrong target (wrongTarget).
 */
export async function preflight(
  target: PreflightTarget,
  proxy: ProxyEnv = proxyEnv(),
): Promise<string | undefined> {
  const answer = await ask(target, true, proxy);
  if (answer.status === 401) {
    const without = await ask(target, false, proxy).then(
      (a) => a.status,
      () => undefined,
    );
    if (without === 401) throw new ConfigError(tokenRefused(target, answer.challenge));
  }
  const wrong = answer.status === undefined ? undefined : wrongTarget(target, answer);
  if (wrong !== undefined) throw new ConfigError(wrong);
  return answer.note;
}

/** The one line of a run stopped because the target refuses its token. */
export function tokenRefused(
  target: Pick<PreflightTarget, 'baseURL' | 'counterpartyRef'>,
  challenge: string | undefined,
): string {
  // The challenge is described, never quoted: a target may echo the token in it.
  const scheme = challenge?.trim().split(/[\s,]/)[0]?.toLowerCase();
  const how =
    challenge === undefined
      ? 'without a challenge'
      : scheme === 'bearer'
        ? 'with a Bearer challenge'
        : 'with a challenge of another scheme';
  return (
    `API_TOKEN is not accepted by ${target.baseURL}: GET ${readPath(target)} ` +
    `with it was answered 401 ${how}, as without a token; the suite stopped after these two requests. ` +
    'Check API_TOKEN (expired, or meant for another deployment). If it is valid, the deployment refuses valid tokens, ' +
    'which does not conform either, but with a token it cannot know to be valid the suite cannot tell the two apart'
  );
}

/** What the check learnt of the target's answer to the read of the known counterparty. */
export interface Answer {
  /** Set when the connection opened but no answer came in time. */
  note?: string;
  status?: number;
  /** The WWW-Authenticate field of a 401, as received. */
  challenge?: string;
  /** The Content-Type field, as received. */
  contentType?: string;
  /** The Location field of a redirect, as received. */
  location?: string;
  /** The first BODY_HEAD bytes of the body, and whether that is all of it. */
  body?: Buffer;
  bodyComplete?: boolean;
}

function readPath(target: Pick<PreflightTarget, 'counterpartyRef'>): string {
  return `${API_PREFIX}counterparties/${encodeURIComponent(target.counterpartyRef)}`;
}

/** Whether an answer is JSON: labelled so (application/json, +json), or a body that parses as JSON. */
function isJson(answer: Answer): boolean {
  const type = answer.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type.endsWith('+json')) return true;
  if (!answer.bodyComplete || answer.body === undefined) return false;
  try {
    JSON.parse(answer.body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** How an answer's content is described in a line: its media type, or that it has none. */
function contentOf(answer: Answer): string {
  const empty = answer.bodyComplete === true && (answer.body?.length ?? 0) === 0;
  if (empty) return 'an empty body';
  const type = answer.contentType?.trim();
  return type ? `content of type ${escapeControls(type.slice(0, 80))}` : 'content with no Content-Type';
}

/**
 * The line saying why an answer shows a wrong target rather than a faulty deployment, or
 * undefined when it does not: a redirect, a 404 of the known counterparty, a 2xx or 404 that is
 * not JSON. What the interface leaves open (the error body of a 404) is not held against it: a
 * JSON or empty 404 is a counterparty that does not exist there.
 */
export function wrongTarget(target: PreflightTarget, answer: Answer): string | undefined {
  const status = answer.status!;
  const get = `GET ${readPath(target)}`;
  const notInterface = (): string =>
    `${target.baseURL} does not look like the payment-flow interface: ${get} was answered ${status} with ` +
    `${contentOf(answer)}, not JSON; check API_BASE_URL (the suite adds ${API_PREFIX}... to it)`;
  if (status >= 300 && status < 400 && status !== 304) {
    const to = redirectedBase(target, answer.location);
    return (
      `${target.baseURL} redirects: ${get} was answered ${status}${to.shown ? ` to ${to.shown}` : ''}, and the suite ` +
      `follows no redirects (the token goes nowhere else); ${to.base ? `give API_BASE_URL ${to.base}` : 'give the URL it redirects to as API_BASE_URL'}`
    );
  }
  if (status === 404) {
    if (!isJson(answer) && !(answer.bodyComplete && answer.body?.length === 0)) return notInterface();
    return (
      `COUNTERPARTY_REF '${target.counterpartyRef}' was not found at ${target.baseURL}: ${get} was answered 404` +
      `${isJson(answer) ? '' : ' with an empty body'}; name a counterparty that exists there (the suite only reads it), or check API_BASE_URL`
    );
  }
  if (status >= 200 && status < 300 && !isJson(answer)) return notInterface();
  return undefined;
}

/**
 * Where a redirect goes, as a line may show it (no query, no credentials), and the base URL it
 * implies when it is the same read under another prefix or origin.
 */
function redirectedBase(
  target: PreflightTarget,
  location: string | undefined,
): { shown?: string; base?: string } {
  if (location === undefined) return {};
  let url: URL;
  try {
    url = new URL(location, `${target.baseURL}${readPath(target)}`);
  } catch {
    return {};
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return {};
  const shown = escapeControls(`${url.origin}${url.pathname}`.slice(0, 200));
  const suffix = readPath(target);
  return url.pathname.endsWith(suffix)
    ? { shown, base: escapeControls(`${url.origin}${url.pathname.slice(0, -suffix.length)}`) }
    : { shown };
}

/** The read of COUNTERPARTY_REF, with or without the token: through an egress proxy when one is set. */
function ask(target: PreflightTarget, withToken: boolean, proxy: ProxyEnv): Promise<Answer> {
  return proxy.httpProxy !== undefined || proxy.httpsProxy !== undefined
    ? viaProxy(target, withToken, proxy)
    : reachability(target, withToken);
}

function headersOf(target: PreflightTarget, withToken: boolean): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const h of target.extraHeaders ?? []) headers[h.name] = h.value;
  if (withToken) headers.Authorization = `Bearer ${target.token}`;
  headers.Accept = 'application/json';
  return headers;
}

function unreachable(baseURL: string, reason: string): ConfigError {
  return new ConfigError(
    `cannot reach API_BASE_URL ${baseURL} (${reason}); check the URL and that the deployment is up`,
  );
}

function noAnswerNote(baseURL: string, timeoutMs: number): string {
  return (
    `Reachability check: the connection to ${baseURL} opened but no answer came within ${timeoutMs} ms ` +
    '(CONFORMANCE_TIMEOUT_MS); running the suite, which reports the requests left unanswered'
  );
}

/**
 * Through HTTP_PROXY or HTTPS_PROXY (the run's own wire, transport/wire.ts, which honours
 * NO_PROXY): the proxy hides whether the target's connection opened, so a timeout is taken as the
 * deployment's to be judged, a failed connection as unreachable.
 */
async function viaProxy(target: PreflightTarget, withToken: boolean, proxy: ProxyEnv): Promise<Answer> {
  const url = new URL(`${target.baseURL}${readPath(target)}`);
  try {
    const r = await transmit(url, 'GET', headersOf(target, withToken), undefined, {
      timeoutMs: target.timeoutMs,
      maxResponseBytes: BODY_HEAD * 64,
      pool: createPool(1, BODY_HEAD * 64, proxy),
    });
    const answer: Answer = {
      status: r.status,
      body: r.body.subarray(0, BODY_HEAD),
      bodyComplete: r.body.length <= BODY_HEAD,
    };
    if (r.headers['www-authenticate'] !== undefined) answer.challenge = r.headers['www-authenticate'];
    if (r.headers['content-type'] !== undefined) answer.contentType = r.headers['content-type'];
    if (r.headers.location !== undefined) answer.location = r.headers.location;
    return answer;
  } catch (error) {
    if (error instanceof TransportFailure && error.kind === 'timeout')
      return { note: noAnswerNote(target.baseURL, target.timeoutMs) };
    if (error instanceof TransportFailure && error.kind === 'too-large') return { status: 200 };
    throw unreachable(target.baseURL, (error as Error).message.split('\n')[0] ?? 'error');
  }
}

function reachability(target: PreflightTarget, withToken: boolean): Promise<Answer> {
  const { baseURL, timeoutMs } = target;
  const url = new URL(`${baseURL}${readPath(target)}`);
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    let tcp = false;
    let connected = false;
    let settled = false;
    let req: http.ClientRequest | undefined;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      fn();
    };
    const timer = setTimeout(() => {
      settle(() => {
        if (connected) resolve({ note: noAnswerNote(baseURL, timeoutMs) });
        else if (tcp)
          reject(
            unreachable(
              baseURL,
              `the TLS handshake did not complete within ${timeoutMs} ms, CONFORMANCE_TIMEOUT_MS`,
            ),
          );
        else reject(unreachable(baseURL, `no connection within ${timeoutMs} ms, CONFORMANCE_TIMEOUT_MS`));
      });
    }, timeoutMs);
    try {
      req = (secure ? https : http).request(url, {
        method: 'GET',
        headers: headersOf(target, withToken),
        agent: false,
      });
    } catch (error) {
      settle(() => reject(unreachable(baseURL, (error as { code?: string }).code ?? 'invalid request')));
      return;
    }
    req.on('socket', (socket: Socket) => {
      const opened = (): void => {
        tcp = true;
        if (!secure) connected = true;
      };
      if (socket.connecting) socket.once('connect', opened);
      else opened();
      if (secure) socket.once('secureConnect', () => (connected = true));
    });
    req.on('response', (res) => {
      const answer: Answer = {};
      if (res.statusCode !== undefined) answer.status = res.statusCode;
      const header = (name: 'www-authenticate' | 'content-type' | 'location'): string | undefined => {
        const v = res.headers[name];
        return Array.isArray(v) ? v.join(', ') : v;
      };
      const challenge = header('www-authenticate');
      const contentType = header('content-type');
      const location = header('location');
      if (challenge !== undefined) answer.challenge = challenge;
      if (contentType !== undefined) answer.contentType = contentType;
      if (location !== undefined) answer.location = location;
      // The head of the body, within the same deadline: enough to tell JSON from a page.
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (complete: boolean): void =>
        settle(() =>
          resolve({ ...answer, body: Buffer.concat(chunks).subarray(0, BODY_HEAD), bodyComplete: complete }),
        );
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size > BODY_HEAD) done(false);
      });
      res.on('end', () => done(true));
      res.on('error', () => done(false));
      res.on('aborted', () => done(false));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message.split('\n')[0] ?? 'error';
      const reason = connected
        ? `the connection failed before any answer: ${code}`
        : tcp && secure
          ? `TLS failure: ${code}`
          : code;
      settle(() => reject(unreachable(baseURL, reason)));
    });
    req.end();
  });
}
