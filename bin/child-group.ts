/**
 * A child started in a process group of its own (spawned detached) that must not outlive the
 * command: `merge` runs Playwright's merge-reports so. Left to Node's default, a SIGINT or SIGTERM
 * would end the command at once and leave Playwright running, blocked on whatever it was reading,
 * with its own children.
 *
 * The first SIGINT or SIGTERM ends the child's whole group: SIGTERM, then SIGKILL if it is still
 * there after `graceMs` (a process blocked in a read, or one that ignores SIGTERM, stays
 * otherwise); a second signal sends SIGKILL at once, but for the repeats of the first within
 * SIGNAL_REPEAT_MS (npm relays a Ctrl-C the terminal also sent: bin/interrupt.ts). Once the child has ended, SIGKILL goes to
 * its group once more (a grandchild that ignored SIGTERM), `cleanup` runs and the command exits
 * 128 + the signal's number (130, 143). A signal before the child is started ends the command the
 * same way. However the command ends otherwise, a child still running gets SIGKILL with it.
 *
 * Merging sends no request and restores nothing, so there is nothing to wait for but the child.
 */
import type { ChildProcess } from 'node:child_process';
import { signalAction, signalStatus } from './interrupt.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type StopSignal = (typeof SIGNALS)[number];

export interface GroupGuardOptions {
  /** What the child does, for the lines said: "the merge". */
  what: string;
  /** How long the group has after SIGTERM before SIGKILL. */
  graceMs: number;
  /** Removes the command's temporary files; says what was left. Runs once, before the exit. */
  cleanup: (signal: StopSignal) => void;
  say: (line: string) => void;
}

export class GroupGuard {
  private child: ChildProcess | undefined;
  private closed = false;
  private signal: StopSignal | undefined;
  private timer: NodeJS.Timeout | undefined;
  private signalledAt = 0;
  private readonly onSignal = (signal: StopSignal): void => this.handle(signal);
  private readonly onExit = (): void => {
    if (!this.closed) this.kill('SIGKILL');
  };

  constructor(
    private readonly options: GroupGuardOptions,
    /** Milliseconds, monotonic: when signals came. */
    private readonly now: () => number = () => performance.now(),
  ) {
    for (const signal of SIGNALS) process.on(signal, this.onSignal);
    process.on('exit', this.onExit);
  }

  /** The child, spawned detached: its pid is its process group's. */
  watch(child: ChildProcess): void {
    this.child = child;
    // 'exit', not 'close': a grandchild that ignored SIGTERM may hold the pipes open.
    child.once('exit', () => {
      this.closed = true;
      if (this.signal !== undefined) this.end(this.signal);
    });
    if (this.signal !== undefined) this.kill('SIGTERM');
  }

  /** The child ended on its own: signals are Node's again. */
  dispose(): void {
    clearTimeout(this.timer);
    for (const signal of SIGNALS) process.off(signal, this.onSignal);
    process.off('exit', this.onExit);
  }

  private kill(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone.
    }
  }

  private handle(signal: StopSignal): void {
    const now = this.now();
    const action = signalAction(
      this.signal === undefined ? undefined : this.signalledAt,
      now,
      this.child !== undefined && !this.closed,
    );
    if (action === 'repeat') return;
    if (this.signal !== undefined) {
      this.kill('SIGKILL');
      return;
    }
    this.signal = signal;
    this.signalledAt = now;
    if (action === 'exit') this.end(signal);
    this.options.say(
      `${signal}: stopping ${this.options.what} (process group ${this.child?.pid ?? '?'}; ${signal} again to kill it at once)`,
    );
    this.kill('SIGTERM');
    this.timer = setTimeout(() => this.kill('SIGKILL'), this.options.graceMs);
  }

  private end(signal: StopSignal): never {
    clearTimeout(this.timer);
    // What ignored the SIGTERM its leader ended on.
    this.kill('SIGKILL');
    this.options.cleanup(signal);
    process.exit(signalStatus(signal));
  }
}
