// A command run in a pseudo-terminal, as on a user's terminal: util-linux `script` gives it a pty
// of 80 columns as its controlling terminal, in the foreground, so that keys typed (Ctrl-C is the
// byte 0x03) reach the terminal's line discipline as if from a keyboard, and what it draws can be
// read back as a screen (terminalScreen.ts). No native module needed.
import { spawn } from 'node:child_process';
import { screenOf } from './terminalScreen.js';

export const COLUMNS = 80;

export interface TerminalExit {
  /** The command's exit status as `script -e` reports it (128+N for a signal N). */
  readonly status: number | null;
  readonly output: string;
}

export class TerminalRun {
  output = '';
  readonly exited: Promise<TerminalExit>;
  private readonly child;
  private readonly watchers = new Set<() => void>();

  constructor(command: string, options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }) {
    const { cwd, env = process.env, timeoutMs = 60_000 } = options;
    // `exec` makes the command the session's leader and its terminal's foreground group, as a
    // shell with job control would.
    this.child = spawn('script', ['-qfec', `stty cols ${COLUMNS} rows 40; exec ${command}`, '/dev/null'], {
      cwd,
      env: { ...env, SHELL: '/bin/sh' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.output += chunk;
      for (const watch of this.watchers) watch();
    });
    this.exited = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`${command} did not end within ${timeoutMs} ms; the screen:\n${this.describe()}`));
      }, timeoutMs);
      this.child.on('error', reject);
      this.child.on('close', (status) => {
        clearTimeout(timer);
        resolve({ status, output: this.output });
      });
    });
  }

  /** What the terminal shows now. */
  screen(): string[] {
    return screenOf(this.output, COLUMNS);
  }

  describe(): string {
    return this.screen().join('\n');
  }

  /** Types `keys` on the terminal. */
  type(keys: string): void {
    this.child.stdin.write(keys);
  }

  /** Resolves once `ready(output)` holds; rejects if the command ends first. */
  until(ready: (output: string) => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!ready(this.output)) return;
        this.watchers.delete(check);
        resolve();
      };
      this.watchers.add(check);
      check();
      void this.exited.then(
        () => reject(new Error(`ended before ${what}; the screen:\n${this.describe()}`)),
        reject,
      );
    });
  }
}
