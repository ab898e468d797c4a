// A failure a user can act on: it names the operator (and subtask, and where the record came
// from) and never carries an engine stack trace into the message.
export class JobError extends Error {
  constructor(
    message: string,
    readonly operatorId?: string,
    readonly subtask?: number,
  ) {
    super(message);
    this.name = 'JobError';
  }
}
