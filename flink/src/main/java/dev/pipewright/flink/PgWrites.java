package dev.pipewright.flink;

import dev.pipewright.flink.PgRows.PgValue;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * A sink.postgres writer's statements on its connection, and what their failures say, as the
 * local sink says it: the server refusing the rows themselves (a data exception, class 22, or a
 * violated constraint, class 23) fails the job without restarts (the same rows would fail again)
 * with a line naming the column (rejectedValue.ts: PostgreSQL's "invalid input syntax for type
 * integer" names none, so each column's values are written alone into a scratch table of its
 * type until one fails); any other failure (the server went away) is a line Flink restarts from
 * the last checkpoint, whose replay writes the same rows again.
 */
final class PgWrites {
  private PgWrites() {}

  /** Runs `insert`; a data error becomes the local engine's UserError line. */
  static void run(Connection connection, PgStatements.Insert insert, PgTable table, String tableName,
      String operatorId) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(insert.text())) {
      List<String> parameters = insert.parameters();
      for (int i = 0; i < parameters.size(); i++) {
        // Untyped, as node-postgres sends its parameters: the cast or the column decides.
        if (parameters.get(i) == null) statement.setNull(i + 1, Types.OTHER);
        else statement.setObject(i + 1, parameters.get(i), Types.OTHER);
      }
      statement.executeUpdate();
    } catch (SQLException e) {
      if (!isDataError(e)) throw e;
      throw UserError.fail(rejected(connection, e, insert, table, tableName, operatorId));
    }
  }

  static boolean isDataError(SQLException e) {
    String state = e.getSQLState();
    return state != null && (state.startsWith("22") || state.startsWith("23"));
  }

  /** The server's own words (node-postgres's error.message), or the exception's first line. */
  static String describeCause(Throwable e) {
    if (e instanceof PSQLException p) {
      ServerErrorMessage server = p.getServerErrorMessage();
      if (server != null && server.getMessage() != null) return server.getMessage();
    }
    String text = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return text.split("\n", 2)[0].trim();
  }

  /** A failure Flink restarts from: `operator "X": ACTION in SERVER failed: CAUSE`, alone. */
  static IOException failure(String operatorId, String action, String server, Throwable e) {
    return new IOException("operator \"" + operatorId + "\": " + action + " in " + server + " failed: "
        + describeCause(e));
  }

  private static String rejected(Connection connection, SQLException error, PgStatements.Insert insert,
      PgTable table, String tableName, String operatorId) {
    String prefix = "operator \"" + operatorId + "\": table \"" + tableName + "\" ";
    String cause = describeCause(error);
    if (error.getSQLState().startsWith("23")) return prefix + "rejects a row: " + cause;
    try {
      // The failed statement left its transaction aborted: nothing more is written anyway.
      if (!connection.getAutoCommit()) connection.rollback();
      connection.setAutoCommit(false);
      for (int c = 0; c < insert.columns().size(); c++) {
        PgTable.Column column = table.columns.get(insert.columns().get(c));
        String probe = probe(connection, column, insert.columnValues().get(c));
        if (probe != null) {
          return prefix + "rejects a value of column \"" + column.name() + "\" (" + column.type() + "): " + probe;
        }
      }
    } catch (SQLException probeFailed) {
      // The probe itself could not run (the connection went): the statement's own words stand.
    }
    return prefix + "rejects a row: " + cause;
  }

  /** The server's words for the first value of `values` a column of its type refuses, or null. */
  private static String probe(Connection connection, PgTable.Column column, List<PgValue> values)
      throws SQLException {
    // Into a scratch table of the column's type, as the statement put them: the same input
    // function and length checks (a cast would cut a too long varchar instead of failing).
    StringBuilder insert = new StringBuilder("INSERT INTO pipewright_probe (v) VALUES ");
    for (int i = 0; i < values.size(); i++) insert.append(i == 0 ? "(?)" : ",(?)");
    try (Statement create = connection.createStatement()) {
      create.execute("CREATE TEMP TABLE pipewright_probe (v " + column.type() + ") ON COMMIT DROP");
      try (PreparedStatement statement = connection.prepareStatement(insert.toString())) {
        for (int i = 0; i < values.size(); i++) {
          String text = values.get(i).text();
          if (text == null) statement.setNull(i + 1, Types.OTHER);
          else statement.setObject(i + 1, text, Types.OTHER);
        }
        statement.executeUpdate();
      }
      return null;
    } catch (SQLException e) {
      if (!isDataError(e)) throw e;
      return describeCause(e);
    } finally {
      connection.rollback();
    }
  }
}
