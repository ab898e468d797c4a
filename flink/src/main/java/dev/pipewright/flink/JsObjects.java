package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Name–value pairs as the local engine's JavaScript object of them (Kafka headers, a Redis stream
 * entry's fields), built by assigning each in turn: a name given twice keeps its first place and
 * its last value; names that are array indices come first, in numeric order, as JavaScript orders
 * an object's keys; and `__proto__` is left out (assigning a string to it does nothing).
 */
final class JsObjects {
  private JsObjects() {}

  /** Collects pairs in order, then gives them in the object's order. */
  static final class Builder {
    private final Map<String, String> named = new LinkedHashMap<>();
    private final List<String> indices = new ArrayList<>();

    void put(String name, String value) {
      if (name == null || name.equals("__proto__")) return;
      if (!named.containsKey(name) && isArrayIndex(name)) indices.add(name);
      named.put(name, value);
    }

    Map<String, String> build() {
      if (indices.isEmpty()) return named;
      indices.sort((a, b) -> Long.compare(Long.parseLong(a), Long.parseLong(b)));
      Map<String, String> ordered = new LinkedHashMap<>();
      for (String name : indices) ordered.put(name, named.get(name));
      ordered.putAll(named);
      return ordered;
    }
  }

  /** A canonical array index: digits without a leading zero, below 2^32 - 1. */
  static boolean isArrayIndex(String name) {
    int n = name.length();
    if (n == 0 || n > 10 || (n > 1 && name.charAt(0) == '0')) return false;
    for (int i = 0; i < n; i++) if (name.charAt(i) < '0' || name.charAt(i) > '9') return false;
    return Long.parseLong(name) < 4294967295L;
  }
}
