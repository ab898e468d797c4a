package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Deals a source's one split as the local engine deals source.redis's and source.postgres's:
 * subtask 0 reads it and every other subtask ends at once (a stream has one order, a replication
 * slot one reader; reading with several would need the server to keep their progress, outside
 * the job's checkpoints). A split given back after a failure goes to subtask 0 again when it
 * registers. Its checkpoint is the split not dealt yet.
 */
final class SubtaskZeroEnumerator<S extends SourceSplit> implements SplitEnumerator<S, List<S>> {
  private final SplitEnumeratorContext<S> context;
  private final List<S> pending;
  /** A copy of a split for a checkpoint, which the enumerator may go on changing. */
  private final UnaryOperator<S> copy;

  SubtaskZeroEnumerator(SplitEnumeratorContext<S> context, List<S> pending, UnaryOperator<S> copy) {
    this.context = context;
    this.pending = new ArrayList<>(pending);
    this.copy = copy;
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<S> splits, int subtaskId) {
    pending.addAll(splits);
  }

  @Override
  public void addReader(int subtaskId) {
    if (subtaskId == 0 && !pending.isEmpty()) {
      for (S split : pending) context.assignSplit(split, 0);
      pending.clear();
    }
    context.signalNoMoreSplits(subtaskId);
  }

  @Override
  public List<S> snapshotState(long checkpointId) {
    List<S> copies = new ArrayList<>();
    for (S split : pending) copies.add(copy.apply(split));
    return copies;
  }

  @Override
  public void close() {}
}
