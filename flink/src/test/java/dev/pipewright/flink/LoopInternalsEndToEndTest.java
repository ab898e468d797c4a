package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoopInternals against the Flink version this module builds with (design note §4's
 * "LoopInternalsTest, one per Flink version"), on a MiniCluster in this JVM, with RocksDB as the
 * runner uses it: a checkpoint waits for the loop log's lease; raw keyed state written at
 * parallelism 3 replays at 2 where each key group now lives; and RocksDB with heap timers refuses
 * an operator with custom raw keyed state. The operators tell this thread what they do through the
 * static fields below (the MiniCluster runs them in this JVM, loading them from its class path).
 */
@Tag("e2e")
class LoopInternalsEndToEndTest {
  private static final int MAX_PARALLELISM = 128;
  private static final int KEYS = 30;

  /** What the operators did, in order: "snapshot N", "commit N", "complete N". */
  static final List<String> EVENTS = Collections.synchronizedList(new ArrayList<>());
  /** Set by the test: a holding operator may now commit its open logs. */
  static volatile boolean commitAllowed;
  /** Texts logged, by checkpoint (every subtask's). */
  static final Map<Long, List<String>> LOGGED = new ConcurrentHashMap<>();
  /** "subtask keyGroup time text" of every record replayed on restore. */
  static final List<String> REPLAYED = Collections.synchronizedList(new ArrayList<>());
  /** Subtasks whose state was initialized. */
  static final AtomicInteger INITIALIZED = new AtomicInteger();

  /** Removed by removeDir, not JUnit: see TestDirs. */
  @TempDir(cleanup = CleanupMode.NEVER) Path dir;

  @AfterEach
  void removeDir() throws Exception {
    TestDirs.deleteWhenReleased(dir, Duration.ofSeconds(30));
  }

  @BeforeEach
  void reset() {
    EVENTS.clear();
    LOGGED.clear();
    REPLAYED.clear();
    INITIALIZED.set(0);
    commitAllowed = false;
  }

  /** The text logged for a key: one is over 64 KB and has a lone surrogate. */
  static String text(long key) {
    return "{\"k\":" + key + "}" + (key == 7 ? "\uD800" + "x".repeat(70_000) : "");
  }

  /**
   * A keyed test operator that uses LoopLog as a loop head will: each snapshot opens a log and
   * logs one record per key seen so far (time = key). `hold`: the log is committed by the first
   * record after the test allows it; otherwise at once. On restore it replays into REPLAYED.
   */
  static final class Logger extends AbstractStreamOperator<Void> implements OneInputStreamOperator<Long, Void> {
    private static final long serialVersionUID = 1L;
    private final boolean hold;
    private transient LoopLogs logs;
    private transient TreeSet<Long> keys;
    private transient ArrayDeque<Long> held;

    Logger(boolean hold) {
      this.hold = hold;
    }

    @Override
    protected boolean isUsingCustomRawKeyedState() {
      return true;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
      super.initializeState(context);
      logs = new LoopLogs();
      keys = new TreeSet<>();
      held = new ArrayDeque<>();
      int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
      LoopLog.replay(context,
          (group, edge, text, time) -> REPLAYED.add(subtask + " " + group + " " + time + " " + text));
      INITIALIZED.incrementAndGet();
    }

    @Override
    public void processElement(StreamRecord<Long> element) throws Exception {
      keys.add((Long) getCurrentKey());
      if (hold && commitAllowed) commitOpenLogs();
    }

    /** The sentinels of the logs held open come now, in checkpoint order. */
    private void commitOpenLogs() throws Exception {
      for (Long n; (n = held.pollFirst()) != null; ) {
        EVENTS.add("commit " + n);
        logs.sentinel(n);
      }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
      super.snapshotState(context);
      long n = context.getCheckpointId();
      EVENTS.add("snapshot " + n);
      LoopLog log = LoopLog.open(context, getRuntimeContext().getTaskInfo().getMaxNumberOfParallelSubtasks());
      logs.add(log);
      List<String> logged = LOGGED.computeIfAbsent(n, k -> Collections.synchronizedList(new ArrayList<>()));
      for (long key : keys) {
        log.append(key, "back", text(key), key);
        logged.add(text(key));
      }
      held.addLast(n);
      if (!hold || commitAllowed) commitOpenLogs();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
      super.notifyCheckpointComplete(checkpointId);
      EVENTS.add("complete " + checkpointId);
    }

    @Override
    public void close() throws Exception {
      if (logs != null) logs.abortAll();
      super.close();
    }
  }

