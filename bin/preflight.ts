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

export interface PreflightTarget {
  baseURL: string;
  token: string;
  counterpartyRef: string;
  timeoutMs: number;
  /** Extra headers the deployment needs (a gateway's API key): without them it may not answer. */
  extraHeaders?: readonly { name: string; value: string }[];
}

/**
 * Resolves with undefined when the target answered, or with a note when it connected but did not
 * answer in time; rejects with a ConfigError when it cannot be reached, or when it answers 401 to
 * the token as to no token (tokenRefused).
 */
export async function preflight(target: PreflightTarget): Promise<string | undefined> {
  const answer = await reachability(target);
  if (answer.status === 401) {
    const without = await unauthenticatedStatus(target);
    if (without === 401) throw new ConfigError(tokenRefused(target, answer.challenge));
  }
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
    `API_TOKEN is not accepted by ${target.baseURL}: GET /api/v1/counterparties/${encodeURIComponent(target.counterpartyRef)} ` +
    `with it was answered 401 ${how}, as without a token; the suite stopped after these two requests. ` +
    'Check API_TOKEN (expired, or meant for another deployment). If it is valid, the deployment refuses valid tokens, ' +
    'which does not conform either, but with a token it cannot know to be valid the suite cannot tell the two apart'
  );
}

interface Answer {
  /** Set when the connection opened but no answer came in time. */
  note?: string;
  status?: number;
  /** The WWW-Authenticate field of a 401, as received. */
  challenge?: string;
}

/** The read of COUNTERPARTY_REF without a token: its status, or undefined when it got no answer. */
function unauthenticatedStatus(target: PreflightTarget): Promise<number | undefined> {
  const url = new URL(
    `${target.baseURL}/api/v1/counterparties/${encodeURIComponent(target.counterpartyRef)}`,
  );
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      req.destroy();
      resolve(undefined);
    }, target.timeoutMs);
    const req = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'GET',
      headers: {
        ...Object.fromEntries((target.extraHeaders ?? []).map((h) => [h.name, h.value])),
        Accept: 'application/json',
      },
      agent: false,
    });
    req.on('response', (res) => {
      res.resume();
      clearTimeout(timer);
      req.destroy();
      resolve(res.statusCode);
    });
    req.on('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    req.end();
  });
}

function reachability(target: PreflightTarget): Promise<Answer> {
  const { baseURL, timeoutMs } = target;
  const url = new URL(`${baseURL}/api/v1/counterparties/${encodeURIComponent(target.counterpartyRef)}`);
  const secure = url.protocol === 'https:';
  const unreachable = (reason: string): ConfigError =>
    new ConfigError(
      `cannot reach API_BASE_URL ${baseURL} (${reason}); check the URL and that the deployment is up`,
    );
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
        if (connected)
          resolve({
            note:
              `Reachability check: the connection to ${baseURL} opened but no answer came within ${timeoutMs} ms ` +
              '(CONFORMANCE_TIMEOUT_MS); running the suite, which reports the requests left unanswered',
          });
        else if (tcp)
          reject(
            unreachable(`the TLS handshake did not complete within ${timeoutMs} ms, CONFORMANCE_TIMEOUT_MS`),
          );
        else reject(unreachable(`no connection within ${timeoutMs} ms, CONFORMANCE_TIMEOUT_MS`));
      });
    }, timeoutMs);
    try {
      req = (secure ? https : http).request(url, {
        method: 'GET',
        headers: {
          ...Object.fromEntries((target.extraHeaders ?? []).map((h) => [h.name, h.value])),
          Authorization: `Bearer ${target.token}`,
          Accept: 'application/json',
        },
        agent: false,
      });
    } catch (error) {
      settle(() => reject(unreachable((error as { code?: string }).code ?? 'invalid request')));
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
      res.resume();
      const challenge = res.headers['www-authenticate'];
      settle(() =>
        resolve({
          ...(res.statusCode !== undefined ? { status: res.statusCode } : {}),
          ...(challenge !== undefined ? { challenge } : {}),
        }),
      );
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message.split('\n')[0] ?? 'error';
      const reason = connected
        ? `the connection failed before any answer: ${code}`
        : tcp && secure
          ? `TLS failure: ${code}`
          : code;
      settle(() => reject(unreachable(reason)));
    });
    req.end();
  });
}
