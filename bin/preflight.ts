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
 * answer in time; rejects with a ConfigError when it cannot be reached.
 */
export function preflight(target: PreflightTarget): Promise<string | undefined> {
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
          resolve(
            `Reachability check: the connection to ${baseURL} opened but no answer came within ${timeoutMs} ms ` +
              '(CONFORMANCE_TIMEOUT_MS); running the suite, which reports the requests left unanswered',
          );
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
      settle(() => resolve(undefined));
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