  private Configuration conf(Map<String, String> extra) {
    Map<String, String> conf = new HashMap<>();
    conf.put("state.backend.type", "rocksdb");
    // Flink 2.3's default, pinned as the runner will pin it for loops (design note §3).
    conf.put("state.backend.rocksdb.timer-service.factory", "ROCKSDB");
    conf.put("execution.checkpointing.interval", "100 ms");
    conf.put("execution.checkpointing.mode", "EXACTLY_ONCE");
    conf.put("execution.checkpointing.dir", dir.resolve("checkpoints").toUri().toString());
    conf.put("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
    conf.put("restart-strategy.type", "none");
    conf.putAll(extra);
    return Configuration.fromMap(conf);
  }

  /** source (paced: a record per ms) -> keyBy(n % KEYS) -> Logger at `parallelism`. */
  private JobClient start(Configuration conf, int parallelism, boolean hold) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setMaxParallelism(MAX_PARALLELISM);
    env.fromSequence(0, Long.MAX_VALUE).setParallelism(1).uid("numbers")
        .map(n -> {
          Thread.sleep(1); // paced, so that barriers do not queue behind many records
          return n;
        }).returns(Types.LONG).setParallelism(1).uid("pace")
        .keyBy((KeySelector<Long, Long>) n -> n % KEYS, Types.LONG)
        .transform("logger", Types.VOID, new Logger(hold)).setParallelism(parallelism).uid("logger");
    return env.executeAsync("loop-internals-test");
  }

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!done.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what + "; events " + events());
      Thread.sleep(10);
    }
  }

  private static List<String> events() {
    synchronized (EVENTS) {
      return new ArrayList<>(EVENTS);
    }
  }

  @Test
  void aCheckpointCompletesOnlyAfterItsLoopLogIsCommitted() throws Exception {
    JobClient job = start(conf(Map.of()), 1, true);
    try {
      await("snapshot 1", () -> EVENTS.contains("snapshot 1"));
      // The log is open and records keep flowing (the task thread is not blocked). Given time, a
      // checkpoint that did not wait for the lease would complete now; this one must not.
      Thread.sleep(500);
      assertFalse(EVENTS.contains("complete 1"), "checkpoint 1 completed with its log open: " + events());
      commitAllowed = true;
      await("complete 2", () -> EVENTS.contains("complete 2"));
      List<String> events = events();
      for (long n = 1; n <= 2; n++) {
        int commit = events.indexOf("commit " + n);
        assertTrue(commit >= 0 && commit < events.indexOf("complete " + n), "checkpoint " + n + ": " + events);
      }
    } finally {
      job.cancel().get(60, TimeUnit.SECONDS);
    }
  }

  @Test
  void rawKeyedStateWrittenAtParallelismThreeReplaysAtTheKeyGroupsOwnersAtTwo() throws Exception {
    JobClient first = start(conf(Map.of()), 3, false);
    long[] full = {-1};
    try {
      await("a completed checkpoint that logged every key", () -> {
        for (var e : LOGGED.entrySet()) {
          if (e.getValue().size() == KEYS && EVENTS.contains("complete " + e.getKey())) return true;
        }
        return false;
      });
    } finally {
      first.cancel().get(60, TimeUnit.SECONDS);
    }
    // The newest completed checkpoint is retained; every checkpoint from the full one on logged
    // every key (keys seen only grow).
    Path retained;
    try (Stream<Path> files = Files.walk(dir.resolve("checkpoints"))) {
      retained = files.filter(p -> p.getFileName().toString().equals("_metadata")).map(Path::getParent)
          .max((a, b) -> Long.compare(checkpointOf(a), checkpointOf(b))).orElse(null);
    }
    assertNotNull(retained, "no retained checkpoint");
    List<String> expected = new ArrayList<>(LOGGED.get(checkpointOf(retained)));
    assertEquals(KEYS, expected.size());

    INITIALIZED.set(0);
    JobClient second = start(conf(Map.of("execution.state-recovery.path", retained.toUri().toString())), 2, false);
    try {
      await("both subtasks restored", () -> INITIALIZED.get() == 2);
    } finally {
      second.cancel().get(60, TimeUnit.SECONDS);
    }
    List<String> replayedTexts = new ArrayList<>();
    List<String> replayed;
    synchronized (REPLAYED) {
      replayed = new ArrayList<>(REPLAYED);
    }
    for (String r : replayed) {
      String[] f = r.split(" ", 4);
      long key = Long.parseLong(f[2]);
      int group = KeyGroupRangeAssignment.assignToKeyGroup(key, MAX_PARALLELISM);
      assertEquals(group, Integer.parseInt(f[1]), r);
      assertEquals(KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(MAX_PARALLELISM, 2, group),
          Integer.parseInt(f[0]), "replayed at the wrong subtask: key " + key);
      assertEquals(text(key), f[3]);
      replayedTexts.add(f[3]);
    }
    Collections.sort(expected);
    Collections.sort(replayedTexts);
    assertEquals(expected, replayedTexts);
  }

  /**
   * Why the runner pins `state.backend.rocksdb.timer-service.factory: ROCKSDB` for loops: with heap
   * timers, RocksDB snapshots timers into raw keyed state at checkpoints, and Flink refuses that for
   * an operator with raw keyed state of its own, even one without a timer (the checkpoint fails
   * before the operator's snapshotState; tolerating no failed checkpoint, the job fails with it).
   */
  @Test
  void rocksDbWithHeapTimersRefusesCustomRawKeyedState() throws Exception {
    JobClient job = start(conf(Map.of("state.backend.rocksdb.timer-service.factory", "HEAP",
        "execution.checkpointing.tolerable-failed-checkpoints", "0")), 1, false);
    Throwable failure = null;
    try {
      job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      failure = e;
    }
    assertNotNull(failure, "the job did not fail");
    assertTrue(ExceptionUtils.findThrowableWithMessage(failure,
        "Attempting to snapshot timers to raw keyed state, but this operator has custom raw keyed state")
        .isPresent(), ExceptionUtils.stringifyException(failure));
    assertFalse(events().stream().anyMatch(e -> e.startsWith("complete")), "a checkpoint completed: " + events());
  }

  private static long checkpointOf(Path chk) {
    return Long.parseLong(chk.getFileName().toString().substring("chk-".length()));
  }
}
