/**
 * `payflow-conformance serve` as a child process (bin/serve.ts): started with a command line of
 * the caller's (the clone's command through tsx, or the installed package's), read until it says
 * it serves, with the URL and token it printed, and its end once signalled.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import type { ProcessRun } from './cli-fixtures.ts';

export interface Serving {
  url: string;
  token: string;
  /** Everything it printed up to the line that says it serves. */
  banner: string;
  /** Sends `signal`; resolves with its status and all it printed once it has ended. */
  stop(signal?: NodeJS.Signals): Promise<ProcessRun>;
  /** Its end, whenever that comes. */
  ended: Promise<ProcessRun>;
}

/**
 * Starts `command args` (PATH and HOME only, then `env`) and waits for the banner. Rejects with
 * what it printed when it ends first or says nothing within `timeoutMs` (a backstop: it prints
 * within a second or two on a quiet machine).
 */
export function startServe(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<Serving> {
  const child = spawn(command, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
  });
  let stdout = '';
  let stderr = '';
  const ended = new Promise<ProcessRun>((resolve) => {
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : 0), stdout, stderr }));
  });
  return new Promise<Serving>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve printed no banner within ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    void ended.then((r) => {
      clearTimeout(timer);
      reject(new Error(`serve ended (${r.code}) before it served:\n${r.stdout}\n${r.stderr}`));
    });
    child.stdout.on('data', () => {
      if (!stdout.includes('Serving until')) return;
      clearTimeout(timer);
      const url = /^ {2}export API_BASE_URL=(\S+)$/m.exec(stdout)?.[1];
      const token = /^ {2}export API_TOKEN='([^']*)'/m.exec(stdout)?.[1];
      if (url === undefined || token === undefined) {
        child.kill('SIGKILL');
        reject(new Error(`serve's banner names no URL or token:\n${stdout}`));
        return;
      }
      resolve({
        url,
        token,
        banner: stdout,
        ended,
        stop: (signal = 'SIGTERM') => {
          child.kill(signal);
          return ended;
        },
      });
    });
  });
}

/** The lines of serve's banner a user copies: the exports, and each command with what it is for. */
export function bannerSetup(banner: string): {
  exports: string[];
  readOnly: string;
  write: string;
  validate: string;
} {
  const lines = banner.split('\n');
  const exports = lines.filter((l) => l.startsWith('  export ')).map((l) => l.trim());
  const command = (comment: string): string => lines.find((l) => l.endsWith(`# ${comment}`))!.trim();
  const validate = /^Then validate what a run recorded: (.+)$/m.exec(banner)![1]!;
  return { exports, readOnly: command('a read-only run'), write: command('a write run'), validate };
}
