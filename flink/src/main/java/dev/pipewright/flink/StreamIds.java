package dev.pipewright.flink;

import java.math.BigInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redis stream entry ids ("MS-SEQ"), as the local engine reads them (engine/operators/redis/
 * streamIds.ts): what a user may write as one (an id, or its milliseconds alone, which means
 * "MS-0"), and their order. Both parts are unsigned 64-bit numbers, so they are compared as such.
 */
final class StreamIds {
  private static final Pattern ID = Pattern.compile("^(\\d+)(?:-(\\d+))?$");

  private StreamIds() {}

  /** Whether `text` is an id a stream read can start after ("1700000000000-0", or its ms alone). */
  static boolean isStreamId(String text) {
    return text != null && ID.matcher(text).matches();
  }

  /** Negative, zero or positive as `a` comes before, at or after `b` in a stream. */
  static int compare(String a, String b) {
    BigInteger[] x = parts(a);
    BigInteger[] y = parts(b);
    int ms = x[0].compareTo(y[0]);
    return ms != 0 ? ms : x[1].compareTo(y[1]);
  }

  private static BigInteger[] parts(String id) {
    Matcher m = ID.matcher(id);
    if (!m.matches()) throw new IllegalArgumentException("\"" + id + "\" is not a stream entry id");
    return new BigInteger[] {new BigInteger(m.group(1)), new BigInteger(m.group(2) == null ? "0" : m.group(2))};
  }
}
