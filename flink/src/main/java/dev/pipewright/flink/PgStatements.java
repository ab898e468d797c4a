package dev.pipewright.flink;

import dev.pipewright.flink.PgRows.PgValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rows as INSERT statements, as the local sink writes them (insertStatements.ts, which measured
 * the choice): rows that set the same columns go in one statement, one array literal per column,
 * `INSERT ... SELECT * FROM unnest(?::integer[], ?::text[], ...)`; a group with an array-typed
 * column uses VALUES (unnest would flatten its arrays). For upsert, ON CONFLICT on the key
 * columns updates the columns the rows set. Parameters are text, sent untyped as node-postgres
 * sends them, so the server reads each by the cast or the column, as it reads the local ones.
 */
final class PgStatements {
  private static final int MAX_PARAMETERS = 65_535;
  /** Rows a statement takes at most (and a writer's batch): the local sink's ROWS_PER_STATEMENT. */
  static final int ROWS_PER_STATEMENT = 5000;

  private PgStatements() {}

  /** A statement, its parameters (null: NULL), and its columns' values for a rejected-value probe. */
  record Insert(String text, List<String> parameters, List<String> columns, List<List<PgValue>> columnValues) {}

  /** The statements that write `rows`, in groups of the same columns (first seen, first written). */
  static List<Insert> inserts(PgTable table, Collection<? extends Map<String, PgValue>> rows, List<String> keyColumns) {
    Map<List<String>, List<Map<String, PgValue>>> groups = new LinkedHashMap<>();
    for (Map<String, PgValue> row : rows) {
      // Sorted by UTF-16 unit, as JavaScript's default sort orders the local signature.
      List<String> columns = new ArrayList<>(row.keySet());
      columns.sort(null);
      groups.computeIfAbsent(columns, c -> new ArrayList<>()).add(row);
    }
    List<Insert> statements = new ArrayList<>();
    for (Map.Entry<List<String>, List<Map<String, PgValue>>> group : groups.entrySet()) {
      List<String> columns = group.getKey();
      List<Map<String, PgValue>> groupRows = group.getValue();
      int perStatement = Math.max(1, Math.min(ROWS_PER_STATEMENT, MAX_PARAMETERS / Math.max(1, columns.size())));
      for (int start = 0; start < groupRows.size(); start += perStatement) {
        statements.add(statement(table, columns,
            groupRows.subList(start, Math.min(groupRows.size(), start + perStatement)), keyColumns));
      }
    }
    return statements;
  }

  private static Insert statement(PgTable table, List<String> columns, List<Map<String, PgValue>> rows,
      List<String> keyColumns) {
    List<List<PgValue>> columnValues = new ArrayList<>(columns.size());
    for (String column : columns) {
      List<PgValue> values = new ArrayList<>(rows.size());
      for (Map<String, PgValue> row : rows) values.add(row.get(column));
      columnValues.add(values);
    }
    // Arrays of the base type: a cast to varchar(6)[] would cut a longer string where the
    // insert's own assignment to the column refuses it.
    List<String> types = new ArrayList<>(columns.size());
    for (String column : columns) types.add(table.columns.get(column).base());
    StringBuilder text = new StringBuilder("INSERT INTO ").append(table.sql).append(" (");
    appendJoined(text, columns.stream().map(PgTable::quoteIdent).toList(), ",").append(") ");
    List<String> parameters = new ArrayList<>();
    if (types.stream().anyMatch(t -> t.endsWith("]"))) {
      text.append("VALUES ");
      for (int r = 0; r < rows.size(); r++) {
        if (r > 0) text.append(',');
        text.append('(');
        for (int c = 0; c < columns.size(); c++) {
          if (c > 0) text.append(',');
          text.append('?');
          parameters.add(columnValues.get(c).get(r).text());
        }
        text.append(')');
      }
    } else {
      text.append("SELECT * FROM unnest(");
      for (int c = 0; c < columns.size(); c++) {
        if (c > 0) text.append(", ");
        text.append("?::").append(types.get(c)).append("[]");
        parameters.add(arrayLiteral(columnValues.get(c)));
      }
      text.append(')');
    }
    if (keyColumns != null) {
      Set<String> keys = new HashSet<>(keyColumns);
      List<String> updated = columns.stream().filter(c -> !keys.contains(c)).toList();
      text.append(" ON CONFLICT (");
      appendJoined(text, keyColumns.stream().map(PgTable::quoteIdent).toList(), ",").append(')');
      if (updated.isEmpty()) {
        text.append(" DO NOTHING");
      } else {
        text.append(" DO UPDATE SET ");
        appendJoined(text, updated.stream()
            .map(c -> PgTable.quoteIdent(c) + " = EXCLUDED." + PgTable.quoteIdent(c)).toList(), ", ");
      }
    }
    return new Insert(text.toString(), parameters, columns, columnValues);
  }

  private static StringBuilder appendJoined(StringBuilder out, List<String> parts, String separator) {
    return out.append(String.join(separator, parts));
  }

  /**
   * A column's values as one PostgreSQL array literal, as the local arrayLiteral.ts writes it:
   * numbers and booleans bare, strings in quotes (a quote or backslash escaped), NULL for null.
   */
  static String arrayLiteral(List<PgValue> values) {
    StringBuilder out = new StringBuilder("{");
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) out.append(',');
      PgValue value = values.get(i);
      if (value.text() == null) {
        out.append("NULL");
      } else if (!value.string()) {
        out.append(value.text());
      } else {
        out.append('"');
        String s = value.text();
        for (int k = 0; k < s.length(); k++) {
          char c = s.charAt(k);
          if (c == '"' || c == '\\') out.append('\\');
          out.append(c);
        }
        out.append('"');
      }
    }
    return out.append('}').toString();
  }
}
