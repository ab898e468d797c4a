package dev.pipewright.flink;

import dev.pipewright.flink.PgRows.PgValue;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * sink.postgres in mode "upsert", as the local upsertWriter.ts: records go into a batch of
 * distinct keys (a later record of a key in the batch merges into its row, field by field, so the
 * batch does what writing them one by one would: ON CONFLICT cannot touch one row twice in a
 * statement), written as INSERT ... ON CONFLICT (keys) DO UPDATE when it holds
 * ROWS_PER_STATEMENT rows and before every barrier (Flink calls flush then), so a completed
 * checkpoint's rows are in the table; a restore writes the records since it again, which leaves
 * the same rows. Statements commit one by one, as the local ones do.
 */
final class PgUpsertWriter implements SinkWriter<String> {
  private final PostgresSinks.Settings settings;
  private final Connection connection;
  private final PgTable table;
  /** The batch: its rows in order, and where each key's row is in it. */
  private final List<LinkedHashMap<String, PgValue>> rows = new ArrayList<>();
  private final Map<Object, Integer> slots = new HashMap<>();

  /** The sink: no committer, no state of its own (the replay from the checkpoint is its state). */
  static final class UpsertSink implements Sink<String> {
    private static final long serialVersionUID = 1L;
    private final PostgresSinks.Settings settings;

    UpsertSink(PostgresSinks.Settings settings) {
      this.settings = settings;
    }

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) throws IOException {
      return new PgUpsertWriter(settings);
    }
  }

  PgUpsertWriter(PostgresSinks.Settings settings) throws IOException {
    this.settings = settings;
    PostgresSinks.Opened opened = settings.openTable();
    this.connection = opened.connection();
    this.table = opened.table();
  }

  @Override
  public void write(String record, Context context) throws IOException {
    LinkedHashMap<String, PgValue> row = PgRows.toRow(record, table, settings.table, settings.operatorId);
    Object key = PgRows.keyOf(row, settings.keyColumns, settings.table, settings.operatorId);
    Integer slot = slots.get(key);
    if (slot != null) {
      rows.get(slot).putAll(row);
    } else {
      slots.put(key, rows.size());
      rows.add(row);
    }
    if (rows.size() >= PgStatements.ROWS_PER_STATEMENT) send();
  }

  @Override
  public void flush(boolean endOfInput) throws IOException {
    if (!rows.isEmpty()) send();
  }

  private void send() throws IOException {
    String action = "writing " + rows.size() + " rows to table \"" + settings.table + "\"";
    try {
      for (PgStatements.Insert insert : PgStatements.inserts(table, rows, settings.keyColumns)) {
        PgWrites.run(connection, insert, table, settings.table, settings.operatorId);
      }
    } catch (SQLException e) {
      throw PgWrites.failure(settings.operatorId, action, settings.connection.server, e);
    }
    rows.clear();
    slots.clear();
  }

  @Override
  public void close() {
    PostgresSinks.closeQuietly(connection);
  }
}
