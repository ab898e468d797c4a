package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptionsInternal;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The loop's control source in a real job on a MiniCluster (2 slots): LoopControlSource at
 * parallelism 2 feeds a stand-in head per subtask, whose first input is a small bounded source.
 * Once that input ended, the stand-in posts a report at each snapshot (as a head does at the
 * tail's sentinel) and records what it posts and hears. The job must end by itself. Tagged e2e.
 */
@Tag("e2e")
class LoopControlEndToEndTest {
  private static final String LOOP = "owners";
  private static final int PARALLELISM = 2;
  private static final int RECORDS = 30;
  /** Records the source may emit per completed checkpoint: its input spans a few checkpoints. */
  private static final int PER_CHECKPOINT = 10;
  /** What each stand-in head did, by job then subtask, in order. */
  private static final Map<JobID, List<List<String>>> LOGS = new ConcurrentHashMap<>();

  static final class Count implements GeneratorFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long i) {
      return i;
    }
  }

  /**
   * A head without a loop body: AWAITING once input 1 ended, TOLD once TELL came, and done when
   * input 2 (the control input) ended. Subtask 1 reports its first `busyReports` reports with one
   * record logged, as a head does when records were in flight round the loop at the cut.
   */
  static final class StandInHead extends AbstractStreamOperator<Void>
      implements TwoInputStreamOperator<Long, LoopSignal, Void>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;

    private final int busyReports;
    private transient LoopReports reports;
    private transient List<String> log;
    private transient boolean awaiting;
    private transient boolean told;
    private transient boolean controlEnded;
    private transient int busyLeft;

    StandInHead(int busyReports) {
      this.busyReports = busyReports;
    }

    @Override
    public void open() throws Exception {
      super.open();
      JobID job = getRuntimeContext().getJobInfo().getJobId();
      int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
      reports = LoopReports.of(job, LOOP, subtask, getRuntimeContext().getTaskInfo().getAttemptNumber());
      log = LOGS.get(job).get(subtask);
      busyLeft = subtask == 1 ? busyReports : 0;
    }

    @Override
    public void processElement1(StreamRecord<Long> element) {}

    @Override
    public void processElement2(StreamRecord<LoopSignal> element) {
      assertEquals(LoopSignal.TELL, element.getValue());
      told = true;
      log.add("TELL");
    }

    @Override
    public void endInput(int inputId) {
      if (inputId == 1) awaiting = true;
      else controlEnded = true;
      log.add("end " + inputId);
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
      super.snapshotState(context);
      if (!awaiting || controlEnded) return;
      long logged = busyLeft > 0 ? 1 : 0;
      if (busyLeft > 0) busyLeft--;
      LoopEnding.HeadPhase phase = told ? LoopEnding.HeadPhase.TOLD : LoopEnding.HeadPhase.AWAITING;
      log.add("report " + phase + " " + logged);
      reports.post(new LoopReports.Report(context.getCheckpointId(), phase, logged));
    }
  }

  /** Runs the job to its end (it must end by itself) and returns each subtask's log. */
  private static List<List<String>> run(int busyReports) throws Exception {
    JobID job = new JobID();
    List<List<String>> logs = new ArrayList<>();
    for (int j = 0; j < PARALLELISM; j++) logs.add(Collections.synchronizedList(new ArrayList<>()));
    LOGS.put(job, logs);
    Configuration conf = new Configuration();
    conf.setString("taskmanager.numberOfTaskSlots", "2");
    conf.setString("execution.checkpointing.interval", "100 ms");
    conf.setString("restart-strategy.type", "none");
    conf.set(PipelineOptionsInternal.PIPELINE_FIXED_JOB_ID, job.toHexString());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(PARALLELISM, conf);
    DataGeneratorSource<Long> regular = new DataGeneratorSource<>(new Count(), RECORDS,
        RateLimiterStrategy.perCheckpoint(PER_CHECKPOINT), Types.LONG);
    // One source task ends both heads' regular inputs at the same moment, so both are AWAITING
    // from the same cut on and only the logged count can hold TELL back.
    env.fromSource(regular, WatermarkStrategy.noWatermarks(), "regular")
        .setParallelism(1)
        .rebalance()
        .connect(env.fromSource(new LoopControlSource(LOOP), WatermarkStrategy.noWatermarks(), "control")
            .setParallelism(PARALLELISM))
        .transform("head", Types.VOID, new StandInHead(busyReports))
        .setParallelism(PARALLELISM);
    env.executeAsync("loop-control-test").getJobExecutionResult().get(2, TimeUnit.MINUTES);
    for (int j = 0; j < PARALLELISM; j++) {
      assertFalse(LoopReports.registered(job, LOOP, j, 0), "reader " + j + "'s close removed its box");
    }
    LOGS.remove(job);
    return logs;
  }

  /** Subtask j's log: TELL once, after input 1 ended and before the control input ended. */
  private static void assertToldThenClosed(List<String> log, int j) {
    assertEquals(1, Collections.frequency(log, "TELL"), "subtask " + j + ": " + log);
    int tell = log.indexOf("TELL");
    assertTrue(log.indexOf("end 1") < tell, "subtask " + j + " was told after its input ended: " + log);
    assertEquals("end 2", log.get(log.size() - 1), "subtask " + j + " ended with the control input: " + log);
    // CLOSE needs a cut where every head was TOLD and logged nothing: this head reported one.
    assertTrue(log.subList(tell, log.size()).contains("report TOLD 0"), "subtask " + j + ": " + log);
  }

  @Test
  void theJobEndsByItselfEachHeadToldBeforeItsControlInputEnds() throws Exception {
    List<List<String>> logs = run(0);
    for (int j = 0; j < PARALLELISM; j++) {
      List<String> log = logs.get(j);
      assertToldThenClosed(log, j);
      assertTrue(log.subList(0, log.indexOf("TELL")).contains("report AWAITING 0"),
          "subtask " + j + " reported a quiet cut before TELL: " + log);
    }
  }

  @Test
  void aRecordLoggedAtTheCutDelaysTellToALaterCut() throws Exception {
    int busy = 2;
    List<List<String>> logs = run(busy);
    for (int j = 0; j < PARALLELISM; j++) assertToldThenClosed(logs.get(j), j);
    // TELL was decided on a cut with subtask 1's report, so that report was posted before TELL
    // reached it: it must be one after the busy ones, with nothing logged.
    List<String> log = logs.get(1);
    List<String> beforeTell = log.subList(0, log.indexOf("TELL"));
    assertEquals(busy, Collections.frequency(beforeTell, "report AWAITING 1"), log.toString());
    assertTrue(beforeTell.contains("report AWAITING 0"), "subtask 1 was told only after a quiet cut: " + log);
    assertTrue(beforeTell.lastIndexOf("report AWAITING 1") < beforeTell.indexOf("report AWAITING 0"),
        log.toString());
  }
}
