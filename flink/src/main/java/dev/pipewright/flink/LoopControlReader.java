package dev.pipewright.flink;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.RichSourceReaderContext;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/**
 * Subtask j of a loop's control input (issue 29, design note §2.2), which feeds head j. It has
 * no splits and no state. It forwards head j's reports (LoopReports, same JVM and attempt) to
 * the enumerator, emits one LoopSignal.TELL record when the enumerator decides TELL, and ends its
 * input on CLOSE, which lets the head's task finish.
 *
 * <p>A reader that hears CLOSE without having emitted TELL (a restored attempt of a loop that had
 * closed) emits TELL first: its head then starts and ends its final firing as every head did
 * before the cut; TELL is idempotent at the head.
 */
final class LoopControlReader implements SourceReader<LoopSignal, LoopControlSplit> {
  private static final CompletableFuture<Void> AVAILABLE = CompletableFuture.completedFuture(null);

  private final SourceReaderContext context;
  private final int attempt;
  private final LoopReports reports;
  /** TELL or CLOSE was heard and TELL not emitted yet by this attempt. */
  private boolean tellPending;
  private boolean told;
  private boolean closeHeard;
  /** The future last handed out by isAvailable; an enumerator event completes it to wake up. */
  private CompletableFuture<Void> waiting;

  LoopControlReader(SourceReaderContext context, String loop) {
    this.context = context;
    // The attempt and job are not in SourceReaderContext; SourceOperator's context is a
    // RichSourceReaderContext (@Experimental in Flink 2.3) whose runtime context has both.
    if (!(context instanceof RichSourceReaderContext rich)) {
      throw new IllegalStateException("loop \"" + loop + "\": the control reader needs Flink's "
          + "RichSourceReaderContext to know its job and attempt, got " + context.getClass().getName());
    }
    RuntimeContext runtime = rich.getRuntimeContext();
    this.attempt = runtime.getTaskInfo().getAttemptNumber();
    this.reports = LoopReports.of(runtime.getJobInfo().getJobId(), loop, context.getIndexOfSubtask(),
        attempt);
  }

  @Override
  public void start() {}

  @Override
  public InputStatus pollNext(ReaderOutput<LoopSignal> output) {
    for (LoopReports.Report r : reports.takeAll()) {
      context.sendSourceEventToCoordinator(new LoopControlEvents.Report(attempt, r));
    }
    if (tellPending) {
      output.collect(LoopSignal.TELL);
      tellPending = false;
      told = true;
    }
    return closeHeard ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    if (tellPending || closeHeard) return AVAILABLE;
    waiting = reports.available();
    return waiting;
  }

  @Override
  public void handleSourceEvents(SourceEvent event) {
    if (!(event instanceof LoopControlEvents.Decided decided)) {
      throw new IllegalArgumentException("loop control reader: unexpected event " + event);
    }
    if (decided.phase == LoopEnding.Phase.CLOSED) closeHeard = true;
    if (!told) tellPending = true; // TELL, or CLOSE heard before TELL was
    // Events run in the task thread while it waits on `waiting`: completing it makes Flink poll.
    if (waiting != null) waiting.complete(null);
  }

  @Override
  public List<LoopControlSplit> snapshotState(long checkpointId) {
    return List.of();
  }

  @Override
  public void addSplits(List<LoopControlSplit> splits) {
    throw new IllegalStateException("loop control reader: the enumerator assigns no splits");
  }

  @Override
  public void notifyNoMoreSplits() {}

  @Override
  public void close() {
    reports.close();
  }
}
