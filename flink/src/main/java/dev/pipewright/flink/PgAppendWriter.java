package dev.pipewright.flink;

import dev.pipewright.flink.PgRows.PgValue;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.OptionalLong;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;

/**
 * sink.postgres in mode "append", exactly once, as the local appendWriter.ts: a subtask writes
 * the records between two barriers in one transaction of its own (statements of up to
 * ROWS_PER_STATEMENT rows as they fill), and before the barrier prepares it (PREPARE TRANSACTION,
 * durable but invisible) and hands its gid on as the checkpoint's committable; PgCommitter
 * commits it once the checkpoint is complete. Where the local writer redoes a transaction whose
 * connection broke from the rows it holds, this one fails the subtask: the server rolled the
 * transaction back, and Flink's restore from the last checkpoint writes those records again.
 * Its state is the lineage (PgPrepared), which a restore continues.
 */
final class PgAppendWriter implements CommittingSinkWriter<String, String>, StatefulSinkWriter<String, String> {
  private final PostgresSinks.Settings settings;
  private final Connection connection;
  private final PgTable table;
  private final int subtask;
  private final String lineage;
  /** The checkpoint the open transaction is prepared for: the one after the last snapshot. */
  private long checkpointId;
  /** Rows not yet sent in the open transaction. */
  private final List<LinkedHashMap<String, PgValue>> rows = new ArrayList<>();
  /** Whether the open transaction holds rows (sent, not yet prepared). */
  private boolean open;

  PgAppendWriter(PostgresSinks.Settings settings, int subtask, int parallelism, OptionalLong restored, String lineage)
      throws IOException {
    this.settings = settings;
    this.subtask = subtask;
    this.lineage = lineage;
    this.checkpointId = restored.orElse(0) + 1;
    PostgresSinks.Opened opened = settings.openTable();
    this.connection = opened.connection();
    this.table = opened.table();
    try {
      // Before any checkpoint can begin (the task is still initializing), so before any writer
      // of this run prepares: what earlier runs or attempts left prepared that nothing will commit.
      for (String gid : PgPrepared.preparedOf(connection, settings.tag)) {
        if (PgPrepared.rollsBack(gid, settings.tag, lineage, subtask, parallelism, restored)) {
          PgPrepared.finish(connection, "ROLLBACK", gid);
        }
      }
      connection.setAutoCommit(false);
    } catch (SQLException e) {
      close();
      throw PgWrites.failure(settings.operatorId, action("rolling back what an earlier run left prepared"),
          settings.connection.server, e);
    }
  }

  private String action(String what) {
    return what + " (table \"" + settings.table + "\", subtask " + subtask + ")";
  }

  @Override
  public void write(String record, Context context) throws IOException {
    rows.add(PgRows.toRow(record, table, settings.table, settings.operatorId));
    if (rows.size() >= PgStatements.ROWS_PER_STATEMENT) send();
  }

  /** Sends the rows gathered into the open transaction (the driver begins it with the first). */
  private void send() throws IOException {
    try {
      for (PgStatements.Insert insert : PgStatements.inserts(table, rows, null)) {
        PgWrites.run(connection, insert, table, settings.table, settings.operatorId);
      }
    } catch (SQLException e) {
      throw PgWrites.failure(settings.operatorId, action("writing " + rows.size() + " rows"),
          settings.connection.server, e);
    }
    rows.clear();
    open = true;
  }

  @Override
  public void flush(boolean endOfInput) throws IOException {
    if (!rows.isEmpty()) send();
  }

  /** Before the barrier (or at the end of the input): the open transaction prepared, its gid. */
  @Override
  public Collection<String> prepareCommit() throws IOException {
    if (!rows.isEmpty()) send();
    if (!open) return List.of();
    String gid = PgPrepared.gid(settings.tag, lineage, subtask, checkpointId);
    try (Statement statement = connection.createStatement()) {
      statement.execute("PREPARE TRANSACTION '" + gid + "'");
    } catch (SQLException e) {
      throw PgWrites.failure(settings.operatorId, action("preparing its transaction"), settings.connection.server, e);
    }
    open = false;
    return List.of(gid);
  }

  @Override
  public List<String> snapshotState(long checkpointId) {
    this.checkpointId = checkpointId + 1;
    return List.of(lineage);
  }

  /**
   * The open transaction goes with the connection (the server rolls it back). Prepared ones stay:
   * the committer commits those a completed checkpoint covers, and a restore rolls back the rest.
   */
  @Override
  public void close() {
    PostgresSinks.closeQuietly(connection);
  }
}
