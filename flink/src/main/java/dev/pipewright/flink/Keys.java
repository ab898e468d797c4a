package dev.pipewright.flink;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * A hash edge's key, read from a record's JSON text and made the Java value whose hashCode
 * engine/graph/keyGroups.ts computes, so Flink puts it in the key group (and subtask) the local
 * engine does (PROTOCOL.md, "Keys"): String, Integer (int32), Long (other safe integers), Double
 * (any other number), Boolean, ArrayList (a composite key, or a key that is an array).
 *
 * <p>The path is followed with Jackson's streaming parser, skipping what is off the path: no tree
 * per record. As in JavaScript, a number is a double: 1.0 is the integer 1, -0 is 0.
 */
public final class Keys {
  /** A path's value that is absent or null: both fail as the local engine's keyExtractor does. */
  private static final Object MISSING = new Object();

  private static final double MAX_SAFE = 9007199254740991.0; // 2^53 - 1

  private Keys() {}

  /** The key of `json` on `edge` (a hash edge). Throws a restart-suppressing user error. */
  public static Object read(String json, Plan.Edge edge) {
    List<List<String>> paths = edge.keyPaths;
    if (!edge.compositeKey) return readOne(json, edge, 0);
    ArrayList<Object> key = new ArrayList<>(paths.size());
    for (int i = 0; i < paths.size(); i++) key.add(readOne(json, edge, i));
    return key;
  }

  private static Object readOne(String json, Plan.Edge edge, int which) {
    Object value;
    try {
      value = valueAt(json, edge.keyPaths.get(which));
    } catch (ObjectKey e) {
      throw UserError.fail("edge \"" + edge.id + "\" is partitioned by \"" + edge.describePath(which)
          + "\", whose value is an object: keys that are objects cannot run on Flink yet");
    } catch (IOException e) {
      // The source checked every line, and workers write JSON.stringify's text: not expected.
      throw UserError.fail("edge \"" + edge.id + "\" carried a record that is not JSON: " + e.getMessage());
    }
    if (value == MISSING) {
      throw UserError.fail("edge \"" + edge.id + "\" is partitioned by \"" + edge.describePath(which)
          + "\", but the record has no such field");
    }
    return value;
  }

  /** The Java key at `path` in `json`, or MISSING. */
  static Object valueAt(String json, List<String> path) throws IOException {
    try (JsonParser p = Json.FACTORY.createParser(json)) {
      JsonToken t = p.nextToken();
      for (String field : path) {
        if (t == JsonToken.START_OBJECT) {
          // JSON.parse keeps a repeated field's last value; the first is taken here (rare).
          boolean found = false;
          while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            boolean match = field.equals(p.currentName());
            t = p.nextToken();
            if (match) {
              found = true;
              break;
            }
            p.skipChildren();
          }
          if (!found) return MISSING;
        } else if (t == JsonToken.START_ARRAY && isIndex(field)) {
          // record[field] in JavaScript reads an array's element by its index too.
          long index = Long.parseLong(field);
          boolean found = false;
          for (long i = 0; (t = p.nextToken()) != JsonToken.END_ARRAY && t != null; i++) {
            if (i == index) {
              found = true;
              break;
            }
            p.skipChildren();
          }
          if (!found) return MISSING;
        } else {
          return MISSING;
        }
      }
      return t == JsonToken.VALUE_NULL ? MISSING : convert(p, t);
    }
  }

  private static boolean isIndex(String field) {
    int n = field.length();
    if (n == 0 || n > 15 || (n > 1 && field.charAt(0) == '0')) return false;
    for (int i = 0; i < n; i++) if (field.charAt(i) < '0' || field.charAt(i) > '9') return false;
    return true;
  }

  /** The Java value of the JSON value at the parser's current token `t`. */
  private static Object convert(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case VALUE_STRING:
        return p.getText();
      case VALUE_NUMBER_INT:
        switch (p.getNumberType()) {
          case INT:
            return p.getIntValue();
          case LONG:
            long v = p.getLongValue();
            return Math.abs((double) v) <= MAX_SAFE ? (Object) v : (Object) (double) v;
          default:
            return fromDouble(p.getDoubleValue());
        }
      case VALUE_NUMBER_FLOAT:
        return fromDouble(p.getDoubleValue());
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null; // inside an array: List.hashCode counts null as 0, as keyGroups.ts does
      case START_ARRAY:
        ArrayList<Object> list = new ArrayList<>();
        JsonToken e;
        while ((e = p.nextToken()) != JsonToken.END_ARRAY && e != null) list.add(convert(p, e));
        return list;
      case START_OBJECT:
        throw new ObjectKey();
      default:
        throw new IOException("unexpected " + t);
    }
  }

  /** A JavaScript number as the Java value keyGroups.ts hashes it as. */
  static Object fromDouble(double d) {
    if (d == Math.rint(d) && !Double.isInfinite(d)) {
      if (d >= Integer.MIN_VALUE && d <= Integer.MAX_VALUE) return (int) d; // -0.0 becomes 0
      if (Math.abs(d) <= MAX_SAFE) return (long) d;
    }
    return d;
  }

  /** Appends a key as JSON: the worker's `k`. Java's Double.toString reads back the same double. */
  public static StringBuilder appendJson(StringBuilder out, Object key) {
    if (key == null) return out.append("null");
    if (key instanceof String s) return Json.appendString(out, s);
    if (key instanceof Double d) return out.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
    if (key instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) out.append(',');
        appendJson(out, list.get(i));
      }
      return out.append(']');
    }
    return out.append(key); // Integer, Long, Boolean
  }

  /** Thrown inside the parse when the key is an object; turned into the user's message above. */
  private static final class ObjectKey extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ObjectKey() {
      super(null, null, false, false);
    }
  }
}
