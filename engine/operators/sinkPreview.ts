// A sink switched to preview for a run in the designer: it hands every record it receives to the
// host, to be shown, and writes nothing. It takes part in no commit, so a run with preview sinks
// leaves every output file as it was.
import type { Envelope } from '../runtime/envelope.js';
import { BaseLogic, type SubtaskEnvironment } from '../runtime/operatorLogic.js';

/** Receives each record a preview sink takes, with the sink's operator and subtask. */
export type PreviewListener = (operatorId: string, subtask: number, record: unknown) => void;

export class PreviewSinkLogic extends BaseLogic {
  constructor(
    env: SubtaskEnvironment,
    private readonly listener: PreviewListener,
  ) {
    super(env);
  }

  override process(envelope: Envelope): void {
    this.listener(this.env.operator.id, this.env.subtask, envelope.value);
  }

  /** Nothing of its own: what it handed on is the listener's. */
  progress(): undefined {
    return undefined;
  }

  restoreProgress(): void {}
}
