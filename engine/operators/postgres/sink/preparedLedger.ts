// The prepared transactions of one append sink operator, shared by its writers (which prepare
// them at barriers) and its committer (which commits them once a checkpoint completes). Their
// global ids say whose they are: "pw:<tag>:<lineage>:<subtask>:<checkpoint>". The tag stands for
// the job's folder and the operator (two jobs never share one; the run lock keeps two runs of
// one job apart), the lineage for the run and the runs restored from it, so that an id is never
// taken twice even when a restore goes back to an older checkpoint.
import { createHash, randomBytes } from 'node:crypto';
import type { MaybePromise } from '../../../state/maybePromise.js';

export const KIND = 'sink.postgres';

/** What a checkpoint's completion commits (a restore commits it again where it is still prepared). */
export interface AppendCommit {
  readonly tag: string;
  readonly lineage: string;
  readonly gids: readonly string[];
}

/** What a writer hands a barrier: the transaction it prepared. */
export interface PreparedPayload {
  readonly gids: readonly string[];
}

/** The tag of an operator's transactions: the job's folder (its checkpoint folder) and the operator. */
export function transactionTag(folder: string, operatorId: string): string {
  return createHash('sha256').update(`${folder}\u0000${operatorId}`).digest('hex').slice(0, 12);
}

export const tagPrefix = (tag: string) => `pw:${tag}:`;

export class PreparedLedger {
  private lineageId: string | undefined;
  /** Prepared and not known committed: gid -> the checkpoint that commits it (Infinity: the job's end). */
  private readonly pending = new Map<string, number>();
  /** A restore or a fresh start has dealt with what earlier runs left prepared. */
  private swept: MaybePromise;

  constructor(readonly tag: string) {}

  get lineage(): string {
    this.lineageId ??= randomBytes(4).toString('hex');
    return this.lineageId;
  }

  /** A restore continues the lineage of the run it restores. */
  continueLineage(lineage: string): void {
    this.lineageId = lineage;
  }

  gid(subtask: number, checkpointId: number | undefined): string {
    return `${tagPrefix(this.tag)}${this.lineage}:${subtask}:${checkpointId ?? 'end'}`;
  }

  prepared(gid: string, checkpointId: number | undefined): void {
    this.pending.set(gid, checkpointId ?? Number.POSITIVE_INFINITY);
  }

  /** Prepared for checkpoint `checkpointId` or an earlier one (which failed): all that its completion commits. */
  upTo(checkpointId: number): string[] {
    return [...this.pending].filter(([, id]) => id <= checkpointId).map(([gid]) => gid);
  }

  all(): string[] {
    return [...this.pending.keys()];
  }

  committed(gids: readonly string[]): void {
    for (const gid of gids) this.pending.delete(gid);
  }

  /** Once per run, before the first writer prepares: `sweep` deals with what earlier runs left. */
  sweepOnce(sweep: () => Promise<void>): Promise<void> {
    this.swept ??= sweep();
    return this.swept;
  }
}
