package dev.pipewright.flink;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * pgoutput's messages (protocol version 1, https://www.postgresql.org/docs/current/protocol-logicalrep-message-formats.html)
 * decoded as source.postgres reads them, with the rows as the local engine makes them
 * (engine/operators/postgres/source/changeRecord.ts over pg-logical-replication's parser): a
 * Relation is remembered by its id (its columns' names, types and key flags), an Insert, Update
 * or Delete becomes a Change of that relation with its rows as field -> JSON fragment (PgValues),
 * a Begin and a Commit give their log positions, and everything else (Truncate, Origin, Type,
 * logical messages) is Other: the local source emits nothing for it.
 */
final class PgOutput {
  /** A decoded message. */
  sealed interface Message permits Begin, Commit, Change, Other {}

  /** A transaction starts; it commits at `commitLsn`. */
  record Begin(long commitLsn) implements Message {}

  /** A transaction ends: its commit record at `commitLsn`, the log past it at `endLsn`. */
  record Commit(long commitLsn, long endLsn) implements Message {}

  /**
   * A row inserted, updated or deleted in `schema.name`. `before` is what the table's REPLICA
   * IDENTITY gives (the old row, or its key columns, or null), `after` the new row (null for a
   * delete); each field in the table's column order, as JsObjects orders an object's keys.
   */
  record Change(String op, String schema, String name, Map<String, String> before, Map<String, String> after)
      implements Message {
    /** The record's text: {"op":…,"before":…,"after":…}. */
    String text() {
      StringBuilder out = new StringBuilder(128);
      out.append("{\"op\":");
      Json.appendString(out, op);
      out.append(",\"before\":");
      appendRow(out, before);
      out.append(",\"after\":");
      appendRow(out, after);
      return out.append('}').toString();
    }
  }

  /** A message the source does nothing with (a Relation is kept by the decoder). */
  record Other(char tag) implements Message {}

  /** A relation's columns as its Relation message describes them. */
  private record Relation(String schema, String name, String[] columns, int[] types, boolean[] key) {}

  private final Map<Integer, Relation> relations = new HashMap<>();

  /** The message in `buffer` (from its position to its limit). */
  Message decode(ByteBuffer buffer) {
    char tag = (char) buffer.get();
    switch (tag) {
      case 'B' -> {
        long commitLsn = buffer.getLong();
        return new Begin(commitLsn);
      }
      case 'C' -> {
        buffer.get(); // flags, unused
        long commitLsn = buffer.getLong();
        long endLsn = buffer.getLong();
        return new Commit(commitLsn, endLsn);
      }
      case 'R' -> {
        int id = buffer.getInt();
        String schema = string(buffer);
        String name = string(buffer);
        buffer.get(); // replica identity setting, unused: the tuples say what they hold
        int n = buffer.getShort();
        String[] columns = new String[n];
        int[] types = new int[n];
        boolean[] key = new boolean[n];
        for (int i = 0; i < n; i++) {
          key[i] = (buffer.get() & 1) != 0;
          columns[i] = string(buffer);
          types[i] = buffer.getInt();
          buffer.getInt(); // type modifier
        }
        relations.put(id, new Relation(schema, name, columns, types, key));
        return new Other(tag);
      }
      case 'I' -> {
        Relation r = relation(buffer.getInt());
        expect(buffer, 'N');
        return new Change("insert", r.schema, r.name, null, tuple(buffer, r, null));
      }
      case 'U' -> {
        Relation r = relation(buffer.getInt());
        char sub = (char) buffer.get();
        Map<String, String> before = null;
        Map<String, String> after;
        if (sub == 'K') {
          before = keyTuple(buffer, r);
          expect(buffer, 'N');
          after = tuple(buffer, r, null);
        } else if (sub == 'O') {
          String[] old = fields(buffer, r, null);
          before = row(r, old);
          expect(buffer, 'N');
          after = tuple(buffer, r, old);
        } else if (sub == 'N') {
          after = tuple(buffer, r, null);
        } else {
          throw new IllegalStateException("pgoutput: an update with the unknown part '" + sub + "'");
        }
        return new Change("update", r.schema, r.name, before, after);
      }
      case 'D' -> {
        Relation r = relation(buffer.getInt());
        char sub = (char) buffer.get();
        Map<String, String> before;
        if (sub == 'K') before = keyTuple(buffer, r);
        else if (sub == 'O') before = tuple(buffer, r, null);
        else throw new IllegalStateException("pgoutput: a delete with the unknown part '" + sub + "'");
        return new Change("delete", r.schema, r.name, before, null);
      }
      default -> {
        return new Other(tag);
      }
    }
  }

  private Relation relation(int id) {
    Relation r = relations.get(id);
    // The server sends a relation's Relation message before its first change in every stream.
    if (r == null) throw new IllegalStateException("pgoutput: a change of relation " + id + " before its Relation message");
    return r;
  }

  /**
   * A key tuple ('K'): the key columns only. A column not part of the key comes as NULL, and a key
   * column cannot be NULL, so NULL is left out (as pg-logical-replication's readKeyTuple does).
   */
  private static Map<String, String> keyTuple(ByteBuffer buffer, Relation r) {
    String[] values = fields(buffer, r, null);
    JsObjects.Builder row = new JsObjects.Builder();
    for (int i = 0; i < values.length; i++) {
      if (r.key[i] && values[i] != null && !values[i].equals("null")) row.put(r.columns[i], values[i]);
    }
    return row.build();
  }

  private static Map<String, String> tuple(ByteBuffer buffer, Relation r, String[] old) {
    return row(r, fields(buffer, r, old));
  }

  /** A row without the columns that have no value (Java null: an unchanged TOAST value with no old row to take it from). */
  private static Map<String, String> row(Relation r, String[] values) {
    JsObjects.Builder row = new JsObjects.Builder();
    for (int i = 0; i < values.length; i++) if (values[i] != null) row.put(r.columns[i], values[i]);
    return row.build();
  }

  /**
   * TupleData: each column's JSON fragment ("null" for SQL NULL), Java null for an unchanged
   * TOAST value ('u'), which takes the old row's value when the update carries one.
   */
  private static String[] fields(ByteBuffer buffer, Relation r, String[] old) {
    int n = buffer.getShort();
    String[] values = new String[n];
    for (int i = 0; i < n; i++) {
      char kind = (char) buffer.get();
      int type = i < r.types.length ? r.types[i] : 0;
      switch (kind) {
        case 'n' -> values[i] = "null";
        case 'u' -> values[i] = old != null && i < old.length ? old[i] : null;
        case 't' -> {
          byte[] bytes = new byte[buffer.getInt()];
          buffer.get(bytes);
          values[i] = PgValues.json(type, new String(bytes, StandardCharsets.UTF_8));
        }
        default -> throw new IllegalStateException("pgoutput: a column of the unknown kind '" + kind + "'");
      }
    }
    return values;
  }

  private static void expect(ByteBuffer buffer, char tag) {
    char got = (char) buffer.get();
    if (got != tag) throw new IllegalStateException("pgoutput: '" + tag + "' expected, not '" + got + "'");
  }

  /** A null-terminated UTF-8 string. */
  private static String string(ByteBuffer buffer) {
    int start = buffer.position();
    int end = start;
    while (buffer.get(end) != 0) end++;
    byte[] bytes = new byte[end - start];
    buffer.get(bytes);
    buffer.get(); // the terminator
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static void appendRow(StringBuilder out, Map<String, String> row) {
    if (row == null) {
      out.append("null");
      return;
    }
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> field : row.entrySet()) {
      if (!first) out.append(',');
      first = false;
      Json.appendString(out, field.getKey()).append(':').append(field.getValue());
    }
    out.append('}');
  }
}
