// A logic that runs a record later than it arrived (a transaction waiting for its turn) throws
// this, so the failure names that record rather than whatever was being delivered.
import type { Envelope } from './envelope.js';

export class RecordFailure extends Error {
  constructor(
    readonly failed: unknown,
    readonly envelope: Envelope,
  ) {
    super(failed instanceof Error ? failed.message : String(failed));
  }
}
