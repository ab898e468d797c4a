package dev.pipewright.flink;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What source.postgres does on the server before it reads, and the lines that say what is wrong,
 * as the local engine does and says them (engine/operators/postgres/source/tableSetup.ts): the
 * server's wal_level checked, the table resolved, the publication made if absent or checked to
 * publish the table, a leftover slot of a fresh start that crashed dropped.
 */
final class PgSourceSetup {
  private PgSourceSetup() {}

  /** The table as the server resolved it. */
  record Table(String schema, String name) {
    String qualified() {
      return quoteIdent(schema) + "." + quoteIdent(name);
    }
  }

  static String quoteIdent(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  static void checkWalLevel(Connection c, String operatorId) throws SQLException {
    String level;
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW wal_level")) {
      level = rs.next() ? rs.getString(1) : "unknown";
    }
    if (!level.equals("logical")) {
      throw UserError.fail("operator \"" + operatorId + "\": the server's wal_level is \"" + level
          + "\", and reading changes needs \"logical\" (set wal_level = logical in postgresql.conf and restart the server)");
    }
  }

  /** The table named "name" or "schema.name" (the search path finds a bare name). */
  static Table resolveTable(Connection c, String table, String operatorId) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(
        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE c.oid = to_regclass(?) AND c.relkind IN ('r', 'p')")) {
      st.setString(1, table);
      try (ResultSet rs = st.executeQuery()) {
        if (rs.next()) return new Table(rs.getString(1), rs.getString(2));
      }
    }
    throw UserError.fail("operator \"" + operatorId + "\": table \"" + table + "\" does not exist");
  }

  /** Makes the publication for the table unless one of that name is there, which must publish the table. */
  static void ensurePublication(Connection c, String publication, Table table, String operatorId) throws SQLException {
    if (!publicationExists(c, publication)) {
      try (Statement st = c.createStatement()) {
        st.execute("CREATE PUBLICATION " + quoteIdent(publication) + " FOR TABLE " + table.qualified());
        return;
      } catch (SQLException e) {
        // Another run made it between the two statements: use it, if it publishes the table.
        if (!"42710".equals(e.getSQLState())) throw e;
      }
    }
    checkPublication(c, publication, table, operatorId);
  }

  private static boolean publicationExists(Connection c, String publication) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT 1 FROM pg_publication WHERE pubname = ?")) {
      st.setString(1, publication);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** A publication that does not publish the table streams none of its changes, silently: refused. */
  static void checkPublication(Connection c, String publication, Table table, String operatorId) throws SQLException {
    List<String> published = new ArrayList<>();
    boolean found = false;
    try (PreparedStatement st = c.prepareStatement(
        "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = ? ORDER BY schemaname, tablename")) {
      st.setString(1, publication);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          String schema = rs.getString(1);
          String name = rs.getString(2);
          if (schema.equals(table.schema) && name.equals(table.name)) found = true;
          published.add("\"" + schema + "." + name + "\"");
        }
      }
    }
    if (found) return;
    String wanted = table.schema + "." + table.name;
    if (!publicationExists(c, publication)) {
      throw UserError.fail("operator \"" + operatorId + "\": publication \"" + publication
          + "\" does not exist (dropped while the job was away?), so the changes of table \"" + wanted
          + "\" cannot be read: start the job fresh");
    }
    String publishes;
    if (published.isEmpty()) {
      publishes = "it publishes no table";
    } else {
      List<String> shown = published.subList(0, Math.min(5, published.size()));
      int more = published.size() - shown.size();
      publishes = "it publishes " + String.join(", ", shown) + (more > 0 ? " and " + more + " more" : "");
    }
    throw UserError.fail("operator \"" + operatorId + "\": publication \"" + publication + "\" does not publish table \""
        + wanted + "\" (" + publishes + "): name a publication that does, or add the table to it (ALTER PUBLICATION "
        + quoteIdent(publication) + " ADD TABLE " + table.qualified() + ")");
  }

  /** Drops a slot of that name left by a fresh start that crashed before its first checkpoint. */
  static void dropLeftoverSlot(Connection c, String slot) throws SQLException {
    try (PreparedStatement st = c.prepareStatement(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = ?")) {
      st.setString(1, slot);
      st.execute();
    }
  }

  /** The line for a server error no retry mends, if it is one (tableSetup.ts setupProblem). */
  static String setupProblem(SQLException e, String operatorId, String slot) {
    String code = e.getSQLState() == null ? "" : e.getSQLState();
    String message = PgWrites.describeCause(e);
    String op = "operator \"" + operatorId + "\": ";
    return switch (code) {
      case "28P01", "28000" -> op + "the server refused the login: " + message;
      case "3D000" -> op + message;
      case "42501" -> message.toLowerCase().contains("replication")
          ? op + "its user may not read changes (" + message + "): grant it REPLICATION (ALTER ROLE ... REPLICATION)"
          : null;
      case "42704" -> message.contains("slot")
          ? op + "replication slot \"" + slot + "\" is gone (dropped while the job was away), so the changes since its checkpoint cannot be read: start the job fresh"
          : null;
      case "53400" -> op + "the server has no free replication slot (max_replication_slots): " + message;
      default -> null;
    };
  }
}
