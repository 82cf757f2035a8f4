/**
 * payflow-conformance serve: the embedded reference server alone (servers/reference.ts), on a
 * port, until SIGINT or SIGTERM. It is the way to try the suite, `validate` and the proxy without
 * a deployment, and a conforming server to develop a client against (as one would use a mock).
 *
 * It prints its URL, then the settings that point the suite at it, the token among them, once:
 * the token is drawn afresh each start (--token chooses one). The server keeps its state in
 * memory for as long as it runs: a write run changes its writable counterparties, a restart
 * starts them over. Exit status: 0 stopped by SIGINT/SIGTERM, 2 usage error or the port not free.
 */
import { randomBytes } from 'node:crypto';
import { formatFlags, parseArgs, UsageError, type Flag } from './args.ts';
import { fail } from './run-support.ts';
import { DEFAULT_ACCOUNT_FIXTURE } from '../generators/account-fixture.ts';
import {
  REFERENCE_COUNTERPARTY,
  ReferenceServer,
  WRITABLE_COUNTERPARTIES,
  WRITABLE_COUNTERPARTY,
} from '../servers/reference.ts';
import { spec } from '../spec/index.ts';
import { commandPrefix } from '../config/command.ts';
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { invocationDirectory } from '../config/sources.ts';
import { itemFixturesJson } from '../generators/item-fixtures.ts';
import { printedVersion } from './version.ts';

/** The port `serve` listens on unless --port says otherwise (Prism's mock uses 4010 too). */
export const DEFAULT_SERVE_PORT = 4010;

export interface ServeFlags {
  port: number;
  host: string;
  token?: string;
}

/** A token of 32 hexadecimal digits, drawn for one start of the server. */
export function drawToken(): string {
  return randomBytes(16).toString('hex');
}

function serveFlags(flags: ServeFlags): Flag[] {
  const group = 'The server';
  return [
    {
      name: '--port',
      value: '<n>',
      group,
      help: `the port to listen on (default ${DEFAULT_SERVE_PORT}; 0: a free port, printed)`,
      apply: (v) => {
        if (!/^\d{1,5}$/.test(v!) || Number(v) > 65535)
          throw new UsageError(`--port must be a whole number from 0 to 65535, not '${v}'`);
        flags.port = Number(v);
      },
    },
    {
      name: '--host',
      value: '<address>',
      group,
      help:
        'the address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 in a container\n' +
        'whose port you publish)',
      apply: (v) => {
        if (v === '') throw new UsageError('--host needs an address, e.g. 127.0.0.1');
        flags.host = v!;
      },
    },
    {
      name: '--token',
      value: '<token>',
      group,
      help:
        'the bearer token the server accepts (default: drawn afresh each start and printed);\n' +
        'visible ASCII, no spaces',
      apply: (v) => {
        if (!/^[\x21-\x7e]+$/.test(v!))
          throw new UsageError('--token must be visible ASCII characters, without spaces, and not empty');
        flags.token = v!;
      },
    },
  ];
}

/** The flags of `serve` from `args` (a UsageError when they are wrong). */
export function parseServeFlags(args: readonly string[]): ServeFlags {
  const flags: ServeFlags = { port: DEFAULT_SERVE_PORT, host: '127.0.0.1' };
  parseArgs(args, serveFlags(flags));
  return flags;
}

/** --help of `serve`. */
export function serveUsage(): string {
  return `usage: payflow-conformance serve [--port <n>] [--host <address>] [--token <token>]

Runs the reference server of the interface alone, conforming and in memory, until Ctrl-C
(SIGINT) or SIGTERM. It prints its URL and the variables that point the suite at it, the token
among them (drawn afresh each start unless --token gives one). Use it to try \`run\` against a
server, to record traffic for \`validate\`, behind \`validate --proxy\`, or to develop a client.
Its state lasts while it runs: a write run changes its writable counterparties; restart it for
a fresh one.

${formatFlags(serveFlags({ port: DEFAULT_SERVE_PORT, host: '127.0.0.1' }))}

Exit status: 0 stopped by SIGINT or SIGTERM, 2 usage error or the port is not free.`;
}

/**
 * What `serve` prints once it listens at `url` with `token`: the variables that point the suite
 * at it, each fixture the embedded target gets among them (ITEM_FIXTURES names the bills,
 * mandates and collections it holds and accepts, without which a run cannot exercise what §4.3
 * says of them), and the commands, as they start from `from` (config/command.ts).
 */
export function serveBanner(
  url: string,
  token: string,
  tokenDrawn: boolean,
  from: string = invocationDirectory(),
): string {
  const quote = (v: string): string => `'${v.replaceAll("'", `'\\''`)}'`;
  const fixture = JSON.stringify(DEFAULT_ACCOUNT_FIXTURE);
  const items = EMBEDDED_TARGET.itemFixtures && itemFixturesJson(EMBEDDED_TARGET.itemFixtures);
  const command = commandPrefix(from);
  return [
    `payflow-conformance serve: the reference server of interface ${spec().version} at ${url}`,
    '',
    'Point the suite (or your client) at it:',
    `  export API_BASE_URL=${url}`,
    `  export API_TOKEN=${quote(token)}${tokenDrawn ? '   # drawn for this start; --token chooses one' : ''}`,
    `  export COUNTERPARTY_REF=${REFERENCE_COUNTERPARTY}`,
    ...(items ? [`  export ITEM_FIXTURES=${quote(items)}`] : []),
    `  ${command} run            # a read-only run`,
    'For a write run, also (up to four lanes, comma-separated):',
    `  export WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}   # or ${WRITABLE_COUNTERPARTIES.join(',')}`,
    `  export ACCOUNT_FIXTURE=${quote(fixture)}`,
    `  ${command} run            # a write run`,
    `Then validate what a run recorded: ${command} validate reports/exchanges.har`,
    '',
    'Serving until Ctrl-C (SIGINT) or SIGTERM.',
  ].join('\n');
}

/** The server `serve` started, where it listens and the token it accepts. */
export interface Served {
  server: ReferenceServer;
  url: string;
  token: string;
  /** Whether the token was drawn for this start (no --token). */
  tokenDrawn: boolean;
}

/**
 * Starts the reference server as `serve` does with `flags`: the token --token gave, else one
 * drawn for this start. Rejects with a UsageError, its message the line `serve` prints, when it
 * cannot listen there.
 */
export async function startServing(flags: ServeFlags): Promise<Served> {
  const token = flags.token ?? drawToken();
  const server = new ReferenceServer({ token });
  let url: string;
  try {
    url = await server.start(flags.port, flags.host);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(
        `port ${flags.port} of ${flags.host} is in use (--port chooses another; 0: a free one)`,
      );
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES')
      throw new UsageError(`cannot listen on ${flags.host} port ${flags.port} (${code})`);
    throw error;
  }
  return { server, url, token, tokenDrawn: flags.token === undefined };
}

export async function serveCommand(args: readonly string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(serveUsage());
    return;
  }
  if (printedVersion(args)) return;
  let serving: Served;
  try {
    serving = await startServing(parseServeFlags(args));
  } catch (error) {
    if (error instanceof UsageError) fail(error.message);
    throw error;
  }
  const { server, url, token, tokenDrawn } = serving;
  // Listening for the signals before the banner, which tells a caller it may send one.
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      // A second signal while the server closes: stop now.
      process.once(signal, () => process.exit(0));
      console.log(`serve: ${signal}, stopped`);
      void server.stop().then(resolve, resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  console.log(serveBanner(url, token, tokenDrawn));
  await stopped;
  process.exit(0);
}
