package dev.pipewright.flink;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Where a loop's feedback records enter its head operator H (issue 29, design note §1.4–§1.6):
 * subtask j passes H's regular input (input 1, keyed) straight on, and takes what tail j puts on
 * their in-JVM {@link LoopQueue}, emitting each feedback record into the chain as an
 * {@link EdgeRecord} of its feedback edge, with its time. H's worker operator is chained after it,
 * and Flink's chaining output sets the worker's key from each record, so feedback enters the
 * worker through its ordinary record path.
 *
 * <p>FLIP-16: every snapshot N opens a {@link LoopLog} in raw keyed state, holding the checkpoint's
 * asynchronous part with a lease; every feedback record taken until tail j's sentinel N (the records
 * in flight round the loop at cut N) goes into it, and the sentinel writes it and lets the checkpoint
 * complete. A restore replays the logs of the key groups this subtask now owns, before any input.
 *
 * <p>Input 2 is the loop's control source ({@link LoopSignal}): it keeps the task's input open
 * after the regular input ended, so the head goes on taking checkpoints while the loop drains
 * (design note §2.1), and its end lets the task finish. It carries no event time.
 */
public final class LoopHead extends AbstractStreamOperator<EdgeRecord>
    implements TwoInputStreamOperator<EdgeRecord, LoopSignal, EdgeRecord>, BoundedMultiInput {
  private static final long serialVersionUID = 1L;

  /** The loop head operator's id: the queue's name. */
  private final String loop;
  /** Feedback edge ids by their index in the plan's edges (what EdgeRecord.edge holds). */
  private final String[] feedbackEdgeIds;

  private transient LoopQueue queue;
  /** Where reports go to control reader j (same job, subtask and attempt). */
  private transient LoopReports reports;
  private transient LoopLogs logs;
  /** The plan's edge index of each feedback edge id, for records taken and replayed. */
  private transient Map<String, Integer> edgeIndex;
  private transient int attempt;
  private transient int maxParallelism;
  /** Where this subtask is in ending the job, and its reports. */
  private transient LoopHeadPhase phase;
  /** Set by finish(): the loop is over, and later snapshots have nothing to wait for. */
  private transient boolean finished;
  /** The StreamRecord each feedback record is emitted in: Flink's outputs do not keep it. */
  private transient StreamRecord<EdgeRecord> reuse;

  public LoopHead(String loop, String[] feedbackEdgeIds) {
    this.loop = loop;
    this.feedbackEdgeIds = feedbackEdgeIds.clone();
  }

  /**
   * A loop head writes raw keyed state of its own: Flink then refuses, instead of corrupting, a
   * checkpoint that would also put heap timers there (the runner pins RocksDB timers).
   */
  @Override
  protected boolean isUsingCustomRawKeyedState() {
    return true;
  }

  /**
   * Replays the restored logs. The chained operators after this one are already open (Flink
   * initializes and opens a chain from its tail: RegularOperatorChain#initializeStateAndOpenOperators),
   * and the task has written its recovered output channel state before that
   * (StreamTask#restoreStateAndGates), so the records can go downstream now: they come first, ahead
   * of any input and of the queue, as the local engine's restore replays its loop before its inputs.
   */
  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    TaskInfo task = getRuntimeContext().getTaskInfo();
    attempt = task.getAttemptNumber();
    maxParallelism = task.getMaxNumberOfParallelSubtasks();
    logs = new LoopLogs();
    phase = new LoopHeadPhase(attempt);
    reuse = new StreamRecord<>(null);
    edgeIndex = new HashMap<>();
    for (int i = 0; i < feedbackEdgeIds.length; i++) {
      if (feedbackEdgeIds[i] != null) edgeIndex.put(feedbackEdgeIds[i], i);
    }
    LoopLog.replay(context, (keyGroup, edgeId, text, time) -> emit(edgeIndexOf(edgeId), text, time));
  }

  /**
   * Registers as the queue's consumer: the tail's put that makes the queue non-empty posts a mail
   * that takes everything waiting (so feedback goes before the next input record, as the local
   * input gate reads feedback first). Items put before this wait for it.
   */
  @Override
  public void open() throws Exception {
    super.open();
    TaskInfo task = getRuntimeContext().getTaskInfo();
    queue = LoopQueue.of(
        getRuntimeContext().getJobInfo().getJobId(), loop, task.getIndexOfThisSubtask(), attempt);
    reports = LoopReports.of(
        getRuntimeContext().getJobInfo().getJobId(), loop, task.getIndexOfThisSubtask(), attempt);
    MailboxExecutor mailbox =
        getContainingTask().getMailboxExecutorFactory().createExecutor(getOperatorConfig().getChainIndex());
    queue.register(() -> {
      try {
        mailbox.execute(this::drainQueue, "pipewright loop feedback");
      } catch (RejectedExecutionException e) {
        // The head's task is ending and its mailbox closed: closeHead has settled (or drops) what
        // waits, so the tail's put must not fail for it.
      }
    });
  }

  @Override
  public void processElement1(StreamRecord<EdgeRecord> element) {
    output.collect(element);
  }

  /**
   * TELL (idempotent: a restored control reader repeats its decisions). The first one starts the
   * head operator's final firing (JsOperator#loopInputEnded, reached through LoopMembers), in this
   * thread, before the phase says TOLD: a snapshot taken after this call sees the firing's output.
   */
  @Override
  public void processElement2(StreamRecord<LoopSignal> element) throws Exception {
    if (element.getValue() != LoopSignal.TELL || phase.phase() == LoopHeadPhase.Phase.TOLD) return;
    TaskInfo task = getRuntimeContext().getTaskInfo();
    LoopMembers.of(getRuntimeContext().getJobInfo().getJobId(), loop, task.getIndexOfThisSubtask(), attempt)
        .loopInputEnded();
    phase.told();
  }

  /** Input 1's watermarks go on as a one-input operator's would. */
  @Override
  public void processWatermark1(Watermark mark) throws Exception {
    processWatermark(mark);
  }

  /**
   * The control input has no event time: a watermark it might carry is ignored, so it never holds
   * the head's event time back (Flink would otherwise take the least of the two inputs').
   */
  @Override
  public void processWatermark2(Watermark mark) {}

  /** Only input 1's status counts: an idle or active control input says nothing about event time. */
  @Override
  protected void processWatermarkStatus(WatermarkStatus status, int inputIndex) {
    if (inputIndex == 0) output.emitWatermarkStatus(status);
  }

  /** Input 1 (every regular input) ended: the control source may now look for a quiet cut. */
  @Override
  public void endInput(int inputId) {
    if (inputId == 1) phase.regularInputEnded();
    // Input 2 ends at CLOSE: nothing more to wait for; once both ended, Flink finishes the task.
  }

  /** Takes every item waiting on the queue, in order (the drain mail, and finish). */
  private void drainQueue() throws Exception {
    if (queue != null) queue.drainTo(this::take);
  }

  private void take(LoopQueue.Item item) throws Exception {
    if (item instanceof LoopQueue.Feedback f) {
      long time = f.hasTime() ? f.time() : LoopLog.NO_TIME;
      logs.append(f.key(), f.edgeId(), f.text(), time);
      emit(edgeIndexOf(f.edgeId()), f.text(), time);
    } else {
      long n = ((LoopQueue.Sentinel) item).checkpointId();
      // Logs below n are dropped with their checkpoints (aborted before the tail reached them).
      LoopHeadPhase.Report report = phase.settled(n, logs.sentinel(n));
      if (report != null) {
        // Reader j forwards it to the control enumerator, which judges the cut (LoopEnding).
        LoopEnding.HeadPhase at = report.phase() == LoopHeadPhase.Phase.TOLD
            ? LoopEnding.HeadPhase.TOLD : LoopEnding.HeadPhase.AWAITING;
        reports.post(new LoopReports.Report(report.checkpointId(), at, report.logged()));
      }
    }
  }

  private void emit(int edge, String text, long time) {
    reuse.replace(new EdgeRecord(edge, text));
    if (time == LoopLog.NO_TIME) reuse.eraseTimestamp();
    else reuse.setTimestamp(time);
    output.collect(reuse);
  }

  private int edgeIndexOf(String edgeId) {
    Integer index = edgeIndex.get(edgeId);
    if (index == null) {
      // A savepoint's log names an edge this plan's loop no longer has.
      throw UserError.fail("loop \"" + loop + "\": a record of edge \"" + edgeId
          + "\" came back to the loop, which has no such feedback edge");
    }
    return index;
  }

  /**
   * Opens log N (its lease holds the checkpoint until tail j's sentinel N). After finish() the loop
   * is known to be empty: the log is written at once, empty, and the final checkpoint waits for no
   * sentinel.
   */
  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    LoopLog log = LoopLog.open(context, maxParallelism);
    if (finished) {
      log.commit();
      return;
    }
    logs.add(log);
    phase.snapshot(context.getCheckpointId());
  }

  @Override
  public void notifyCheckpointAborted(long checkpointId) throws Exception {
    // The abort's cancellation waits for this log's lease in the task's thread pool; release it.
    logs.aborted(checkpointId);
    phase.aborted(checkpointId);
    super.notifyCheckpointAborted(checkpointId);
  }

  /**
   * Both inputs ended (after CLOSE the loop is empty). What waits on the queue is taken, and every
   * log still open is written now: StreamTask#afterInvoke waits for pending checkpoints before it
   * closes the operators, so a lease left held would hold the task for good, and no sentinel comes
   * after this (the tail's puts are dropped once the head ended). A feedback record put after this
   * fails the job with the local engine's lost-record line (LoopQueue#closeHead).
   */
  @Override
  public void finish() throws Exception {
    drainQueue();
    for (long n; (n = phase.oldestOpen()) >= 0; ) take(new LoopQueue.Sentinel(n));
    finished = true;
    queue.closeHead(true);
    super.finish();
  }

  @Override
  public void close() throws Exception {
    // On success and on failure alike: no lease may outlive the operator, nor the queue the head.
    try {
      if (logs != null) logs.abortAll();
      if (queue != null) queue.closeHead(false);
    } finally {
      super.close();
    }
  }

  /**
   * Where the head is in ending the job and its newest report (LoopHeadPhase#lastReport): what the
   * control wiring sends to reader j after each sentinel.
   */
  LoopHeadPhase phase() {
    return phase;
  }
}
