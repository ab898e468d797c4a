package dev.pipewright.flink;

import java.io.IOException;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * sink.postgres on Flink, with the local sink's params and meaning (docs/flink.md): "upsert" is a
 * plain Sink V2 whose writers flush their batch before every barrier (PgUpsertWriter: a replay
 * from the checkpoint writes the same rows again), "append" a two-phase one, a PostgreSQL
 * prepared transaction per subtask and checkpoint committed once the checkpoint completes
 * (PgAppendSink).
 */
final class PostgresSinks {
  private PostgresSinks() {}

  /** What every writer and committer of one sink operator needs; its params as the job has them. */
  static final class Settings implements Serializable {
    private static final long serialVersionUID = 1L;
    final String operatorId;
    final String table;
    final boolean upsert;
    /** Upsert's key columns (an empty list for append). */
    final List<String> keyColumns;
    final PgConnection connection;
    /** Whose prepared transactions they are: the job's name and the operator (PgPrepared). */
    final String tag;

    Settings(String operatorId, String table, boolean upsert, List<String> keyColumns, PgConnection connection,
        String tag) {
      this.operatorId = operatorId;
      this.table = table;
      this.upsert = upsert;
      this.keyColumns = keyColumns;
      this.connection = connection;
      this.tag = tag;
    }

    /**
     * A writer's connection and the table it writes, checked as the local sink checks it when it
     * opens (missing table, upsert's key columns); the connection is closed when that fails.
     */
    Opened openTable() throws IOException {
      Connection c = null;
      try {
        c = connection.open(operatorId);
        PgTable t = PgTable.describe(c, table, operatorId, connection.server);
        if (upsert) t.checkKeyColumns(keyColumns, table, operatorId);
        return new Opened(c, t);
      } catch (SQLException e) {
        closeQuietly(c);
        throw PgWrites.failure(operatorId, "reading table \"" + table + "\"", connection.server, e);
      } catch (RuntimeException | IOException e) {
        closeQuietly(c);
        throw e;
      }
    }
  }

  /** A writer's open connection and its table as the server described it. */
  record Opened(Connection connection, PgTable table) {}

  static void closeQuietly(Connection c) {
    if (c == null) return;
    try {
      c.close();
    } catch (SQLException e) {
      // Closing a connection that broke: the server has dropped its session (and transaction).
    }
  }

  static Sink<String> sink(Plan.Operator op, String jobName) throws IOException {
    JsonNode params = Json.MAPPER.readTree(op.json).path("params");
    boolean upsert = "upsert".equals(params.path("mode").asText());
    List<String> keys = new ArrayList<>();
    params.path("keyColumns").forEach(k -> keys.add(k.asText()));
    Settings settings = new Settings(op.id, params.path("table").asText(), upsert, List.copyOf(keys),
        PgConnection.parse(params.path("connection").asText(), op.id), PgPrepared.tag(jobName, op.id));
    return upsert ? new PgUpsertWriter.UpsertSink(settings) : new PgAppendSink(settings);
  }
}
