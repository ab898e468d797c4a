package dev.pipewright.flink;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * JSON through the Jackson Flink shades (flink-shaded-jackson), so the runner's jar needs nothing
 * beyond Flink; and the one writing helper the per-record path needs: a string as a JSON literal,
 * appended to a StringBuilder, so frames are built without a Jackson tree per record.
 */
public final class Json {
  /** Thread-safe once configured; shared. */
  public static final ObjectMapper MAPPER = new ObjectMapper();

  public static final JsonFactory FACTORY = MAPPER.getFactory();

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Json() {}

  /** Appends `s` as a JSON string literal (quotes and escapes as JSON.stringify writes them). */
  public static StringBuilder appendString(StringBuilder out, String s) {
    out.append('"');
    int n = s.length();
    int from = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\' && !Character.isSurrogate(c)) continue;
      out.append(s, from, i);
      from = i + 1;
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (Character.isSurrogate(c)) {
            // A well-formed pair goes as it is; a lone surrogate is escaped (JSON.stringify does
            // the same), since UTF-8 cannot carry it.
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
              out.append(c).append(s.charAt(i + 1));
              i++;
              from = i + 1;
              continue;
            }
          }
          out.append("\\u")
              .append(HEX[(c >> 12) & 15])
              .append(HEX[(c >> 8) & 15])
              .append(HEX[(c >> 4) & 15])
              .append(HEX[c & 15]);
        }
      }
    }
    out.append(s, from, n);
    return out.append('"');
  }

  /** `s` as a JSON string literal, or `null` for null. */
  public static String quote(String s) {
    return s == null ? "null" : appendString(new StringBuilder(s.length() + 2), s).toString();
  }
}
