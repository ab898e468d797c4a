package dev.pipewright.flink;

import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.OutputTag;

/**
 * A `window` whose aggregate is the user's code (`aggregate: "code"`, PROTOCOL.md "Windows"):
 * Flink's window operator keeps each window's records (list state, appended per record, nothing
 * asked of a worker) and, each time a window fires, sends them on as one record
 * (WindowContents); a worker operator beside it (JsOperator, chained, in batches like a `map`'s)
 * folds them with the user's createAccumulator, add, merge and result, as the local engine calls
 * them, and emits the local `{key, start, end, value}`. A session's records carry their arrival
 * number and time (ArrivalOrder), so the worker replays the local engine's merges exactly.
 *
 * <p>Why not keep the accumulator in Flink state: Flink calls an AggregateFunction once per
 * record, synchronously, and a worker round trip per record is what batching exists to avoid.
 */
final class CodeWindows {
  private CodeWindows() {}

  /** The window's main output and its late records (port `late`), as text. */
  record Built(SingleOutputStreamOperator<String> out, DataStream<String> late) {}

  static Built build(Plan plan, Plan.Operator op, KeyedStream<EdgeRecord, Object> keyed,
      WindowAssigner<Object, TimeWindow> assigner, Duration lateness, boolean sessions) {
    SingleOutputStreamOperator<EdgeRecord> contents;
    DataStream<String> late;
    if (sessions) {
      OutputTag<Arrival> tag = new OutputTag<>("late:" + op.id, TypeInformation.of(Arrival.class));
      DataStream<Arrival> numbered = keyed
          .process(new ArrivalOrder(), TypeInformation.of(Arrival.class))
          .uid(op.id + "/arrival").name(op.id + ": arrival").setParallelism(op.parallelism);
      // The same keys as `keyed`, on the same subtasks: no second shuffle.
      KeyedStream<Arrival, Object> again = DataStreamUtils.reinterpretAsKeyedStream(
          numbered, new ArrivalOrder.Key(keyed.getKeySelector()), TypeInformation.of(Object.class));
      contents = again.window(assigner).allowedLateness(lateness).sideOutputLateData(tag)
          .process(new WindowContents.Sessions(), TypeInformation.of(EdgeRecord.class))
          .uid(op.id).name(op.id).setParallelism(op.parallelism);
      late = contents.getSideOutput(tag).map(new ArrivalText())
          .uid(op.id + "/late").name(op.id + ": late").setParallelism(op.parallelism);
    } else {
      OutputTag<EdgeRecord> tag = new OutputTag<>("late:" + op.id, TypeInformation.of(EdgeRecord.class));
      contents = keyed.window(assigner).allowedLateness(lateness).sideOutputLateData(tag)
          .process(new WindowContents.Records(), TypeInformation.of(EdgeRecord.class))
          .uid(op.id).name(op.id).setParallelism(op.parallelism);
      late = contents.getSideOutput(tag).map(new JobBuilder.Text())
          .uid(op.id + "/late").name(op.id + ": late").setParallelism(op.parallelism);
    }
    // The fold's one input, edge index 0: the worker sees it as ctx.input, which the fold ignores.
    String edge = op.id + "/contents";
    JsOperator fold = new JsOperator(op, new String[] {edge},
        List.of("{\"id\":" + Json.quote(edge) + ",\"partition\":\"forward\"}"), false, plan, List.of(),
        false);
    SingleOutputStreamOperator<String> out = contents
        .transform(op.id + ": aggregate", Types.STRING, fold)
        .uid(op.id + "/aggregate").name(op.id + ": aggregate").setParallelism(op.parallelism);
    return new Built(out, late);
  }

  /** A late session record's text, for the `late` port. */
  static final class ArrivalText implements MapFunction<Arrival, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String map(Arrival arrival) {
      return arrival.text;
    }
  }
}
