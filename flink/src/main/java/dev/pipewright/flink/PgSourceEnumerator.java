package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Deals source.postgres's one split as the local engine does (postgresEnumerator): subtask 0 reads
 * the table and every other subtask ends at once (a replication slot has one reader). A split
 * given back after a failure goes to subtask 0 again when it registers. Its checkpoint is the
 * split not dealt yet.
 */
final class PgSourceEnumerator implements SplitEnumerator<PgSourceSplit, List<PgSourceSplit>> {
  private final SplitEnumeratorContext<PgSourceSplit> context;
  private final List<PgSourceSplit> pending;

  PgSourceEnumerator(SplitEnumeratorContext<PgSourceSplit> context, List<PgSourceSplit> pending) {
    this.context = context;
    this.pending = new ArrayList<>(pending);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<PgSourceSplit> splits, int subtaskId) {
    pending.addAll(splits);
  }

  @Override
  public void addReader(int subtaskId) {
    if (subtaskId == 0 && !pending.isEmpty()) {
      for (PgSourceSplit split : pending) context.assignSplit(split, 0);
      pending.clear();
    }
    context.signalNoMoreSplits(subtaskId);
  }

  @Override
  public List<PgSourceSplit> snapshotState(long checkpointId) {
    List<PgSourceSplit> copy = new ArrayList<>();
    for (PgSourceSplit split : pending) copy.add(split.copy());
    return copy;
  }

  @Override
  public void close() {}
}
