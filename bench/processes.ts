/**
 * The processes the benchmark (bench/bench.ts) starts and measures: a command run to its end with
 * its wall time and the peak memory of its process tree (Linux /proc), and the reference server
 * in a process of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
export const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
/** The resident memory of a process tree, sampled: the largest sum seen, in bytes (Linux /proc). */
class TreeMemory {
  peak = 0;
  private timer: NodeJS.Timeout | undefined;
  readonly supported = process.platform === 'linux';

  constructor(private readonly root: number) {}

  start(everyMs = 50): void {
    if (!this.supported) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    const parent = new Map<number, number>();
    const rss = new Map<number, number>();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        // Fields after the command (which may hold spaces): state, ppid, ...
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        parent.set(Number(name), Number(fields[1]));
        const pages = Number(readFileSync(`/proc/${name}/statm`, 'utf8').split(' ')[1]);
        rss.set(Number(name), pages * 4096);
      } catch {
        // The process ended between the listing and the read.
      }
    }
    let total = 0;
    for (const [pid, bytes] of rss) {
      for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
        if (p === this.root) {
          total += bytes;
          break;
        }
      }
    }
    this.peak = Math.max(this.peak, total);
  }
}

export interface Timed {
  code: number;
  ms: number;
  /** When the command was spawned and when it ended (epoch milliseconds). */
  spawnedAt: number;
  endedAt: number;
  stdout: string;
  peakBytes?: number;
}

/** Runs a command to its end, with its output kept, its wall time and its tree's peak memory. */
export function run(args: string[], env: NodeJS.ProcessEnv, measureMemory = false): Promise<Timed> {
  return new Promise((resolve) => {
    const started = performance.now();
    const spawnedAt = Date.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const memory = measureMemory ? new TreeMemory(child.pid!) : undefined;
    memory?.start();
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('close', (code) => {
      memory?.stop();
      resolve({
        code: code ?? -1,
        ms: performance.now() - started,
        spawnedAt,
        endedAt: Date.now(),
        stdout,
        ...(memory?.supported ? { peakBytes: memory.peak } : {}),
      });
    });
  });
}

/** Starts the reference server in its own process; resolves its URL and the process. */
export function startServer(): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, join(ROOT, 'bench', 'serve-reference.ts')], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve({ url: m[1]!, child });
    });
    child.on('exit', (code) => reject(new Error(`the reference server exited (${code})`)));
  });
}
