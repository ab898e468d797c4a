package dev.pipewright.flink;

import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * A window's output as the local window kind emits it: `{"key", "start", "end", "value"}`, the
 * key as the record's key (an array for a composite one), the value in JavaScript's number
 * text. Flink gives it the time end − 1, as locally.
 */
final class WindowResult extends ProcessWindowFunction<double[], String, Object, TimeWindow> {
  private static final long serialVersionUID = 1L;

  private final WindowAggregate aggregate;

  WindowResult(WindowAggregate aggregate) {
    this.aggregate = aggregate;
  }

  @Override
  public void process(Object key, Context context, Iterable<double[]> accumulators, Collector<String> out) {
    TimeWindow window = context.window();
    StringBuilder b = new StringBuilder(96);
    Keys.appendJson(b.append("{\"key\":"), key);
    b.append(",\"start\":").append(window.getStart()).append(",\"end\":").append(window.getEnd());
    JsNumbers.append(b.append(",\"value\":"), aggregate.value(accumulators.iterator().next())).append('}');
    out.collect(b.toString());
  }
}
