package dev.pipewright.flink;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.function.Consumer;
import org.postgresql.core.BaseConnection;
import org.postgresql.replication.LogSequenceNumber;

/**
 * The replication slot made, and the table's rows as of its start, as the local engine does it
 * (engine/operators/postgres/source/snapshotCursor.ts): CREATE_REPLICATION_SLOT ... (SNAPSHOT
 * 'use') as the first command of a REPEATABLE READ transaction on a replication connection makes
 * that transaction see exactly what the slot's first change follows, and a cursor reads the table
 * in it, a batch at a time. With snapshot false the slot is made with no snapshot.
 */
final class PgSnapshot {
  /** Rows a fetch asks for, as locally (snapshotRecords.ts). */
  private static final int BATCH = 5000;

  /** A walsender connection that also takes SQL; the simple protocol, which replication commands need. */
  static final Map<String, String> REPLICATION = Map.of(
      "replication", "database",
      "assumeMinServerVersion", "10",
      "preferQueryMode", "simple");

  private PgSnapshot() {}

  /** What the reader does once the slot is made, before any row is read (a bounded read's stop position). */
  interface SlotMade {
    void run() throws SQLException;
  }

  /**
   * Makes the slot; with `qualifiedTable`, hands each of the table's rows as of the slot's start
   * to `rows` ({op: "insert", before: null, after: row}'s text). Its consistent point.
   */
  static long makeSlot(PgConnection pg, String operatorId, String slot, String qualifiedTable, SlotMade made,
      Consumer<String> rows) throws SQLException {
    try (Connection c = pg.open(operatorId, REPLICATION); Statement st = c.createStatement()) {
      for (String setting : PgValues.SESSION_SETTINGS) st.execute(setting);
      String create = "CREATE_REPLICATION_SLOT " + PgSourceSetup.quoteIdent(slot) + " LOGICAL pgoutput";
      if (qualifiedTable == null) {
        long point = consistentPoint(st, create + " (SNAPSHOT 'nothing')");
        made.run();
        return point;
      }
      st.execute("BEGIN ISOLATION LEVEL REPEATABLE READ");
      long point = consistentPoint(st, create + " (SNAPSHOT 'use')");
      st.execute("DECLARE pipewright_snapshot NO SCROLL CURSOR FOR SELECT * FROM " + qualifiedTable);
      made.run();
      BaseConnection base = c.unwrap(BaseConnection.class);
      int[] types = null;
      String[] names = null;
      int fetched;
      do {
        fetched = 0;
        try (ResultSet rs = st.executeQuery("FETCH " + BATCH + " FROM pipewright_snapshot")) {
          if (types == null) {
            ResultSetMetaData md = rs.getMetaData();
            types = new int[md.getColumnCount()];
            names = new String[types.length];
            for (int i = 0; i < types.length; i++) {
              types[i] = base.getTypeInfo().getPGType(md.getColumnTypeName(i + 1));
              names[i] = md.getColumnName(i + 1);
            }
          }
          while (rs.next()) {
            fetched++;
            JsObjects.Builder row = new JsObjects.Builder();
            for (int i = 0; i < types.length; i++) row.put(names[i], PgValues.json(types[i], rs.getString(i + 1)));
            rows.accept(new PgOutput.Change("insert", "", "", null, row.build()).text());
          }
        }
      } while (fetched == BATCH);
      st.execute("COMMIT");
      return point;
    }
  }

  private static long consistentPoint(Statement st, String create) throws SQLException {
    try (ResultSet rs = st.executeQuery(create)) {
      rs.next();
      return LogSequenceNumber.valueOf(rs.getString("consistent_point")).asLong();
    }
  }
}
