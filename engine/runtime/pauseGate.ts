// Pause, as an executor holds it: while closed, the run waits on it at its next slice boundary.
// Open, it is one property read per slice, which costs nothing measurable. Closing it answers
// once the run is held there (its slice under way has ended), so what a paused run's panels
// show no longer moves.
import type { MaybePromise } from '../state/maybePromise.js';
export class PauseGate {
  private gate: MaybePromise;
  private opener: (() => void) | undefined;
  private held: Promise<void> | undefined;
  private holder: (() => void) | undefined;
  /** The run has ended: nothing more runs, so a pause holds at once. */
  private over = false;

  /** Resolves once the run waits at the gate, has ended, or the gate opened again first. */
  close(): Promise<void> {
    this.gate ??= new Promise<void>((resolve) => {
      this.opener = resolve;
    });
    if (this.over) return Promise.resolve();
    this.held ??= new Promise<void>((resolve) => {
      this.holder = resolve;
    });
    return this.held;
  }

  open(): void {
    this.opener?.();
    this.gate = undefined;
    this.opener = undefined;
    this.reached();
  }

  get closed(): boolean {
    return this.gate !== undefined;
  }

  /** What the run waits on while paused; undefined while it may go on. */
  get waiting(): MaybePromise {
    return this.gate;
  }

  /** The run waits at the gate now. */
  reached(): void {
    this.holder?.();
    this.held = undefined;
    this.holder = undefined;
  }

  /** The run has ended (its loop returned): no pause has anything left to wait for. */
  end(): void {
    this.over = true;
    this.reached();
  }
}
