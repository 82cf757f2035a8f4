/**
 * A plain HTTP client that records what it sends and receives as a HAR 1.2 file, with none of the
 * suite's code: node:http, the headers it is given, the body as text. It stands for any recorder a
 * user may point `npm run validate` at (a gateway's log, a browser, a test framework), so the
 * validator is proven on traffic the suite's probes did not shape. Loopback only (127.0.0.1).
 */
import { request } from 'node:http';

/** One request of a recorded session. */
export interface PlainCall {
  method: string;
  /** The path and query, below the base URL. */
  path: string;
  /** Header fields as sent (no Authorization unless given). */
  headers?: Record<string, string>;
  /** The content as sent, text. */
  body?: string;
}

interface HarHeader {
  name: string;
  value: string;
}

/** Sends one call; resolves a HAR entry for it. */
function send(base: string, call: PlainCall): Promise<object> {
  const url = new URL(call.path, base);
  if (url.hostname !== '127.0.0.1')
    throw new Error(`the recorder sends to 127.0.0.1 only, not ${url.hostname}`);
  const headers: Record<string, string> = { ...call.headers };
  if (call.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(call.body));
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: call.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const time = Date.now() - started;
        const responseHeaders: HarHeader[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          responseHeaders.push({ name: res.rawHeaders[i]!, value: res.rawHeaders[i + 1]! });
        const mimeType = res.headers['content-type'] ?? 'x-unknown';
        resolve({
          startedDateTime: new Date(started).toISOString(),
          time,
          request: {
            method: call.method,
            url: url.href,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
            queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
            ...(call.body !== undefined
              ? { postData: { mimeType: headers['Content-Type'] ?? '', text: call.body } }
              : {}),
            headersSize: -1,
            bodySize: call.body === undefined ? 0 : Buffer.byteLength(call.body),
          },
          response: {
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: responseHeaders,
            content: { size: Buffer.byteLength(text), mimeType, text },
            redirectURL: '',
            headersSize: -1,
            bodySize: Buffer.byteLength(text),
          },
          cache: {},
          timings: { send: 0, wait: time, receive: 0 },
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

/** Sends `calls` one after another to `base`; returns the HAR file's text. */
export function recordPlainHar(base: string, calls: readonly PlainCall[]): Promise<string> {
  return recordPlainHarSteps(base, calls);
}

/**
 * Sends `steps` one after another to `base`, where a step that is a list is sent all at once (the
 * calls of concurrent clients); returns the HAR file's text, its entries in the order they were
 * sent, each with the whole milliseconds a browser or a gateway records.
 */
export async function recordPlainHarSteps(
  base: string,
  steps: readonly (PlainCall | readonly PlainCall[])[],
): Promise<string> {
  const entries: object[] = [];
  for (const step of steps)
    entries.push(
      ...(Array.isArray(step)
        ? await Promise.all(step.map((c) => send(base, c)))
        : [await send(base, step as PlainCall)]),
    );
  return JSON.stringify(
    { log: { version: '1.2', creator: { name: 'plain-node-http', version: '1.0' }, entries } },
    null,
    2,
  );
}
