// Ctrl-C during a run, read as a key instead of left to the terminal to turn into SIGINT. The
// terminal signals its whole foreground process group, and a launcher in that group answers for
// itself: npx runs the CLI under `sh -c`, the shell dies of the SIGINT, and npx exits 130 at once
// while the run is still taking its final checkpoint (the prompt comes back over its last lines).
// Read as a key, Ctrl-C reaches this process alone, and a launcher exits with the CLI's status.
// Ctrl-Z and Ctrl-\ do to the process group what the terminal would have done.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CTRL_C = 0x03;
const CTRL_Z = 0x1a;
const CTRL_BACKSLASH = 0x1c;

/**
 * Whether this process's group owns its terminal. Only then may it read the terminal or change
 * its mode: either from the background stops the process (SIGTTIN, SIGTTOU), as `run … &` would be.
 */
export function inForeground(): boolean {
  try {
    // Fields after "pid (comm)": state ppid pgrp session tty_nr tpgid; comm may hold spaces.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const [, , pgrp, , tty, tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return tty !== '0' && pgrp === tpgid;
  } catch {
    // No /proc (macOS): ps knows both numbers.
    try {
      const [pgrp, tpgid] = execFileSync('ps', ['-o', 'pgid=,tpgid=', '-p', String(process.pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .trim()
        .split(/\s+/);
      return pgrp !== undefined && pgrp === tpgid;
    } catch {
      return false;
    }
  }
}

export class TerminalKeys {
  private raw = false;

  constructor(
    private readonly onInterrupt: () => void,
    private readonly input: NodeJS.ReadStream = process.stdin,
  ) {}

  /** From now on, until stop(), Ctrl-C on the terminal calls onInterrupt (when stdin is one). */
  start(): void {
    if (!this.input.isTTY) return;
    process.on('SIGCONT', this.takeTerminal);
    this.takeTerminal();
  }

  /** Gives the terminal back as it was, so that the process can exit. */
  stop(): void {
    process.off('SIGCONT', this.takeTerminal);
    this.input.off('data', this.onData);
    this.release();
  }

  /** At start, and on SIGCONT (fg or bg after a Ctrl-Z), in the foreground only. */
  private readonly takeTerminal = (): void => {
    if (!inForeground()) {
      this.input.pause();
      return;
    }
    try {
      this.input.setRawMode(true);
      this.raw = true;
      // A data listener starts reading the terminal: only now that this process may.
      if (this.input.listeners('data').includes(this.onData)) this.input.resume();
      else this.input.on('data', this.onData);
    } catch {
      // The terminal refused the mode: Ctrl-C stays a signal, handled as before.
    }
  };

  private release(): void {
    if (this.raw) this.input.setRawMode(false);
    this.raw = false;
    this.input.pause();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (const byte of bytes) {
      if (byte === CTRL_C) this.onInterrupt();
      else if (byte === CTRL_Z) this.signalGroup('SIGTSTP');
      else if (byte === CTRL_BACKSLASH) this.signalGroup('SIGQUIT');
    }
  };

  private signalGroup(signal: NodeJS.Signals): void {
    this.release();
    // Group 0 is this process's own: a launcher stops (or quits) along with it, as with the terminal.
    process.kill(0, signal);
  }
}
