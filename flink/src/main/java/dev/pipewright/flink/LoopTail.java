package dev.pipewright.flink;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The end of a loop's feedback edges (issue 29, design note §1.2): subtask j hands
 * each record to head subtask j through their in-JVM {@link LoopQueue}, and has no output.
 *
 * <p>It is keyed by the feedback edges' keys, at the head's parallelism and max parallelism, so
 * its subtask j owns exactly head j's key groups, and the key Flink set for each record goes
 * with it: the head logs records by key group without reading them again. It never blocks: the
 * queue is unbounded.
 *
 * <p>Before each barrier it puts a {@link LoopQueue.Sentinel}. Flink calls
 * prepareSnapshotPreBarrier once barrier N is aligned on every input and every record before it
 * processed, so every feedback record emitted before the cut is in the queue ahead of it.
 *
 * <p>At the first barrier it checks that its head has registered on the same queue. A barrier
 * exists only once every task of the job is RUNNING (DefaultCheckpointPlanCalculator checks it),
 * which a task reaches after its operators opened, so by then a head in this JVM has registered.
 * If it has not, the head is elsewhere (co-location did not hold, or the class loader is not
 * shared) and the loop's records would vanish: fail now, in one line, rather than as checkpoints
 * that never complete.
 */
public final class LoopTail extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<EdgeRecord, Void> {
  private static final long serialVersionUID = 1L;

  /** The loop head operator's id: the queue's name. */
  private final String loop;
  /** Feedback edge ids by their index in the plan's edges (what EdgeRecord.edge holds). */
  private final String[] edgeIds;

  private transient LoopQueue queue;
  private transient int subtask;
  private transient boolean headChecked;

  public LoopTail(String loop, String[] edgeIds) {
    this.loop = loop;
    this.edgeIds = edgeIds.clone();
  }

  @Override
  public void open() throws Exception {
    super.open();
    TaskInfo task = getRuntimeContext().getTaskInfo();
    subtask = task.getIndexOfThisSubtask();
    queue = LoopQueue.of(getRuntimeContext().getJobInfo().getJobId(), loop, subtask, task.getAttemptNumber());
  }

  @Override
  public void processElement(StreamRecord<EdgeRecord> element) {
    EdgeRecord record = element.getValue();
    // The EdgeRecord may be reused upstream (object reuse); its text and the key are immutable.
    queue.put(new LoopQueue.Feedback(edgeIds[record.edge], record.text, element.hasTimestamp(),
        element.getTimestamp(), getCurrentKey()));
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    if (!headChecked) {
      if (!queue.headRegistered()) {
        throw UserError.fail("loop \"" + loop + "\": subtask " + subtask
            + "'s head is not in this TaskManager JVM (co-location did not hold)");
      }
      headChecked = true;
    }
    queue.put(new LoopQueue.Sentinel(checkpointId));
    super.prepareSnapshotPreBarrier(checkpointId);
  }

  @Override
  public void close() throws Exception {
    // On success and on failure alike: the head may still take what this subtask put.
    try {
      if (queue != null) queue.closeTail();
    } finally {
      super.close();
    }
  }
}
