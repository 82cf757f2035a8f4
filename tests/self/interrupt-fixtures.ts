/**
 * Fixtures of the interruption self-tests: a reference server behind a proxy on 127.0.0.1 that
 * logs every request and holds the first authorised PATCH of the writable counterparty (the first
 * case of patch-valid-details) until the test lets it go, so that a signal lands mid-probe at a known
 * point; and the CLI run as a child the test can signal, whose output it can wait on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { counterpartyPath } from '../../exchange/paths.ts';
import { REFERENCE_TOKEN, ReferenceServer, WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import { ROOT, suiteTest, RUN_SETTINGS, targetEnv, temporaryDirectory, nodeTs } from './cli-fixtures.ts';

export interface LoggedRequest {
  method: string;
  path: string;
  body: string;
}

/** The detail fields of a counterparty a PATCH can set (interface.md §4.2). */
export const DETAIL_FIELDS = ['accountHolderName', 'emailAddress', 'mobileNumber', 'remarks', 'address'];

export interface HoldingTarget {
  /** The proxy's base URL: what the CLI is pointed at. */
  url: string;
  /** Every request that reached the proxy, in order of arrival. */
  log: LoggedRequest[];
  /** Resolves when the first authorised PATCH of the writable counterparty has arrived (and is held). */
  firstPatch: Promise<void>;
  /** Lets the held PATCH through (it is dropped if its client is gone by then). */
  release(): void;
  /** The writable counterparty's detail fields, as the server stores them now. */
  details(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

const WRITABLE_PATH = counterpartyPath(WRITABLE_COUNTERPARTY);

/**
 * `nth`: which authorised PATCH of the writable counterparty is held (default the first; a later
 * one when the test needs the earlier ones to have changed it).
 */
export async function holdingTarget(nth = 1): Promise<HoldingTarget> {
  const reference = new ReferenceServer();
  const upstream = await reference.start(0);
  const log: LoggedRequest[] = [];
  let arrived!: () => void;
  const firstPatch = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let patches = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      log.push({ method: req.method ?? '?', path: req.url ?? '', body: body.toString('utf8') });
      const forward = (): void => {
        if (res.destroyed || req.socket.destroyed) return;
        const up = httpRequest(
          `${upstream}${req.url}`,
          { method: req.method, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        up.on('error', () => res.destroy());
        up.end(body);
      };
      // writes-require-authentication PATCHes it before, without the token or with a wrong one.
      const authorised = req.headers.authorization === `Bearer ${REFERENCE_TOKEN}`;
      if (authorised && req.method === 'PATCH' && req.url === WRITABLE_PATH && ++patches === nth) {
        arrived();
        void released.then(forward);
      } else forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    firstPatch,
    release,
    async details() {
      const answer = await fetch(`${upstream}${WRITABLE_PATH}`, {
        headers: { Authorization: `Bearer ${REFERENCE_TOKEN}` },
      });
      const body = (await answer.json()) as Record<string, unknown>;
      return Object.fromEntries(DETAIL_FIELDS.map((k) => [k, body[k]]));
    },
    async close() {
      release();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await reference.stop();
    },
  };
}

export interface RunningCli {
  child: ChildProcess;
  /** The pid of the CLI (bin/conformance.ts under `node --import tsx`, as `npm run conformance` runs it). */
  pid: number;
  work: string;
  reports: string;
  /** The OS temp dir of the CLI and its children (TMPDIR). */
  tmp: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stderr matches. */
  waitForStderr(pattern: RegExp): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `npm run conformance` (bin/conformance.ts under `node --import tsx`, one process) against `baseURL` in write mode,
 * one worker, in a fresh working directory, with an OS temp dir of its own; `detached`: in a
 * process group of its own, which the test can signal as a terminal would. `playwright`: the
 * Playwright CLI on the suite's config instead, as `npm run conformance:shard` runs it.
 */
export function startCli(
  baseURL: string,
  options: { detached: boolean; setup?: (work: string) => void; playwright?: boolean },
): RunningCli {
  const work = temporaryDirectory('payflow-int-');
  const tmp = temporaryDirectory('payflow-int-tmp-');
  options.setup?.(work);
  const reports = join(work, 'reports');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    TMPDIR: tmp,
    // Playwright's cache of compiled TypeScript stays where it was: a cold one costs each process
    // of the run some 2 s of CPU (the run's own temporary files still go to TMPDIR).
    PLAYWRIGHT_TRANSFORM_CACHE_DIR:
      process.env.PLAYWRIGHT_TRANSFORM_CACHE_DIR ??
      join(tmpdir(), `playwright-transform-cache-${process.geteuid?.() ?? ''}`),
    CONFORMANCE_REPORTS_DIR: reports,
    CONFORMANCE_RESULTS_DIR: join(work, 'test-results'),
    ...RUN_SETTINGS,
    CONFORMANCE_CONCURRENCY: '1',
    ...(targetEnv(baseURL, REFERENCE_TOKEN) as Record<string, string>),
  };
  // The probe the tests stop, and a read before it: the rest of the suite would only run first.
  const args = options.playwright
    ? suiteTest('--grep', '(known-counterparty|patch-valid-details): ')
    : nodeTs('bin/conformance.ts', '--probe', 'known-counterparty', '--probe', 'patch-valid-details');
  const child = spawn(process.execPath, args, {
    cwd: options.playwright ? ROOT : work,
    env,
    detached: options.detached,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const w of waiters.splice(0)) {
      if (w.pattern.test(stderr)) w.resolve();
      else waiters.push(w);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const running: RunningCli = {
    child,
    pid: child.pid!,
    work,
    reports,
    tmp,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStderr: (pattern) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(stderr)) return resolve();
        waiters.push({ pattern, resolve });
        void exited.then(() =>
          pattern.test(stderr) ? resolve() : reject(new Error(`exited before ${pattern}:\n${stderr}`)),
        );
      }),
    exited,
  };
  return running;
}

/** The children of a process (Linux: /proc), or undefined where that cannot be read. */
export function childrenOf(pid: number): number[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return undefined;
  }
}

/**
 * The Playwright runner under a CLI started by startCli (bin/conformance.ts under `node --import tsx` → Playwright,
 * which leads a process group of its own), or undefined where /proc cannot tell.
 */
export function playwrightUnder(cliPid: number): number | undefined {
  return childrenOf(cliPid)?.[0];
}

/** Whether any process of the process group `pgid` is left. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The details a restore can put back: the fields the counterparty had (a PATCH that reached it
 * before the stop may have added a field it did not have, and the interface has no way to remove
 * one; several cases go to a PATCH, so the first may add several).
 */
export function restorable(
  now: Record<string, unknown>,
  original: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(original)
      .filter((k) => original[k] !== undefined)
      .map((k) => [k, now[k]]),
  );
}

/** The fields of `original` that it had. */
export function had(original: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(original).filter(([, v]) => v !== undefined));
}

/**
 * The processes of the process group `pgid`, each with its parent's pid (Linux: /proc), or
 * undefined where that cannot be read. A process that ends while it is read is left out.
 */
export function groupMembers(pgid: number): { pid: number; parent: number }[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: { pid: number; parent: number }[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …: the command may hold spaces and parentheses.
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid) members.push({ pid: Number(name), parent: Number(ppid) });
    } catch {
      // Gone meanwhile.
    }
  }
  return members;
}
