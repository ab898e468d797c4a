package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pipewright.flink.LoopEnding.HeadPhase;
import dev.pipewright.flink.LoopEnding.Phase;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobInfoImpl;
import org.apache.flink.api.common.TaskInfoImpl;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.RichSourceReaderContext;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;

/**
 * The control reader alone, with a stand-in for Flink's reader context: it forwards its head's
 * reports with its attempt, wakes up for the enumerator's events, emits TELL once per attempt
 * and ends on CLOSE (after TELL, if it had not emitted it).
 */
class LoopControlReaderTest {
  private static final String LOOP = "owners";
  private final JobID job = new JobID();
  private final List<SourceEvent> sent = new ArrayList<>();
  private final List<LoopSignal> emitted = new ArrayList<>();

  /** SourceOperator's context as far as the reader uses it: its subtask, job and attempt. */
  private RichSourceReaderContext context(int subtask, int attempt) {
    TaskInfoImpl task = new TaskInfoImpl("control", 128, subtask, 2, attempt);
    JobInfoImpl jobInfo = new JobInfoImpl(job, "test");
    RuntimeContext runtime = (RuntimeContext) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {RuntimeContext.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getTaskInfo" -> task;
          case "getJobInfo" -> jobInfo;
          default -> throw new UnsupportedOperationException(method.getName());
        });
    RichSourceReaderContext context = new RichSourceReaderContext() {
      @Override
      public SourceReaderMetricGroup metricGroup() {
        throw new UnsupportedOperationException();
      }

      @Override
      public Configuration getConfiguration() {
        return new Configuration();
      }

      @Override
      public String getLocalHostName() {
        return "localhost";
      }

      @Override
      public int getIndexOfSubtask() {
        return subtask;
      }

      @Override
      public void sendSplitRequest() {
        throw new UnsupportedOperationException();
      }

      @Override
      public void sendSourceEventToCoordinator(SourceEvent event) {
        sent.add(event);
      }

      @Override
      public UserCodeClassLoader getUserCodeClassLoader() {
        throw new UnsupportedOperationException();
      }
    };
    context.setRuntimeContext(runtime);
    return context;
  }

  private final ReaderOutput<LoopSignal> output = new ReaderOutput<>() {
    @Override
    public void collect(LoopSignal record) {
      emitted.add(record);
    }

    @Override
    public void collect(LoopSignal record, long timestamp) {
      emitted.add(record);
    }

    @Override
    public void emitWatermark(Watermark watermark) {}

    @Override
    public void markIdle() {}

    @Override
    public void markActive() {}

    @Override
    public SourceOutput<LoopSignal> createOutputForSplit(String splitId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void releaseOutputForSplit(String splitId) {}
  };

  @Test
  void aHeadsReportIsForwardedWithTheReadersAttemptOnceItArrives() throws Exception {
    LoopControlReader reader = new LoopControlReader(context(1, 2), LOOP);
    CompletableFuture<Void> waiting = reader.isAvailable();
    assertFalse(waiting.isDone());
    LoopReports.of(job, LOOP, 1, 2).post(new LoopReports.Report(7, HeadPhase.TOLD, 3));
    assertTrue(waiting.isDone(), "the post woke the reader");
    assertEquals(InputStatus.NOTHING_AVAILABLE, reader.pollNext(output));
    assertEquals(1, sent.size());
    LoopControlEvents.Report r = (LoopControlEvents.Report) sent.get(0);
    assertEquals(2, r.attempt);
    assertEquals(7, r.checkpointId);
    assertEquals(HeadPhase.TOLD, r.phase);
    assertEquals(3, r.logged);
    assertEquals(List.of(), emitted);
    reader.close();
    assertFalse(LoopReports.registered(job, LOOP, 1, 2));
  }

  @Test
  void tellWakesTheReaderAndIsEmittedOnceThenCloseEndsTheInput() throws Exception {
    LoopControlReader reader = new LoopControlReader(context(0, 0), LOOP);
    CompletableFuture<Void> waiting = reader.isAvailable();
    reader.handleSourceEvents(new LoopControlEvents.Decided(Phase.TOLD));
    assertTrue(waiting.isDone(), "the enumerator's event woke the reader");
    assertEquals(InputStatus.NOTHING_AVAILABLE, reader.pollNext(output));
    assertEquals(List.of(LoopSignal.TELL), emitted);
    // A TELL sent again (the enumerator tells every reader that registers) emits nothing more.
    reader.handleSourceEvents(new LoopControlEvents.Decided(Phase.TOLD));
    assertEquals(InputStatus.NOTHING_AVAILABLE, reader.pollNext(output));
    waiting = reader.isAvailable();
    assertFalse(waiting.isDone());
    reader.handleSourceEvents(new LoopControlEvents.Decided(Phase.CLOSED));
    assertTrue(waiting.isDone());
    assertEquals(InputStatus.END_OF_INPUT, reader.pollNext(output));
    assertEquals(List.of(LoopSignal.TELL), emitted);
    reader.close();
  }

  @Test
  void closeHeardBeforeTellEmitsTellThenEnds() throws Exception {
    LoopControlReader reader = new LoopControlReader(context(1, 1), LOOP);
    reader.handleSourceEvents(new LoopControlEvents.Decided(Phase.CLOSED));
    assertTrue(reader.isAvailable().isDone());
    assertEquals(InputStatus.END_OF_INPUT, reader.pollNext(output));
    assertEquals(List.of(LoopSignal.TELL), emitted);
    reader.close();
  }
}
