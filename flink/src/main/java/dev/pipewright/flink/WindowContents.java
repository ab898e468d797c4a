package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.Comparator;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * What a window with a code aggregate sends its worker each time it fires (PROTOCOL.md,
 * "Windows"): `{"key", "start", "end", "records": [...]}`, the records in the order the window
 * took them; for sessions also `"times"`, each record's event time, so the worker can replay the
 * merges. The record texts go in as they are (they are JSON). Flink gives it the time end − 1.
 * It goes to the worker as a record of the fold's one input (edge index 0, CodeWindows).
 */
final class WindowContents {
  private WindowContents() {}

  private static StringBuilder head(Object key, TimeWindow window) {
    StringBuilder b = new StringBuilder(256);
    Keys.appendJson(b.append("{\"key\":"), key);
    return b.append(",\"start\":").append(window.getStart()).append(",\"end\":").append(window.getEnd());
  }

  /** Tumbling and sliding windows: Flink's list state keeps the records in the order added. */
  static final class Records extends ProcessWindowFunction<EdgeRecord, EdgeRecord, Object, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(Object key, Context context, Iterable<EdgeRecord> records, Collector<EdgeRecord> out) {
      StringBuilder b = head(key, context.window()).append(",\"records\":[");
      boolean first = true;
      for (EdgeRecord r : records) {
        if (!first) b.append(',');
        first = false;
        b.append(r.text);
      }
      out.collect(new EdgeRecord(0, b.append("]}").toString()));
    }
  }

  /**
   * Session windows: merging sessions' lists are joined in no set order, so the records are put
   * back in the order they came (Arrival.seq), with their times.
   */
  static final class Sessions extends ProcessWindowFunction<Arrival, EdgeRecord, Object, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(Object key, Context context, Iterable<Arrival> arrivals, Collector<EdgeRecord> out) {
      ArrayList<Arrival> sorted = new ArrayList<>();
      for (Arrival a : arrivals) sorted.add(a);
      sorted.sort(Comparator.comparingLong(a -> a.seq));
      StringBuilder b = head(key, context.window()).append(",\"records\":[");
      for (int i = 0; i < sorted.size(); i++) {
        if (i > 0) b.append(',');
        b.append(sorted.get(i).text);
      }
      b.append("],\"times\":[");
      for (int i = 0; i < sorted.size(); i++) {
        if (i > 0) b.append(',');
        b.append(sorted.get(i).ts);
      }
      out.collect(new EdgeRecord(0, b.append("]}").toString()));
    }
  }
}
