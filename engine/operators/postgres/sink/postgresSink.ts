// sink.postgres: the factory. "upsert" writers need no committer (their rows are in the table
// when the barrier passes, and a replay writes the same rows); "append" writers share with their
// committer the operator's ledger of prepared transactions. testConnection answers the
// inspector: does the server answer, does the table exist, do upsert's keys have a unique index.

import type { SinkCommitter } from '../../../runtime/sink.js';
import { describeCause } from '../../connectors/serverRetry.js';
import type { KindFactory } from '../../kindFactory.js';
import { PostgresAppendCommitter } from './appendCommitter.js';
import { PostgresAppendWriter } from './appendWriter.js';
import { openSinkTable, type SinkPostgresParams } from './openSinkTable.js';
import { PgSession } from './pgSession.js';
import { PreparedLedger, transactionTag } from './preparedLedger.js';
import { PostgresUpsertWriter } from './upsertWriter.js';

/** A connection check waits this long at most for a server that does not answer. */
const TEST_TIMEOUT_MS = 3000;

const upsertCommitter: SinkCommitter = {
  prepare: async () => undefined,
  commit: async () => {},
  commitRemaining: async () => {},
  recover: async () => {},
};

export const sinkPostgresFactory: KindFactory = {
  role: 'sink',
  createSink: ({ planned, jobDir, checkpoints }) => {
    const params = planned.operator.params as SinkPostgresParams;
    if (params.mode === 'upsert') {
      return { createWriter: (env) => new PostgresUpsertWriter(env, params), committer: upsertCommitter };
    }
    const ledger = new PreparedLedger(transactionTag(checkpoints?.files.root ?? jobDir, planned.id));
    const committer = new PostgresAppendCommitter(
      new PgSession({
        operatorId: planned.id,
        connection: params.connection,
        retryTimeoutMs: params.retryTimeoutMs,
      }),
      ledger,
    );
    return {
      createWriter: (env) => new PostgresAppendWriter(env, params, ledger, () => committer.sweepFresh()),
      committer,
    };
  },
  testConnection: async (params, operatorId) => {
    const p = params as SinkPostgresParams;
    const session = new PgSession({ operatorId, connection: p.connection, retryTimeoutMs: TEST_TIMEOUT_MS });
    try {
      const table = await openSinkTable(session, p, operatorId);
      const keys = p.mode === 'upsert' ? `, unique on (${(p.keyColumns ?? []).join(', ')})` : '';
      return {
        ok: true,
        message: `${session.server} answers; table ${table.sql} has ${table.columns.size} columns (${[...table.columns.keys()].join(', ')})${keys}`,
      };
    } catch (error) {
      return { ok: false, message: describeCause(error) };
    } finally {
      await session.close();
    }
  },
};
