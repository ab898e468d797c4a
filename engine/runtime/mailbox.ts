// A subtask's mailbox (Flink's StreamTask mailbox): what is not input reaches a subtask as an
// action in one queue, taken by the subtask itself between two records. So a checkpoint starts,
// a checkpoint completes and an asynchronous call finishes at a point of the subtask's own
// choosing, on its own thread, in the order they came.

export type Mail =
  /** The coordinator started a checkpoint. */
  | { readonly type: 'triggerCheckpoint'; readonly checkpointId: number }
  /** A checkpoint every subtask took part in is complete (its metadata is written). */
  | { readonly type: 'checkpointComplete'; readonly checkpointId: number }
  /** The wall clock passed a processing-time timer of this subtask. */
  | { readonly type: 'processingTime' }
  /** A call that went asynchronous has settled: the slice it interrupted goes on. */
  | { readonly type: 'resume'; readonly failed: boolean; readonly error: unknown };

export class Mailbox {
  private readonly mails: Mail[] = [];
  /** Told on every put: the executor wakes if it was waiting for mail. */
  onMail: (() => void) | undefined;

  get size(): number {
    return this.mails.length;
  }

  put(mail: Mail): void {
    this.mails.push(mail);
    this.onMail?.();
  }

  take(): Mail | undefined {
    return this.mails.shift();
  }

  /** Time travel: debug runs go back only where no mail waits; a step back drops none. */
  clear(): void {
    this.mails.length = 0;
  }
}
