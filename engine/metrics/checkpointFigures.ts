// What a checkpoint reports, the figures Flink's checkpoint UI shows: a line of `--metrics` per
// checkpoint (CheckpointEvent) and a row of the designer's Checkpoints panel (RunCheckpointEvent)
// carry the same ones.

export interface CheckpointFigures {
  readonly id: number;
  readonly status: 'completed' | 'failed';
  readonly reason?: string;
  readonly triggeredAt: string;
  readonly durationMs: number;
  readonly bytes: number;
  readonly fullBytes: number;
  readonly inFlightRecords: number;
  readonly subtasks: readonly {
    readonly operator: string;
    readonly subtask: number;
    readonly bytes: number;
    readonly fullBytes: number;
    readonly syncMs: number;
    readonly asyncMs: number;
    readonly alignmentMs: number;
  }[];
}
