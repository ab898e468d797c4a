// A writer's calls to the server, one after another: a record never waits for the round trip
// of its batch, only for the one before it (the sink's backpressure), and a failure is kept
// and thrown at the next write, barrier or end.
export class WriteQueue {
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;

  /**
   * Queues `task`; returns the promise of the task before it, which the caller must return or
   * await (waiting for it keeps one task in flight; it throws an earlier task's failure).
   */
  push(task: () => Promise<void>): Promise<void> {
    const previous = this.tail;
    this.tail = previous
      .then(() => (this.failure === undefined ? task() : undefined))
      .then(undefined, (error: unknown) => {
        this.failure ??= { error };
      });
    return previous.then(() => this.check());
  }

  /** Queues a task whose result the caller waits for. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() => {
      this.check();
      return task();
    });
    this.tail = result.then(
      () => {},
      (error: unknown) => {
        this.failure ??= { error };
      },
    );
    return result;
  }

  /** Throws the failure of an earlier task, if there was one. */
  check(): void {
    if (this.failure !== undefined) throw this.failure.error;
  }

  /** Every queued task done; throws the first failure. */
  async drain(): Promise<void> {
    await this.tail;
    this.check();
  }

  /** Every queued task settled, failure or not. */
  settled(): Promise<void> {
    return this.tail;
  }
}
