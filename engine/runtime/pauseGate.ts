// Pause, as an executor holds it: while closed, the run waits on it at its next slice boundary.
// Open, it is one property read per slice, which costs nothing measurable.
import type { MaybePromise } from '../state/maybePromise.js';
export class PauseGate {
  private gate: MaybePromise;
  private opener: (() => void) | undefined;

  close(): void {
    this.gate ??= new Promise<void>((resolve) => {
      this.opener = resolve;
    });
  }

  open(): void {
    this.opener?.();
    this.gate = undefined;
    this.opener = undefined;
  }

  get closed(): boolean {
    return this.gate !== undefined;
  }

  /** What the run waits on while paused; undefined while it may go on. */
  get waiting(): MaybePromise {
    return this.gate;
  }
}
