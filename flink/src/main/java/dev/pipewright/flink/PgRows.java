package dev.pipewright.flink;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * A record as a row, as the local sink makes it (engine/operators/postgres/sink/sinkRow.ts): its
 * fields are the columns it sets, in the order JavaScript lists an object's keys; a field the
 * table has no column for is an error, not dropped. A value is what node-postgres sends for the
 * JavaScript value: a string as it is, a number as JavaScript writes it, a boolean as true or
 * false, null as NULL, an object or array as JSON.stringify's text; a json or jsonb column takes
 * every value as JSON.stringify's text (so a string is a JSON string there).
 */
final class PgRows {
  private PgRows() {}

  /**
   * A column's value as text (null: SQL NULL), and whether it was a JavaScript string: an array
   * literal quotes strings only, and an upsert batch tells the key 1 from "1" by it.
   */
  record PgValue(String text, boolean string) {
    static final PgValue NULL = new PgValue(null, false);
  }

  /** The row of `record` (its JSON text), or a UserError's line naming the operator and field. */
  static LinkedHashMap<String, PgValue> toRow(String record, PgTable table, String tableName, String operatorId)
      throws IOException {
    JsonNode value = Json.MAPPER.readTree(record);
    if (!value.isObject()) {
      throw UserError.fail("operator \"" + operatorId + "\": a record for table \"" + tableName
          + "\" must be an object (its fields are the columns), not "
          + (value.isArray() ? "an array" : JsJson.stringify(value)));
    }
    LinkedHashMap<String, PgValue> row = new LinkedHashMap<>();
    for (String field : JsJson.keys(value)) {
      PgTable.Column column = table.columns.get(field);
      if (column == null) {
        throw UserError.fail("operator \"" + operatorId + "\": field \"" + field + "\" is not a column of table \""
            + tableName + "\"");
      }
      row.put(field, toValue(value.get(field), column.isJson()));
    }
    return row;
  }

  static PgValue toValue(JsonNode value, boolean json) {
    if (value == null || value.isNull()) return PgValue.NULL;
    if (json) return new PgValue(JsJson.stringify(value), true);
    if (value.isTextual()) return new PgValue(value.textValue(), true);
    if (value.isBoolean()) return new PgValue(value.booleanValue() ? "true" : "false", false);
    if (value.isNumber()) return new PgValue(numberText(value.doubleValue()), false);
    return new PgValue(JsJson.stringify(value), true);
  }

  /** String(n): JsNumbers' text, but for the infinities a huge literal reads as. */
  private static String numberText(double d) {
    if (Double.isInfinite(d)) return d > 0 ? "Infinity" : "-Infinity";
    return JsNumbers.append(new StringBuilder(), d).toString();
  }

  /**
   * The key of an upsert row, equal for rows of one key: with one key column its value, with more
   * the list of them (the local engine's JSON text of them tells apart what a list does). A
   * UserError's line when a key column is missing or null.
   */
  static Object keyOf(Map<String, PgValue> row, List<String> keyColumns, String tableName, String operatorId) {
    if (keyColumns.size() == 1) return keyValue(row, keyColumns.get(0), tableName, operatorId);
    List<PgValue> values = new ArrayList<>(keyColumns.size());
    for (String key : keyColumns) values.add(keyValue(row, key, tableName, operatorId));
    return values;
  }

  private static PgValue keyValue(Map<String, PgValue> row, String key, String tableName, String operatorId) {
    PgValue value = row.get(key);
    if (value == null || value.text() == null) {
      throw UserError.fail("operator \"" + operatorId + "\": a record for table \"" + tableName + "\" has "
          + (value == null ? "no" : "a null") + " key column \"" + key + "\"");
    }
    return value;
  }

  /** JSON.stringify of a parsed JSON value, and an object's keys in JavaScript's order. */
  static final class JsJson {
    private JsJson() {}

    static String stringify(JsonNode value) {
      return append(new StringBuilder(), value).toString();
    }

    /** Array-index names ("0" to "4294967294") first, in numeric order, then the rest in order. */
    static List<String> keys(JsonNode object) {
      List<String> indexes = new ArrayList<>();
      List<String> names = new ArrayList<>();
      for (Iterator<String> it = object.fieldNames(); it.hasNext();) {
        String name = it.next();
        (isArrayIndex(name) ? indexes : names).add(name);
      }
      if (indexes.isEmpty()) return names;
      indexes.sort((a, b) -> Long.compare(Long.parseLong(a), Long.parseLong(b)));
      indexes.addAll(names);
      return indexes;
    }

    private static boolean isArrayIndex(String name) {
      if (name.isEmpty() || name.length() > 10) return false;
      for (int i = 0; i < name.length(); i++) if (name.charAt(i) < '0' || name.charAt(i) > '9') return false;
      if (name.length() > 1 && name.charAt(0) == '0') return false;
      return Long.parseLong(name) < 4294967295L;
    }

    private static StringBuilder append(StringBuilder out, JsonNode value) {
      if (value.isObject()) {
        out.append('{');
        boolean first = true;
        for (String key : keys(value)) {
          if (!first) out.append(',');
          first = false;
          Json.appendString(out, key).append(':');
          append(out, value.get(key));
        }
        return out.append('}');
      }
      if (value.isArray()) {
        out.append('[');
        for (int i = 0; i < value.size(); i++) {
          if (i > 0) out.append(',');
          append(out, value.get(i));
        }
        return out.append(']');
      }
      if (value.isTextual()) return Json.appendString(out, value.textValue());
      if (value.isNumber()) return JsNumbers.append(out, value.doubleValue());
      if (value.isBoolean()) return out.append(value.booleanValue());
      return out.append("null");
    }
  }
}
