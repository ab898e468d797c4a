// What travels on a channel: records in envelopes, and control events in order with them.

/** Where a record (or the record it was derived from) entered the job, for error messages. */
export interface RecordSource {
  readonly operatorId: string;
  /** The input file, for file sources. */
  readonly file?: string;
  /** Turns a position into words, e.g. "events.jsonl:17" or "record 42". */
  describe(position: number): string;
}

export class Envelope {
  constructor(
    readonly value: unknown,
    /** The key of a hash edge (an array for a composite key); undefined on other edges. */
    readonly key: unknown,
    readonly keyGroup: number,
    /** Event time in ms, when the source assigns one. */
    readonly timestamp: number | undefined,
    readonly source: RecordSource | undefined,
    /** A byte offset or index within `source`. */
    readonly position: number,
  ) {}
}

/** The producer on this channel has no more records. */
export class EndOfStream {
  static readonly instance = new EndOfStream();
  private constructor() {}
}

/** Checkpoint `checkpointId` separates the records before it from those after it. */
export class Barrier {
  constructor(readonly checkpointId: number) {}
}

export type ChannelItem = Envelope | EndOfStream | Barrier;
