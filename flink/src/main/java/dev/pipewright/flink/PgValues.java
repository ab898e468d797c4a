package dev.pipewright.flink;

import java.io.IOException;
import java.util.regex.Pattern;

/**
 * A column's value as source.postgres's record field, from the text PostgreSQL gives for it, by
 * the local engine's rules (engine/operators/postgres/source/pgValues.ts), as a JSON fragment:
 * numbers where a JavaScript number is exact (int2, int4, oid, float4, float8, written as
 * JavaScript writes them; NaN and ±Infinity stay the server's words), int8 and numeric as
 * strings, booleans, json/jsonb as JSON.stringify writes JSON.parse's value, timestamps as ISO 8601 strings ("Z" for a
 * timestamptz: the session's TimeZone is UTC), everything else as the server's text. The
 * snapshot's rows and the replication stream's tuples both come through here, so a row reads the
 * same either way.
 */
final class PgValues {
  static final int BOOL = 16;
  static final int INT2 = 21;
  static final int INT4 = 23;
  static final int OID = 26;
  static final int JSON = 114;
  static final int FLOAT4 = 700;
  static final int FLOAT8 = 701;
  static final int TIMESTAMP = 1114;
  static final int TIMESTAMPTZ = 1184;
  static final int JSONB = 3802;

  /** Settings that make the server's text forms the ones read here (pgValues.ts SESSION_OPTIONS). */
  static final String[] SESSION_SETTINGS = {"SET TimeZone = 'UTC'", "SET DateStyle = 'ISO'", "SET extra_float_digits = 1"};

  private static final Pattern TIMESTAMP_TEXT = Pattern.compile("^\\d{4,}-\\d\\d-\\d\\d \\d.*", Pattern.DOTALL);
  private static final Pattern UTC_OFFSET = Pattern.compile("\\+00(:00)?$");

  private PgValues() {}

  /** The JSON fragment of the value whose type is `typeOid` and whose text is `text` (null: SQL NULL). */
  static String json(int typeOid, String text) {
    if (text == null) return "null";
    switch (typeOid) {
      case INT2, INT4, OID, FLOAT4, FLOAT8 -> {
        return number(text);
      }
      case BOOL -> {
        return text.equals("t") || text.equals("true") ? "true" : "false";
      }
      case JSON, JSONB -> {
        try {
          // The local record holds JSON.parse's value, which a sink writes as JSON.stringify does:
          // numbers as JavaScript writes them (2.50 is 2.5), keys in JavaScript's order.
          return PgRows.JsJson.stringify(Json.MAPPER.readTree(text));
        } catch (IOException e) {
          // The server checked it on the way in: nothing it keeps as json fails to parse.
          return Json.quote(text);
        }
      }
      case TIMESTAMP -> {
        return Json.quote(timestamp(text));
      }
      case TIMESTAMPTZ -> {
        String local = timestamp(text);
        return Json.quote(local.equals(text) ? text : UTC_OFFSET.matcher(local).replaceFirst("Z"));
      }
      default -> {
        return Json.quote(text);
      }
    }
  }

  /** JavaScript's Number(text) written as JSON; not finite (NaN, Infinity): the text, as a string. */
  private static String number(String text) {
    double d;
    try {
      d = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      // "NaN", "Infinity" and "-Infinity" parse; nothing else the server writes for these types fails.
      return Json.quote(text);
    }
    if (Double.isNaN(d) || Double.isInfinite(d)) return Json.quote(text);
    return JsNumbers.append(new StringBuilder(), d).toString();
  }

  /** "2024-01-02 03:04:05.123456" as "2024-01-02T03:04:05.123456"; infinity and BC dates stay text. */
  private static String timestamp(String text) {
    if (!TIMESTAMP_TEXT.matcher(text).matches()) return text;
    int space = text.indexOf(' ');
    return text.substring(0, space) + 'T' + text.substring(space + 1);
  }
}
