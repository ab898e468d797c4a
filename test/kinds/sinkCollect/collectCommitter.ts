// sink.collect's committer: one per operator. Committing a checkpoint moves the files its writers
// staged into `committed/` by renaming each (atomic, so a commit redone finds the file already
// moved and moves nothing twice). A restore redoes the checkpoint's commit, then removes what
// was committed after it and every staged file left over: the run redoes that output.
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConnectorState } from '../../../engine/runtime/connectorState.js';
import type { SinkCommitter } from '../../../engine/runtime/sink.js';
import { COMMITTED, committedName, parseCommitted, STAGING } from './collectFiles.js';
import { COLLECT_KIND } from './collectWriter.js';

/** What a checkpoint keeps of this sink: the staged files its completion commits. */
export interface CollectCommit {
  readonly checkpointId: number;
  readonly staged: readonly string[];
}

function stagedNames(committables: readonly ConnectorState[]): string[] {
  return committables.map((c) => (c.payload as { name: string }).name);
}

export class CollectCommitter implements SinkCommitter {
  /** Staged files prepared for a checkpoint that has not committed them (it failed): the next one does. */
  private pending: string[] = [];

  constructor(
    private readonly operatorId: string,
    private readonly dir: string,
  ) {}

  async prepare(checkpointId: number, committables: readonly ConnectorState[]): Promise<ConnectorState> {
    for (const name of stagedNames(committables)) if (!this.pending.includes(name)) this.pending.push(name);
    const commit: CollectCommit = { checkpointId, staged: [...this.pending] };
    return { kind: COLLECT_KIND, payload: commit };
  }

  async commit(commit: ConnectorState): Promise<void> {
    const { checkpointId, staged } = commit.payload as CollectCommit;
    for (const name of staged) await this.publish(checkpointId, name);
    this.pending = this.pending.filter((name) => !staged.includes(name));
  }

  async commitRemaining(last: readonly ConnectorState[]): Promise<void> {
    const names = [...this.pending, ...stagedNames(last).filter((name) => !this.pending.includes(name))];
    for (const name of names) await this.publish('end', name);
    this.pending = [];
  }

  async recover(commit: ConnectorState | undefined, checkpointId: number): Promise<void> {
    if (commit !== undefined) {
      const { checkpointId: by, staged } = commit.payload as CollectCommit;
      for (const name of staged) await this.publish(by, name);
    }
    const committed = await readdir(join(this.dir, COMMITTED)).catch(() => [] as string[]);
    for (const name of committed) {
      const file = parseCommitted(name);
      if (file !== undefined && file.by > checkpointId) await rm(join(this.dir, COMMITTED, name));
    }
    await rm(join(this.dir, STAGING), { recursive: true, force: true });
  }

  /** Moves one staged file into committed/; done already when only the committed one is there. */
  private async publish(by: number | 'end', staged: string): Promise<void> {
    const from = join(this.dir, STAGING, staged);
    const to = join(this.dir, COMMITTED, committedName(by, staged));
    try {
      await rename(from, to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const there = await stat(to).then(
        () => true,
        () => false,
      );
      if (!there) {
        throw new Error(
          `operator "${this.operatorId}": the staged file ${from} is gone and was never committed; the output would miss its records`,
        );
      }
    }
  }
}
