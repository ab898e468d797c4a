package dev.pipewright.flink;

import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * The table a sink.postgres writes, as the server describes it when a writer opens (the local
 * engine's pgTable.ts, the same query): its name as SQL, its columns with their types, and the
 * column sets with a unique index. The CLI checks the same before it submits the job (with the
 * local sink's own code); a writer checks again, with the same lines, since the table may have
 * changed meanwhile.
 */
final class PgTable {
  /** A column: its type as format_type gives it ("numeric(10,2)"), and without the modifier. */
  record Column(String name, String type, String base) {
    boolean isJson() {
      return type.equals("json") || type.equals("jsonb");
    }
  }

  private static final String DESCRIBE = """
      SELECT c.oid::regclass::text AS name,
        (SELECT json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod), 'base', format_type(a.atttypid, NULL)) ORDER BY a.attnum)
           FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
        (SELECT json_agg(ARRAY(SELECT a.attname FROM unnest(i.indkey::int2[]) k JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k)::text[])
           FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL) AS unique_keys
      FROM pg_class c WHERE c.oid = to_regclass(?) AND c.relkind IN ('r', 'p')""";

  /** The table as SQL: quoted where needed, schema-qualified when not on the search path. */
  final String sql;
  final Map<String, Column> columns;
  final List<List<String>> uniqueKeys;

  PgTable(String sql, Map<String, Column> columns, List<List<String>> uniqueKeys) {
    this.sql = sql;
    this.columns = columns;
    this.uniqueKeys = uniqueKeys;
  }

  static String quoteIdent(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** The table, or a UserError's line naming the operator when it does not exist. */
  static PgTable describe(Connection connection, String table, String operatorId, String server)
      throws SQLException, IOException {
    try (PreparedStatement statement = connection.prepareStatement(DESCRIBE)) {
      statement.setString(1, table);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          throw UserError.fail("operator \"" + operatorId + "\": table \"" + table + "\" does not exist in " + server);
        }
        Map<String, Column> columns = new LinkedHashMap<>();
        String columnsJson = rs.getString("columns");
        if (columnsJson != null) {
          for (JsonNode c : Json.MAPPER.readTree(columnsJson)) {
            Column column = new Column(c.path("name").asText(), c.path("type").asText(), c.path("base").asText());
            columns.put(column.name(), column);
          }
        }
        List<List<String>> keys = new ArrayList<>();
        String keysJson = rs.getString("unique_keys");
        if (keysJson != null) {
          for (JsonNode key : Json.MAPPER.readTree(keysJson)) {
            List<String> names = new ArrayList<>();
            key.forEach(n -> names.add(n.asText()));
            keys.add(names);
          }
        }
        return new PgTable(rs.getString("name"), columns, keys);
      }
    }
  }

  /**
   * Upsert: every key column exists and the key columns are exactly a unique index's (ON CONFLICT
   * needs one to find the row); else a UserError's line saying which, as the local engine says it.
   */
  void checkKeyColumns(List<String> keyColumns, String name, String operatorId) {
    for (String key : keyColumns) {
      if (!columns.containsKey(key)) {
        throw UserError.fail("operator \"" + operatorId + "\": key column \"" + key + "\" is not a column of table \""
            + name + "\"");
      }
    }
    Set<String> wanted = new HashSet<>(keyColumns);
    boolean indexed = uniqueKeys.stream().anyMatch(k -> k.size() == wanted.size() && wanted.containsAll(k));
    if (!indexed) {
      throw UserError.fail("operator \"" + operatorId + "\": table \"" + name + "\" has no primary key or unique index on ("
          + String.join(", ", keyColumns) + "), which upsert needs (ON CONFLICT finds the row by it)");
    }
  }
}
