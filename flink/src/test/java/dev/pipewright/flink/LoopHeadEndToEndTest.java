package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoopHead in a real loop on a MiniCluster, without a worker: a bounded source of records
 * {"k","i","hops"} keyed by k → LoopHead (P = 2) → a chained hop that decrements `hops` and sends
 * the record round again (side output → keyBy → LoopTail → the in-JVM queue → LoopHead) while
 * hops > 0, else to a sink. LoopHead's control input is a stand-in for the control source
 * ({@link UntilLoopEmpty}): it emits nothing and ends once the sink has every record and the final
 * watermark, so the job ends only if the head let input 1's watermark through while input 2 was
 * still open, and once a barrier is held in both tails (Gate), so the heads finish with a loop log
 * open. Every record must reach the sink exactly once, with its event time, after exactly its hops;
 * with a failure mid-loop, exactly once in the restored checkpoints' lineage (the sink's
 * checkpointed state), which needs the loop log replayed. Tagged e2e.
 */
@Tag("e2e")
class LoopHeadEndToEndTest {
  private static final String LOOP = "hop";
  /** Plan edges: 0 is the regular input, 1 the feedback edge. */
  private static final String[] FEEDBACK_EDGES = {null, "back"};
  private static final int REGULAR = 0;
  private static final int FEEDBACK = 1;
  private static final int RECORDS = 300;
  private static final int KEYS = 16;
  private static final int PARALLELISM = 2;
  private static final int MAX_PARALLELISM = 128;
  private static final OutputTag<EdgeRecord> AROUND =
      new OutputTag<>("around", TypeInformation.of(EdgeRecord.class));

  /** What the sink has in the current lineage; replaced by each attempt's restore. */
  static final class Seen {
    final Set<Long> ids = ConcurrentHashMap.newKeySet();
    volatile boolean finalWatermark;
  }

  static volatile Seen current = new Seen();
  /** Records the sink got twice in one lineage. */
  static final List<Long> DUPLICATES = Collections.synchronizedList(new ArrayList<>());
  /** Anything a function found wrong (a hop count, an edge, a time). */
  static final List<String> ERRORS = Collections.synchronizedList(new ArrayList<>());
  /** Records the hop function took (one per hop). */
  static final AtomicLong HOPS = new AtomicLong();
  /** Whether the one failure was injected. */
  static final AtomicBoolean FAILED = new AtomicBoolean();
  /** Tail subtasks holding a barrier until the heads finished (Gate). */
  static final AtomicInteger HOLDING = new AtomicInteger();
  /** Head subtasks whose finish() returned (Finished). */
  static final AtomicInteger HEADS_FINISHED = new AtomicInteger();

  /** Removed by removeDir, not JUnit: see TestDirs. */
  @TempDir(cleanup = CleanupMode.NEVER) Path dir;

  @AfterEach
  void removeDir() throws Exception {
    TestDirs.deleteWhenReleased(dir, Duration.ofSeconds(30));
  }

  @BeforeEach
  void reset() {
    current = new Seen();
    DUPLICATES.clear();
    ERRORS.clear();
    HOPS.set(0);
    FAILED.set(false);
    HOLDING.set(0);
    HEADS_FINISHED.set(0);
  }

  /** The hops record i makes round the loop: enough rounds that the loop is busy across checkpoints. */
  static int hopsOf(long i) {
    return 40 + (int) (i % 21);
  }

  static String text(long i, int hops) {
    return "{\"k\":\"k" + (i % KEYS) + "\",\"i\":" + i + ",\"hops\":" + hops + "}";
  }

  /** A field of a record's text, which this test writes in one shape: `"name":value` then `,` or `}`. */
  static String raw(String text, String name) {
    int start = text.indexOf("\"" + name + "\":") + name.length() + 3;
    int end = start;
    while (text.charAt(end) != ',' && text.charAt(end) != '}') end++;
    return text.substring(start, end);
  }

  static long field(String text, String name) {
    return Long.parseLong(raw(text, name));
  }

  static final class Generate implements GeneratorFunction<Long, EdgeRecord> {
    private static final long serialVersionUID = 1L;

    @Override
    public EdgeRecord map(Long i) {
      return new EdgeRecord(REGULAR, text(i, hopsOf(i)));
    }
  }

