// The committer of an append sink: COMMIT PREPARED for a checkpoint's transactions once it is
// complete, from a connection of its own. A restore commits the restored checkpoint's ones that
// are still prepared (one no longer there was committed before the crash: only this committer
// ends them) and rolls back every other of this operator's (prepared after that checkpoint);
// a fresh run rolls back all that earlier runs of the job left prepared.
import type { ConnectorState } from '../../../runtime/connectorState.js';
import type { SinkCommitter } from '../../../runtime/sink.js';
import { sqlState } from '../pgErrors.js';
import type { PgSession } from './pgSession.js';
import {
  type AppendCommit,
  KIND,
  type PreparedLedger,
  type PreparedPayload,
  tagPrefix,
} from './preparedLedger.js';

/** "prepared transaction with identifier ... does not exist" */
const UNDEFINED_OBJECT = '42704';

export class PostgresAppendCommitter implements SinkCommitter {
  constructor(
    private readonly session: PgSession,
    private readonly ledger: PreparedLedger,
  ) {}

  async prepare(checkpointId: number, committables: readonly ConnectorState[]): Promise<ConnectorState> {
    const gids = new Set(this.ledger.upTo(checkpointId));
    for (const c of committables) for (const gid of (c.payload as PreparedPayload).gids) gids.add(gid);
    // Even without transactions the commit says the lineage, which a restore continues.
    const commit: AppendCommit = {
      tag: this.ledger.tag,
      lineage: this.ledger.lineage,
      gids: [...gids].sort(),
    };
    return { kind: KIND, payload: commit };
  }

  async commit(commit: ConnectorState): Promise<void> {
    await this.commitAll((commit.payload as AppendCommit).gids);
  }

  async commitRemaining(last: readonly ConnectorState[]): Promise<void> {
    const gids = new Set(this.ledger.all());
    for (const c of last) for (const gid of (c.payload as PreparedPayload).gids) gids.add(gid);
    try {
      await this.commitAll([...gids]);
    } finally {
      await this.session.close();
    }
  }

  /** The run ended otherwise than through commitRemaining: its connection goes. */
  async close(): Promise<void> {
    await this.session.close();
  }

  async recover(commit: ConnectorState | undefined, checkpointId: number): Promise<void> {
    const restored = commit?.kind === KIND ? (commit.payload as AppendCommit) : undefined;
    if (restored !== undefined) this.ledger.continueLineage(restored.lineage);
    await this.ledger.sweepOnce(async () => {
      const keep = new Set(restored?.gids ?? []);
      const tags = new Set([this.ledger.tag, ...(restored === undefined ? [] : [restored.tag])]);
      const left = await this.preparedOf([...tags]);
      await this.commitAll(left.filter((gid) => keep.has(gid)));
      await this.rollBack(
        left.filter((gid) => !keep.has(gid)),
        `restoring checkpoint ${checkpointId}`,
      );
    });
  }

  /** A fresh run: nothing earlier runs left prepared will be committed. */
  async sweepFresh(): Promise<void> {
    await this.rollBack(await this.preparedOf([this.ledger.tag]), 'starting afresh');
  }

  private async preparedOf(tags: readonly string[]): Promise<string[]> {
    const action = 'listing its prepared transactions';
    try {
      return await this.session.run(action, async (client) => {
        const { rows } = await client.query<{ gid: string }>(
          'SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE ANY($1::text[])',
          // Tags are hex digits: nothing in a prefix is special to LIKE.
          [tags.map((tag) => `${tagPrefix(tag)}%`)],
        );
        return rows.map((r) => r.gid);
      });
    } catch (error) {
      throw this.session.failure(error, action);
    }
  }

  private async commitAll(gids: readonly string[]): Promise<void> {
    for (const gid of gids)
      await this.finish('COMMIT', gid, "committing a checkpoint's prepared transaction");
    this.ledger.committed(gids);
  }

  private async rollBack(gids: readonly string[], why: string): Promise<void> {
    for (const gid of gids)
      await this.finish('ROLLBACK', gid, `rolling back a prepared transaction (${why})`);
  }

  /** COMMIT or ROLLBACK PREPARED; one already gone was finished by an earlier attempt. */
  private async finish(verb: 'COMMIT' | 'ROLLBACK', gid: string, action: string): Promise<void> {
    try {
      await this.session.run(action, async (client) => {
        try {
          await client.query(`${verb} PREPARED '${gid}'`);
        } catch (error) {
          if (sqlState(error) !== UNDEFINED_OBJECT) throw error;
        }
      });
    } catch (error) {
      throw this.session.failure(error, action);
    }
  }
}
