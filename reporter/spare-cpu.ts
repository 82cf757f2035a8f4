/**
 * Whether the machine has a core to spare, for work that may as well wait for the end of the run
 * (reporter/traffic-digest.ts): over the last window, the time its cores stood idle, and the time
 * this process itself used (what it would give up to others), came to a whole core at least. A
 * run against the embedded server on two cores keeps both busy (its workers judge, the server
 * answers): work moved into the run there only lengthens it. A run against a deployment waits on
 * the network, and a larger machine has cores to spare: there the work is done while the run
 * goes on.
 *
 * Read from the cores' times (os.cpus(), which counts in ticks of 10 ms on Linux) and this
 * process's (process.cpuUsage()), at most once per window (WINDOW_MS): in between, the last
 * answer holds.
 */
import { cpus } from 'node:os';

/** The shortest window the answer is read over, in milliseconds. */
export const WINDOW_MS = 100;

/** The machine's idle time (all cores) and this process's CPU time so far, in milliseconds. */
export interface CpuTimes {
  idleMs: number;
  ownMs: number;
}

function cpuTimes(): CpuTimes {
  const idleMs = cpus().reduce((sum, core) => sum + core.times.idle, 0);
  const own = process.cpuUsage();
  return { idleMs, ownMs: (own.user + own.system) / 1000 };
}

/**
 * A function that says whether a core was to spare over the last window. The first window starts
 * with the first question (false until it has passed), not when the function is made: the
 * reporter makes it as Playwright's runner starts, and what the machine did before the first
 * check ended says nothing of the run. `read` and `now` (monotonic milliseconds) are injected by
 * the self-tests.
 */
export function spareCpu(
  read: () => CpuTimes = cpuTimes,
  now: () => number = () => performance.now(),
): () => boolean {
  let last: { at: number; times: CpuTimes } | undefined;
  let answer = false;
  return () => {
    const at = now();
    if (last === undefined) {
      last = { at, times: read() };
      return answer;
    }
    if (at - last.at < WINDOW_MS) return answer;
    const times = read();
    const spareCores = (times.idleMs - last.times.idleMs + (times.ownMs - last.times.ownMs)) / (at - last.at);
    answer = spareCores >= 1;
    last = { at, times };
    return answer;
  };
}
