package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * LoopTail in a real job on a MiniCluster (2 slots): a generated source of EdgeRecords, keyed by
 * a field, into LoopTail at parallelism 2. A stand-in head per subtask, registered on the queues
 * before the job starts (its id is fixed through Flink's own option), takes what arrives on a
 * thread of its own, as the head's mailbox would. Tagged e2e.
 */
@Tag("e2e")
class LoopTailEndToEndTest {
  private static final String HEAD = "owners";
  private static final String[] EDGE_IDS = {"back-a", "back-b"};
  private static final int RECORDS = 300;
  /** Records the source may emit per completed checkpoint: the job needs several to finish. */
  private static final int PER_CHECKPOINT = 50;
  private static final int KEYS = 10;
  private static final int MAX_PARALLELISM = 128;
  private static final int PARALLELISM = 2;

  /** Record i: edge i % 2, key "k" + i % KEYS, text "key:i". */
  static final class Generate implements GeneratorFunction<Long, EdgeRecord> {
    private static final long serialVersionUID = 1L;

    @Override
    public EdgeRecord map(Long i) {
      return new EdgeRecord((int) (i % 2), "k" + (i % KEYS) + ":" + i);
    }
  }

  static final class KeyOf implements KeySelector<EdgeRecord, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(EdgeRecord r) {
      return r.text.substring(0, r.text.indexOf(':'));
    }
  }

  private static long index(String text) {
    return Long.parseLong(text.substring(text.indexOf(':') + 1));
  }

  /** The job with a fixed id; `heads` says whether stand-in heads register on its queues. */
  private static JobClient start(JobID job, boolean heads, List<List<LoopQueue.Item>> taken,
      List<ExecutorService> mailboxes) throws Exception {
    Configuration conf = new Configuration();
    conf.setString("taskmanager.numberOfTaskSlots", "2");
    conf.setString("execution.checkpointing.interval", "100 ms");
    conf.setString("restart-strategy.type", "none");
    conf.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, job.toHexString());
    if (heads) {
      for (int j = 0; j < PARALLELISM; j++) {
        List<LoopQueue.Item> items = Collections.synchronizedList(new ArrayList<>());
        ExecutorService mailbox = Executors.newSingleThreadExecutor();
        LoopQueue queue = LoopQueue.of(job, HEAD, j, 0);
        queue.register(() -> mailbox.execute(() -> {
          try {
            queue.drainTo(items::add);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        }));
        taken.add(items);
        mailboxes.add(mailbox);
      }
    }
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(PARALLELISM, conf);
    env.setMaxParallelism(MAX_PARALLELISM);
    DataGeneratorSource<EdgeRecord> source = new DataGeneratorSource<>(new Generate(), RECORDS,
        RateLimiterStrategy.perCheckpoint(PER_CHECKPOINT), TypeInformation.of(EdgeRecord.class));
    env.fromSource(source, WatermarkStrategy.<EdgeRecord>noWatermarks()
            .withTimestampAssigner((r, t) -> 1000 + index(r.text)), "source")
        .setParallelism(1)
        .keyBy(new KeyOf())
        .transform("tail", Types.VOID, new LoopTail(HEAD, EDGE_IDS))
        .setParallelism(PARALLELISM);
    JobClient client = env.executeAsync("loop-tail-test");
    assertEquals(job, client.getJobID(), "Flink took the fixed job id");
    return client;
  }

  @Test
  void everyRecordReachesTheHeadOfItsKeyGroupOnceWithSentinelsAtTheCuts() throws Exception {
    JobID job = new JobID();
    List<List<LoopQueue.Item>> taken = new ArrayList<>();
    List<ExecutorService> mailboxes = new ArrayList<>();
    JobClient client = start(job, true, taken, mailboxes);
    client.getJobExecutionResult().get(2, TimeUnit.MINUTES);
    for (ExecutorService mailbox : mailboxes) {
      mailbox.shutdown();
      assertTrue(mailbox.awaitTermination(30, TimeUnit.SECONDS));
    }

    Map<Long, Integer> arrivals = new HashMap<>();
    for (int j = 0; j < PARALLELISM; j++) {
      assertFalse(LoopQueue.registered(job, HEAD, j, 0), "the tail's close removed queue " + j);
      int sentinels = 0;
      long lastSentinel = 0;
      for (LoopQueue.Item item : taken.get(j)) {
        if (item instanceof LoopQueue.Sentinel s) {
          assertTrue(s.checkpointId() > lastSentinel, "sentinels in checkpoint order at " + j);
          lastSentinel = s.checkpointId();
          sentinels++;
          continue;
        }
        LoopQueue.Feedback f = (LoopQueue.Feedback) item;
        long i = index(f.text());
        arrivals.merge(i, 1, Integer::sum);
        assertEquals("k" + (i % KEYS), f.key(), "the key the tail's keyBy set");
        int owner = KeyGroupRangeAssignment.assignKeyToParallelOperator(f.key(), MAX_PARALLELISM, PARALLELISM);
        assertEquals(j, owner, "record " + i + " reached the subtask owning its key group");
        assertEquals(EDGE_IDS[(int) (i % 2)], f.edgeId());
        assertTrue(f.hasTime());
        assertEquals(1000 + i, f.time());
        // Record i left the source after at least i / PER_CHECKPOINT checkpoints completed, and
        // each completed checkpoint's sentinel was put (before its barrier) ahead of it.
        assertTrue(sentinels >= i / PER_CHECKPOINT,
            "record " + i + " came after only " + sentinels + " sentinels at subtask " + j);
      }
      // The source needs RECORDS / PER_CHECKPOINT - 1 completed checkpoints to emit everything.
      assertTrue(sentinels >= RECORDS / PER_CHECKPOINT - 1, "subtask " + j + " saw " + sentinels + " sentinels");
    }
    assertEquals(RECORDS, arrivals.size(), "every record arrived");
    assertTrue(arrivals.values().stream().allMatch(n -> n == 1), "no record arrived twice");
  }

  @Test
  void aTailWhoseHeadNeverRegisteredFailsAtTheFirstBarrier() throws Exception {
    JobID job = new JobID();
    JobClient client = start(job, false, new ArrayList<>(), new ArrayList<>());
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> client.getJobExecutionResult().get(2, TimeUnit.MINUTES));
    Throwable deepest = Runner.deepest(e);
    assertInstanceOf(UserError.class, deepest);
    assertTrue(deepest.getMessage().matches(
        "loop \"owners\": subtask [01]'s head is not in this TaskManager JVM \\(co-location did not hold\\)"),
        deepest.getMessage());
  }
}
