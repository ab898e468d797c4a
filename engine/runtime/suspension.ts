// A subtask that stepped aside for a call waiting on the world (see asyncCalls.ts): no slice of
// it runs until the call has settled and its mail has come; then the slice goes on where the
// call interrupted it. One call at a time: the subtask takes no record meanwhile, so each key's
// records stay in order.

import type { MaybePromise } from '../state/maybePromise.js';
import { settlesInPlace } from './asyncCalls.js';
import type { Mail, Mailbox } from './mailbox.js';

type Rest = () => MaybePromise;

export class Suspension {
  private suspended = false;
  private continuation: Rest | undefined;
  private resumed: Extract<Mail, { type: 'resume' }> | undefined;

  constructor(
    private readonly mailbox: Mailbox,
    /** Off: every call is waited for in place (debug runs, file connectors). */
    private readonly enabled: boolean,
  ) {}

  /** Stepped aside: no slice may run, unless its call has settled. */
  get active(): boolean {
    return this.suspended;
  }

  /** Still waiting for the call's mail. */
  get waiting(): boolean {
    return this.suspended && this.resumed === undefined;
  }

  /**
   * After a call went asynchronous: `rest` of the slice runs once it has settled, in place when
   * it settles on the job's own work, or after the subtask's mail says so.
   */
  whenSettled(pending: Promise<void>, rest: Rest): MaybePromise {
    if (!this.enabled) return pending.then(rest);
    return settlesInPlace(pending).then((settled) => {
      if (settled) return pending.then(rest);
      this.suspended = true;
      this.continuation = rest;
      pending.then(
        () => this.mailbox.put({ type: 'resume', failed: false, error: undefined }),
        (error: unknown) => this.mailbox.put({ type: 'resume', failed: true, error }),
      );
      return undefined;
    });
  }

  /** The call's mail came. */
  resume(mail: Extract<Mail, { type: 'resume' }>): void {
    this.resumed = mail;
  }

  /** The rest of the interrupted slice, once the call has settled (throws what it threw). */
  takeRest(): Rest | undefined {
    const resumed = this.resumed;
    if (resumed === undefined) return undefined;
    this.resumed = undefined;
    this.suspended = false;
    const rest = this.continuation!;
    this.continuation = undefined;
    if (resumed.failed) throw resumed.error;
    return rest;
  }
}