  /** The key of the regular and the feedback edge alike, so both reach the same head subtask. */
  static final class KeyOf implements KeySelector<EdgeRecord, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(EdgeRecord r) {
      return raw(r.text, "k");
    }
  }

  /**
   * One hop: checks what LoopHead emitted (the edge, the time, the hops left) and sends the record
   * round again or to the sink. `fail`: on attempt 0, records circulate until a checkpoint has
   * completed here, then the next loop record fails the task, once in the job, so the job restores
   * from a checkpoint taken while the loop was busy.
   */
  static final class Hop extends ProcessFunction<EdgeRecord, String> implements CheckpointListener {
    private static final long serialVersionUID = 1L;
    private final boolean fail;
    private transient int completed;

    Hop(boolean fail) {
      this.fail = fail;
    }

    @Override
    public void processElement(EdgeRecord r, Context ctx, Collector<String> out) {
      long i = field(r.text, "i");
      int hops = (int) field(r.text, "hops");
      // A record goes round at least once before it comes back by the feedback edge (more when
      // it waited for a checkpoint, below).
      int most = fail ? hopsOf(i) : hopsOf(i) - 1;
      boolean ok = r.edge == REGULAR ? hops == hopsOf(i) : r.edge == FEEDBACK && hops > 0 && hops <= most;
      if (!ok) ERRORS.add("record " + r + " on edge " + r.edge);
      if (ctx.timestamp() == null || ctx.timestamp() != 1000 + i) {
        ERRORS.add("record " + i + " at " + ctx.timestamp());
      }
      boolean firstAttempt = getRuntimeContext().getTaskInfo().getAttemptNumber() == 0;
      if (fail && firstAttempt && completed == 0) {
        // Until a checkpoint has completed, records go round without a hop: the loop cannot
        // drain before the failure, however fast this machine is.
        ctx.output(AROUND, new EdgeRecord(FEEDBACK, r.text));
        return;
      }
      if (fail && firstAttempt && r.edge == FEEDBACK && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected failure mid-loop");
      }
      HOPS.incrementAndGet();
      String next = text(i, hops - 1);
      if (hops > 1) ctx.output(AROUND, new EdgeRecord(FEEDBACK, next));
      else out.collect(next);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      completed++;
    }
  }

  /**
   * The sink: which records it has, in operator state, so a restore takes it back to what the
   * checkpoint covers. A record it has already is a duplicate in that lineage; one that never comes
   * keeps the job running (the control stand-in waits for all of them) and the test times out.
   */
  static final class Sink extends AbstractStreamOperator<Void>
      implements OneInputStreamOperator<String, Void> {
    private static final long serialVersionUID = 1L;
    private transient ListState<Long> state;
    private transient Seen seen;

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
      super.initializeState(context);
      state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("seen", Types.LONG));
      seen = new Seen();
      for (Long i : state.get()) seen.ids.add(i);
      current = seen;
    }

    @Override
    public void processElement(StreamRecord<String> element) {
      long i = field(element.getValue(), "i");
      if (field(element.getValue(), "hops") != 0) ERRORS.add("sink got " + element.getValue());
      if (!seen.ids.add(i)) DUPLICATES.add(i);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
      if (mark.getTimestamp() == Long.MAX_VALUE) seen.finalWatermark = true;
      super.processWatermark(mark);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
      super.snapshotState(context);
      state.update(new ArrayList<>(seen.ids));
    }
  }

  /** The sink has every record and the final watermark: nothing is left in the loop. */
  static boolean loopEmpty() {
    Seen seen = current;
    return seen.finalWatermark && seen.ids.size() == RECORDS;
  }

  /**
   * Ahead of LoopTail in the tail's task. Once the loop is empty, it holds the next barrier before
   * the tail's prepareSnapshotPreBarrier (a chain prepares from its head) until both heads have
   * finished: the heads took that snapshot (the barrier came through them) and its sentinel cannot
   * have come, so they finish with a log open, and the job ends only if finish() settles it.
   */
  static final class Gate extends AbstractStreamOperator<EdgeRecord>
      implements OneInputStreamOperator<EdgeRecord, EdgeRecord> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<EdgeRecord> element) {
      output.collect(element);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
      if (loopEmpty() && HEADS_FINISHED.get() < PARALLELISM) {
        HOLDING.incrementAndGet();
        while (HEADS_FINISHED.get() < PARALLELISM) Thread.sleep(1);
      }
      super.prepareSnapshotPreBarrier(checkpointId);
    }
  }

  /** Chained after the hop: its finish() runs right after the head's (a chain finishes head first). */
  static final class Finished extends AbstractStreamOperator<String>
      implements OneInputStreamOperator<String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(StreamRecord<String> element) {
      output.collect(element);
    }

    @Override
    public void finish() throws Exception {
      HEADS_FINISHED.incrementAndGet();
      super.finish();
    }
  }

  private JobClient start(boolean fail) throws Exception {
    Map<String, String> conf = new HashMap<>();
    conf.put("taskmanager.numberOfTaskSlots", String.valueOf(PARALLELISM));
    // As the runner pins them for loops (design note §3).
    conf.put("state.backend.type", "rocksdb");
    conf.put("state.backend.rocksdb.timer-service.factory", "ROCKSDB");
    conf.put("execution.checkpointing.interval", "50 ms");
    conf.put("execution.checkpointing.mode", "EXACTLY_ONCE");
    conf.put("execution.checkpointing.unaligned.enabled", "false");
    conf.put("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
    if (fail) {
      conf.put("restart-strategy.type", "fixed-delay");
      conf.put("restart-strategy.fixed-delay.attempts", "1");
      conf.put("restart-strategy.fixed-delay.delay", "10 ms");
    } else {
      conf.put("restart-strategy.type", "none");
    }
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.createLocalEnvironment(PARALLELISM, Configuration.fromMap(conf));
    env.setMaxParallelism(MAX_PARALLELISM);
    // Rounds flush often, so the loop runs many rounds within a few checkpoint intervals.
    env.setBufferTimeout(5);

    DataGeneratorSource<EdgeRecord> source =
        new DataGeneratorSource<>(new Generate(), RECORDS, TypeInformation.of(EdgeRecord.class));
    WatermarkStrategy<EdgeRecord> times = WatermarkStrategy.<EdgeRecord>forMonotonousTimestamps()
        .withTimestampAssigner((r, t) -> 1000 + field(r.text, "i"));
    DataStream<EdgeRecord> regular = env.fromSource(source, times, "source").setParallelism(1);
    // Ends once the loop is empty (event time got through the head while this input was open, or
    // the sink would lack the final watermark) and both tails hold a barrier (Gate).
    UntilLoopEmpty untilEmpty =
        new UntilLoopEmpty(() -> loopEmpty() && HOLDING.get() == PARALLELISM);
    DataStream<LoopSignal> control = env.fromSource(untilEmpty, WatermarkStrategy.noWatermarks(),
        "control", TypeInformation.of(LoopSignal.class)).setParallelism(PARALLELISM);
    SingleOutputStreamOperator<EdgeRecord> head = regular.keyBy(new KeyOf())
        .connect(control)
        .transform("head", TypeInformation.of(EdgeRecord.class), new LoopHead(LOOP, FEEDBACK_EDGES))
        .uid(LOOP + "/loop").setParallelism(PARALLELISM);
    SingleOutputStreamOperator<String> hopped =
        head.process(new Hop(fail), Types.STRING).uid("hop").setParallelism(PARALLELISM);
    SingleOutputStreamOperator<EdgeRecord> gate = hopped.getSideOutput(AROUND).keyBy(new KeyOf())
        .transform("gate", TypeInformation.of(EdgeRecord.class), new Gate())
        .uid("gate").setParallelism(PARALLELISM);
    SingleOutputStreamOperator<Void> tail = DataStreamUtils.reinterpretAsKeyedStream(gate, new KeyOf())
        .transform("tail", Types.VOID, new LoopTail(LOOP, FEEDBACK_EDGES))
        .uid(LOOP + "/loop-tail").setParallelism(PARALLELISM);
    // Flink takes a chain's co-location group from its first operator (the gate's).
    head.getTransformation().setCoLocationGroupKey("pipewright-loop/" + LOOP);
    gate.getTransformation().setCoLocationGroupKey("pipewright-loop/" + LOOP);
    tail.getTransformation().setCoLocationGroupKey("pipewright-loop/" + LOOP);
    hopped.transform("finished", Types.STRING, new Finished()).uid("finished").setParallelism(PARALLELISM)
        .transform("sink", Types.VOID, new Sink()).uid("sink").setParallelism(1);
    return env.executeAsync("loop-head-test");
  }

  /** Runs the job to its end and checks each record reached the sink once, in the final lineage. */
  private void runToTheEnd(boolean fail) throws Exception {
    JobClient client = start(fail);
    try {
      client.getJobExecutionResult().get(90, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      // A lost record keeps the control stand-in, so the job, running.
      client.cancel().get(60, TimeUnit.SECONDS);
      throw new AssertionError("the job did not end; the sink has " + current.ids.size() + " of " + RECORDS
          + " records" + (current.finalWatermark ? "" : " and no final watermark"), e);
    }
    assertEquals(List.of(), ERRORS);
    assertEquals(List.of(), DUPLICATES, "records the sink got twice");
    Set<Long> all = new HashSet<>();
    for (long i = 0; i < RECORDS; i++) all.add(i);
    assertEquals(all, new HashSet<>(current.ids));
  }

  @Test
  void everyRecordGoesRoundItsHopsAndReachesTheSinkOnce() throws Exception {
    runToTheEnd(false);
    long hops = 0;
    for (long i = 0; i < RECORDS; i++) hops += hopsOf(i);
    assertEquals(hops, HOPS.get(), "every hop once: none lost or repeated in the loop");
  }

  @Test
  void aFailureMidLoopRestoresTheLoggedRecordsExactlyOnce() throws Exception {
    runToTheEnd(true);
    assertTrue(FAILED.get(), "the failure was injected while the loop was busy");
  }
}
