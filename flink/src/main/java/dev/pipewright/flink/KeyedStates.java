package dev.pipewright.flink;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * The user code's state on Flink's keyed state backend (PROTOCOL.md, "State in Flink"): for state
 * name N, `ValueState<String>` "v:N", `MapState<String, String>` "m:N" (encoded map key to element
 * text) and `ListState<String>` "l:N", all JSON text. Handles are made the first time a name is
 * used (a restored run finds its state under the same names) and act on the backend's current key,
 * which the operator sets to the record's key first.
 */
final class KeyedStates {
  private final KeyedStateStore store;
  private final Map<String, ValueState<String>> values = new HashMap<>();
  private final Map<String, MapState<String, String>> maps = new HashMap<>();
  private final Map<String, ListState<String>> lists = new HashMap<>();

  KeyedStates(KeyedStateStore store) {
    this.store = store;
  }

  ValueState<String> value(String name) {
    return values.computeIfAbsent(name, n -> store.getState(new ValueStateDescriptor<>("v:" + n, Types.STRING)));
  }

  MapState<String, String> map(String name) {
    return maps.computeIfAbsent(
        name, n -> store.getMapState(new MapStateDescriptor<>("m:" + n, Types.STRING, Types.STRING)));
  }

  ListState<String> list(String name) {
    return lists.computeIfAbsent(name, n -> store.getListState(new ListStateDescriptor<>("l:" + n, Types.STRING)));
  }

  /** Applies one write of a `done` frame (after its record index), under the current key. */
  void apply(Object[] write) throws Exception {
    String op = (String) write[1];
    String name = (String) write[2];
    switch (op) {
      case "v" -> {
        String text = (String) write[3];
        if (text == null) value(name).clear();
        else value(name).update(text);
      }
      case "m" -> {
        String mapKey = (String) write[3];
        String text = (String) write[4];
        if (text == null) map(name).remove(mapKey);
        else map(name).put(mapKey, text);
      }
      case "mc" -> map(name).clear();
      case "l" -> list(name).add((String) write[3]);
      case "lc" -> list(name).clear();
      default -> throw new IOException("the worker sent a write of kind \"" + op + "\"");
    }
  }

  /** The answer to a `read` request, as a frame's JSON, under the current key. */
  String answer(String what, String name, String mapKey) throws Exception {
    StringBuilder out = new StringBuilder(64);
    switch (what) {
      case "value" -> appendText(out.append("{\"t\":\"value\",\"v\":"), value(name).value()).append('}');
      case "map" -> appendText(out.append("{\"t\":\"value\",\"v\":"), map(name).get(mapKey)).append('}');
      case "mapEntries" -> {
        out.append("{\"t\":\"entries\",\"entries\":[");
        boolean first = true;
        Iterable<Map.Entry<String, String>> entries = map(name).entries();
        if (entries != null) {
          for (Map.Entry<String, String> e : entries) {
            if (!first) out.append(',');
            first = false;
            Json.appendString(out.append('['), e.getKey()).append(',');
            appendText(out, e.getValue()).append(']');
          }
        }
        out.append("]}");
      }
      case "list" -> {
        out.append("{\"t\":\"list\",\"values\":[");
        boolean first = true;
        Iterable<String> items = list(name).get();
        if (items != null) {
          for (String item : items) {
            if (!first) out.append(',');
            first = false;
            appendText(out, item);
          }
        }
        out.append("]}");
      }
      default -> throw new IOException("the worker asked to read state of kind \"" + what + "\"");
    }
    return out.toString();
  }

  static StringBuilder appendText(StringBuilder out, String text) {
    return text == null ? out.append("null") : Json.appendString(out, text);
  }
}
