// source.postgres's one split (the table) and where its reader stands, as checkpoints keep it.
import type { SplitEnumerator, SplitSerializer } from '../../../runtime/source.js';

export interface PostgresSplit {
  readonly slot: string;
  readonly publication: string;
  /** A fresh start: the slot and publication are still to be made, the snapshot to be read. */
  readonly fresh?: true;
  /** The table as the server resolved it. */
  readonly schema?: string;
  readonly name?: string;
  /**
   * The end of the last transaction whose changes were all emitted (at first the slot's
   * consistent point): streaming resumes with transactions that commit after it.
   */
  readonly lsn?: string;
  /** The last change emitted of the transaction after `lsn`, if a checkpoint fell inside one. */
  readonly changeLsn?: string;
  /** stopAt "current": the end of the log at the first open; transactions committed after it are not read. */
  readonly stopLsn?: string;
}

export const postgresSerializer: SplitSerializer<PostgresSplit> = {
  toPayload: (split) => ({ ...split }),
  fromPayload: (payload) => {
    const split = payload as PostgresSplit;
    if (typeof split?.slot !== 'string' || typeof split.publication !== 'string') {
      throw new Error(
        `a source.postgres split must name its slot and publication, not ${JSON.stringify(payload)}`,
      );
    }
    return split;
  },
};

/**
 * One split: the first subtask reads the table, any other subtask reads nothing and ends at once
 * (a replication slot has one reader).
 */
export function postgresEnumerator(fresh: PostgresSplit): SplitEnumerator<PostgresSplit> {
  return {
    assign(parallelism, restored) {
      const splits = restored ?? [fresh];
      return Array.from({ length: parallelism }, (_, subtask) => (subtask === 0 ? splits : []));
    },
  };
}
