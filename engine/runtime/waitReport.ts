// What a subtask's connector waits for right now (a server that does not answer: "waiting for
// Kafka at localhost:9092 (...): retry 3 in 800 ms"), as it last said through env.reportWait.
// Read with the subtask's other figures (runMetrics.ts), so it travels as they do: to the CLI,
// the metrics file and the designer, from any thread, as plain data.
export class WaitReport {
  /** Undefined while the connector waits for nothing. */
  message: string | undefined;

  constructor(
    /** Hears each change at once (the CLI prints it), also while the job opens and no figures are read yet. */
    private readonly changed?: (message: string | undefined) => void,
  ) {}

  /** env.reportWait: a connector may keep it (e.g. in its ServerRetry) before the subtask exists. */
  readonly report = (message: string | undefined): void => {
    if (message === this.message) return;
    this.message = message;
    this.changed?.(message);
  };
}
