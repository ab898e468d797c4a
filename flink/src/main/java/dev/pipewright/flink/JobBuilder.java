package dev.pipewright.flink;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.OutputTag;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * Builds the DataStream job of a plan. Each operator's uid and name are its id (so state finds
 * its operator again across runs), with its own parallelism. Records between operators are JSON
 * text; into an operator, each input edge's stream is tagged with the edge (EdgeRecord),
 * partitioned as the edge says, and the edges are unioned. Operators whose inputs are hash edges
 * are keyed by EdgeKeySelector. The small maps this adds have uids `edge/ID` and `ID/text`: a
 * `/` is in no operator id, so they never collide with one.
 *
 * <p>A loop head H (the target of feedback edges; docs/flink-loops-design.md §1.1) gets three more
 * operators at its parallelism, co-located subtask by subtask: its control source (`H/loop-control`),
 * LoopHead (`H/loop`, H's worker operator chained after it) and LoopTail (`H/loop-tail`), which the
 * feedback edges go into and which hands their records to LoopHead through an in-JVM queue, so
 * Flink's graph has no cycle.
 */
final class JobBuilder {
  private final Plan plan;
  private final StreamExecutionEnvironment env;
  /** Each built operator's main output (its `out` port). */
  private final Map<String, SingleOutputStreamOperator<String>> built = new HashMap<>();
  /** Ports whose stream is not a side output of PortOutputs.tag's (a window's `late`), by "id/port". */
  private final Map<String, DataStream<String>> sideOutputs = new HashMap<>();

  JobBuilder(Plan plan, StreamExecutionEnvironment env) {
    this.plan = plan;
    this.env = env;
  }

  void build() throws IOException {
    List<Plan.Operator> order = topologicalOrder();
    for (Plan.Operator op : order) {
      switch (op.kind) {
        case "source.jsonl", "source.nexmark", "source.generator" -> built.put(op.id, source(op));
        case "sink.jsonl" -> sink(op);
        case "source.kafka" -> built.put(op.id, kafkaSource(op));
        case "sink.kafka" -> kafkaSink(op);
        case "source.redis" -> built.put(op.id, redisSource(op));
        case "sink.redis" -> redisSink(op);
        case "sink.postgres" -> postgresSink(op);
        case "source.postgres" -> built.put(op.id, postgresSource(op));
        case "map", "filter", "flatMap", "process" -> built.put(op.id, worker(op));
        case "window" -> built.put(op.id, window(op));
        default -> throw new IllegalArgumentException(
            "operator \"" + op.id + "\" is a " + op.kind + ", which cannot run on Flink yet");
      }
    }
    // Tails last: a feedback edge starts at an operator built after its head.
    for (Plan.Operator op : order) {
      if (!plan.feedbackInputsOf(op.id).isEmpty()) loopTail(op);
    }
  }

  /** What the loop's three operators share: Flink places their subtasks j in one slot. */
  private static String coLocation(Plan.Operator head) {
    return "pipewright-loop/" + head.id;
  }

  /**
   * Kahn's order without feedback edges (as engine/graph/plan.ts orders a job): a loop is closed by
   * LoopTail's queue, not by an edge of Flink's graph. A cycle of regular edges is the CLI's to refuse.
   */
  private List<Plan.Operator> topologicalOrder() {
    Map<String, Integer> waiting = new HashMap<>();
    for (Plan.Operator op : plan.operators) waiting.put(op.id, 0);
    for (Plan.Edge e : plan.edges) {
      if (!waiting.containsKey(e.from) || !waiting.containsKey(e.to)) {
        throw new IllegalArgumentException("plan: edge \"" + e.id + "\" joins an unknown operator");
      }
      if (!e.feedback) waiting.merge(e.to, 1, Integer::sum);
    }
    ArrayDeque<Plan.Operator> ready = new ArrayDeque<>();
    for (Plan.Operator op : plan.operators) if (waiting.get(op.id) == 0) ready.add(op);
    List<Plan.Operator> order = new ArrayList<>();
    while (!ready.isEmpty()) {
      Plan.Operator op = ready.poll();
      order.add(op);
      for (Plan.Edge e : plan.outputsOf(op.id)) {
        if (!e.feedback && waiting.merge(e.to, -1, Integer::sum) == 0) ready.add(plan.operator(e.to));
      }
    }
    if (order.size() < plan.operators.size()) {
      throw new IllegalArgumentException("plan: the job has a cycle of edges that are not feedback edges");
    }
    return order;
  }

  private SingleOutputStreamOperator<String> source(Plan.Operator op) throws IOException {
    if ("source.nexmark".equals(op.kind)) {
      // Each record comes with its time (the event's dateTime); watermarks by the local rule.
      return env.fromSource(new NexmarkSource(op, plan, op.count), SourceWatermarks.localRule(op), op.id)
          .uid(op.id).name(op.id).setParallelism(op.parallelism);
    }
    if ("source.generator".equals(op.kind)) {
      // With a timestampField, each record comes with the time the worker read from it (as the
      // local reader reads it); without one, no time and no watermarks, as locally.
      WatermarkStrategy<String> times =
          op.timestampPath == null ? WatermarkStrategy.noWatermarks() : SourceWatermarks.localRule(op);
      return env.fromSource(new NexmarkSource(op, plan, op.count), times, op.id)
          .uid(op.id).name(op.id).setParallelism(op.parallelism);
    }
    File file = new File(op.path);
    FileSource<String> source = FileSource
        .forRecordStreamFormat(new JsonlFormat(op.id, file.getName(), op.timestampPath,
            JsonlFormat.skipsBadTimestamps(op)), Path.fromLocalFile(file))
        .build();
    return env.fromSource(source, watermarks(op), op.id)
        .uid(op.id).name(op.id).setParallelism(op.parallelism);
  }

  /**
   * Event time for a source with a `timestampField`: each record's time read from it (the format
   * has checked every line has one) and watermarks by the local rule (SourceWatermarks); idle
   * after `idleTimeoutMs` without a record, as locally.
   */
  private static WatermarkStrategy<String> watermarks(Plan.Operator op) {
    return op.timestampPath == null ? WatermarkStrategy.noWatermarks() : SourceWatermarks.fromField(op);
  }

  private void sink(Plan.Operator op) {
    String dir = plan.sinkDirs.get(op.id);
    if (dir == null) throw new IllegalArgumentException("plan: no sinkDirs entry for sink \"" + op.id + "\"");
    // Part files roll on every checkpoint (so each checkpoint commits what it covers) and land
    // directly in the directory (one bucket), named to sort in writing order (PartNames); the CLI
    // joins the committed `part-*` files in name order.
    FileSink<String> sink = FileSink
        .forRowFormat(Path.fromLocalFile(new File(dir)), new LineEncoder())
        .withBucketAssigner(new BasePathBucketAssigner<>())
        .withRollingPolicy(OnCheckpointRollingPolicy.build())
        .withOutputFileConfig(new PartNames())
        .build();
    DataStream<EdgeRecord> in = inputs(op);
    // On a KeyedStream, map and transform are its own (keyed) versions.
    // Its own task (a new chain): FileSink's writes then run beside the upstream operator, not in
    // its thread, where they would add to every batch's round trip with a worker.
    DataStream<String> text = in.map(new Text()).uid(op.id + "/text").name(op.id).setParallelism(op.parallelism)
        .startNewChain();
    text.sinkTo(sink).uid(op.id).name(op.id).setParallelism(op.parallelism);
  }

  private SingleOutputStreamOperator<String> kafkaSource(Plan.Operator op) {
    KafkaSource<String> source = uncheckedIo(() -> KafkaSources.source(op, plan.jobName));
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), op.id)
        .uid(op.id).name(op.id).setParallelism(op.parallelism)
        // The local rule per subtask over all its partitions, after the source rather than given
        // to `fromSource`: there Flink would keep a watermark per partition and send their least,
        // so a slow partition would hold back what the local engine lets through, and the two
        // would call different records late.
        .assignTimestampsAndWatermarks(SourceWatermarks.fromField(op))
        .uid(op.id + "/time").name(op.id).setParallelism(op.parallelism);
  }

  private void kafkaSink(Plan.Operator op) {
    KafkaSink<String> sink = uncheckedIo(() -> KafkaSinks.sink(op, plan.jobName));
    // Its own task, as sink.jsonl's: the key's parse and the producer's sends beside the upstream
    // operator, not in its thread.
    DataStream<String> text = inputs(op).map(new Text()).uid(op.id + "/text").name(op.id)
        .setParallelism(op.parallelism).startNewChain();
    text.sinkTo(sink).uid(op.id).name(op.id).setParallelism(op.parallelism);
  }

  private SingleOutputStreamOperator<String> postgresSource(Plan.Operator op) {
    PgSource source = uncheckedIo(() -> new PgSource(op));
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), op.id)
        .uid(op.id).name(op.id).setParallelism(op.parallelism);
  }

  private SingleOutputStreamOperator<String> redisSource(Plan.Operator op) {
    RedisSource source = uncheckedIo(() -> new RedisSource(op));
    return env.fromSource(source, WatermarkStrategy.noWatermarks(), op.id)
        .uid(op.id).name(op.id).setParallelism(op.parallelism);
  }

  private void redisSink(Plan.Operator op) {
    RedisSink sink = uncheckedIo(() -> new RedisSink(op));
    // Its own task, as the other sinks'.
    DataStream<String> text = inputs(op).map(new Text()).uid(op.id + "/text").name(op.id)
        .setParallelism(op.parallelism).startNewChain();
    text.sinkTo(sink).uid(op.id).name(op.id).setParallelism(op.parallelism);
  }

  private void postgresSink(Plan.Operator op) {
    Sink<String> sink = uncheckedIo(() -> PostgresSinks.sink(op, plan.jobName));
    // Its own task, as the other sinks': the rows' conversion and the statements' round trips
    // beside the upstream operator, not in its thread.
    DataStream<String> text = inputs(op).map(new Text()).uid(op.id + "/text").name(op.id)
        .setParallelism(op.parallelism).startNewChain();
    text.sinkTo(sink).uid(op.id).name(op.id).setParallelism(op.parallelism);
  }

  private interface IoSupplier<T> {
    T get() throws IOException;
  }

  private static <T> T uncheckedIo(IoSupplier<T> supplier) {
    try {
      return supplier.get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private SingleOutputStreamOperator<String> worker(Plan.Operator op) {
    List<Plan.Edge> ins = plan.inputsOf(op.id);
    String[] edgeIds = new String[plan.edges.size()];
    List<String> inputJsons = new ArrayList<>();
    for (Plan.Edge e : ins) {
      edgeIds[plan.edges.indexOf(e)] = e.id;
      inputJsons.add(e.inputJson);
    }
    List<String> sidePorts = new ArrayList<>();
    for (Plan.Edge e : plan.outputsOf(op.id)) {
      if (!"out".equals(e.fromPort) && !sidePorts.contains(e.fromPort)) sidePorts.add(e.fromPort);
    }
    DataStream<EdgeRecord> in = inputs(op);
    boolean keyed = in instanceof KeyedStream;
    boolean loopHead = !plan.feedbackInputsOf(op.id).isEmpty();
    if (loopHead) in = loopHead(op, in);
    JsOperator operator = new JsOperator(op, edgeIds, inputJsons, keyed, plan, sidePorts, loopHead);
    return in.transform(op.id, Types.STRING, operator).uid(op.id).name(op.id).setParallelism(op.parallelism);
  }

  /**
   * H's keyed regular input, connected with its control source, into LoopHead; the result keyed
   * again (without a shuffle: reinterpretAsKeyedStream) by H's regular and feedback edges' keys, so
   * H's worker operator chains after LoopHead and takes feedback records with their keys set.
   */
  private DataStream<EdgeRecord> loopHead(Plan.Operator op, DataStream<EdgeRecord> regular) {
    if (!(regular instanceof KeyedStream<EdgeRecord, ?> keyed)) {
      // The CLI refuses it first: the loop log is written by key group.
      throw new IllegalArgumentException(
          "operator \"" + op.id + "\": a loop head's inputs must be hash edges");
    }
    String[] feedbackIds = new String[plan.edges.size()];
    Plan.Edge[] keyEdges = new Plan.Edge[plan.edges.size()];
    for (Plan.Edge e : plan.inputsOf(op.id)) {
      int index = plan.edges.indexOf(e);
      keyEdges[index] = e;
      if (e.feedback) feedbackIds[index] = e.id;
    }
    SingleOutputStreamOperator<LoopSignal> control = env
        .fromSource(new LoopControlSource(op.id), WatermarkStrategy.noWatermarks(), op.id + ": loop control")
        .uid(op.id + "/loop-control").name(op.id + ": loop control").setParallelism(op.parallelism);
    // Co-location is read on the first operator of a chain only: the source and LoopHead each start one.
    control.getTransformation().setCoLocationGroupKey(coLocation(op));
    SingleOutputStreamOperator<EdgeRecord> head = keyed.connect(control)
        .transform(op.id + ": loop", TypeInformation.of(EdgeRecord.class), new LoopHead(op.id, feedbackIds))
        .uid(op.id + "/loop").name(op.id + ": loop").setParallelism(op.parallelism);
    head.getTransformation().setCoLocationGroupKey(coLocation(op));
    return DataStreamUtils.reinterpretAsKeyedStream(head, new EdgeKeySelector(keyEdges),
        TypeInformation.of(Object.class));
  }

  /**
   * H's feedback edges, each port tagged with its edge, keyed by the edges' keys (so tail j owns
   * head j's key groups) into LoopTail, which has no output.
   */
  private void loopTail(Plan.Operator op) {
    Plan.Edge[] keyEdges = new Plan.Edge[plan.edges.size()];
    String[] feedbackIds = new String[plan.edges.size()];
    DataStream<EdgeRecord> union = null;
    for (Plan.Edge e : plan.feedbackInputsOf(op.id)) {
      int index = plan.edges.indexOf(e);
      if (!e.isHash()) {
        throw new IllegalArgumentException(
            "edge \"" + e.id + "\": a feedback edge must be a hash edge on Flink");
      }
      keyEdges[index] = e;
      feedbackIds[index] = e.id;
      DataStream<EdgeRecord> tagged = port(e).map(new Tag(index))
          .uid("edge/" + e.id).name(e.id).setParallelism(plan.operator(e.from).parallelism);
      union = union == null ? tagged : union.union(tagged);
    }
    SingleOutputStreamOperator<Void> tail = union
        .keyBy(new EdgeKeySelector(keyEdges), TypeInformation.of(Object.class))
        .transform(op.id + ": loop tail", Types.VOID, new LoopTail(op.id, feedbackIds))
        .uid(op.id + "/loop-tail").name(op.id + ": loop tail").setParallelism(op.parallelism);
    tail.getTransformation().setCoLocationGroupKey(coLocation(op));
  }

  /** The stream of edge e's port: the main output, a side output, or a window's `late`. */
  private DataStream<String> port(Plan.Edge e) {
    SingleOutputStreamOperator<String> upstream = built.get(e.from);
    if (upstream == null) throw new IllegalArgumentException("plan: edge \"" + e.id + "\" starts at a sink");
    if ("out".equals(e.fromPort)) return upstream;
    DataStream<String> side = sideOutputs.get(e.from + "/" + e.fromPort);
    return side != null ? side : upstream.getSideOutput(PortOutputs.tag(e.fromPort));
  }

  /**
   * `window` on Flink's window operator (docs/flink.md): the local kind's windows and event-time
   * trigger are Flink's (tumbling and sliding with an offset, sessions merged), its built-in
   * aggregates in Java (WindowAggregate), a code aggregate in a worker beside it (CodeWindows),
   * its output the local record (WindowResult); a record late for every window it belongs to goes
   * unchanged to port `late`.
   */
  private SingleOutputStreamOperator<String> window(Plan.Operator op) throws IOException {
    JsonNode params = Json.MAPPER.readTree(op.json).path("params");
    DataStream<EdgeRecord> in = inputs(op);
    if (!(in instanceof KeyedStream)) {
      throw new IllegalArgumentException("operator \"" + op.id + "\": a window's inputs must be hash edges");
    }
    @SuppressWarnings("unchecked")
    KeyedStream<EdgeRecord, Object> keyed = (KeyedStream<EdgeRecord, Object>) in;
    long size = params.path("sizeMs").asLong(0);
    long offset = params.path("offsetMs").asLong(0);
    WindowAssigner<Object, TimeWindow> assigner = switch (params.path("type").asText()) {
      case "tumbling" -> TumblingEventTimeWindows.of(Duration.ofMillis(size), Duration.ofMillis(offset));
      case "sliding" -> SlidingEventTimeWindows.of(
          Duration.ofMillis(size), Duration.ofMillis(params.path("slideMs").asLong()), Duration.ofMillis(offset));
      default -> EventTimeSessionWindows.withGap(Duration.ofMillis(params.path("gapMs").asLong()));
    };
    String name = params.path("aggregate").asText();
    if ("code".equals(name)) {
      CodeWindows.Built code = CodeWindows.build(plan, op, keyed, assigner,
          Duration.ofMillis(params.path("allowedLatenessMs").asLong(0)), "session".equals(params.path("type").asText()));
      sideOutputs.put(op.id + "/late", code.late());
      return code.out();
    }
    String field = params.path("field").isTextual() ? params.path("field").asText() : null;
    WindowAggregate aggregate = new WindowAggregate(op.id, name,
        "count".equals(name) || field == null ? null : field.split("\\.", -1));
    OutputTag<EdgeRecord> late = new OutputTag<>("late:" + op.id, TypeInformation.of(EdgeRecord.class));
    SingleOutputStreamOperator<String> out = keyed
        .window(assigner)
        .allowedLateness(Duration.ofMillis(params.path("allowedLatenessMs").asLong(0)))
        .sideOutputLateData(late)
        .aggregate(aggregate, new WindowResult(aggregate), TypeInformation.of(double[].class),
            TypeInformation.of(double[].class), Types.STRING)
        .uid(op.id).name(op.id).setParallelism(op.parallelism);
    sideOutputs.put(op.id + "/late", out.getSideOutput(late).map(new Text())
        .uid(op.id + "/late").name(op.id + ": late").setParallelism(op.parallelism));
    return out;
  }

  /**
   * The operator's input: its edges' streams, each tagged and partitioned, unioned; keyed when
   * they are hash edges. Hash and other edges cannot be mixed: a keyed operator needs every record
   * keyed (the CLI refuses it first; this is the runner's own guard).
   */
  private DataStream<EdgeRecord> inputs(Plan.Operator op) {
    List<Plan.Edge> ins = plan.regularInputsOf(op.id);
    if (ins.isEmpty()) throw new IllegalArgumentException("plan: operator \"" + op.id + "\" has no input edge");
    long hashes = ins.stream().filter(Plan.Edge::isHash).count();
    if (hashes > 0 && hashes < ins.size()) {
      throw new IllegalArgumentException("operator \"" + op.id
          + "\" has hash and non-hash input edges: it cannot be keyed on Flink");
    }
    Plan.Edge[] hashEdges = new Plan.Edge[plan.edges.size()];
    DataStream<EdgeRecord> union = null;
    for (Plan.Edge e : ins) {
      int index = plan.edges.indexOf(e);
      DataStream<EdgeRecord> tagged = port(e).map(new Tag(index))
          .uid("edge/" + e.id).name(e.id).setParallelism(plan.operator(e.from).parallelism);
      DataStream<EdgeRecord> partitioned = switch (e.partition) {
        case "forward" -> tagged.forward();
        case "rebalance" -> tagged.rebalance();
        case "broadcast" -> tagged.broadcast();
        case "hash" -> {
          hashEdges[index] = e;
          yield tagged;
        }
        default -> throw new IllegalArgumentException(
            "edge \"" + e.id + "\" is partitioned by " + e.partition + ", which cannot run on Flink yet");
      };
      union = union == null ? partitioned : union.union(partitioned);
    }
    if (hashes == 0) return union;
    return union.keyBy(new EdgeKeySelector(hashEdges), TypeInformation.of(Object.class));
  }

  /** Tags a record with its edge. */
  static final class Tag implements MapFunction<String, EdgeRecord> {
    private static final long serialVersionUID = 1L;
    private final int edge;

    Tag(int edge) {
      this.edge = edge;
    }

    @Override
    public EdgeRecord map(String text) {
      return new EdgeRecord(edge, text);
    }
  }

  /** A record's text again, for a sink. */
  static final class Text implements MapFunction<EdgeRecord, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String map(EdgeRecord record) {
      return record.text;
    }
  }
}
