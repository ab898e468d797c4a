package dev.pipewright.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Deals source.nexmark's splits: split i to reader i mod the parallelism, when that reader
 * registers (again, after a failure, with the splits it gave back), then says there are no
 * more. Its checkpoint is the splits not dealt yet.
 */
final class NexmarkEnumerator implements SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> {
  private final SplitEnumeratorContext<NexmarkSplit> context;
  private final List<NexmarkSplit> pending;

  NexmarkEnumerator(SplitEnumeratorContext<NexmarkSplit> context, List<NexmarkSplit> pending) {
    this.context = context;
    this.pending = new ArrayList<>(pending);
  }

  /** A fresh job's splits: (s, p) for each subtask s of p. */
  static List<NexmarkSplit> initial(int parallelism) {
    List<NexmarkSplit> splits = new ArrayList<>();
    for (int s = 0; s < parallelism; s++) splits.add(new NexmarkSplit(s, s, parallelism));
    return splits;
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<NexmarkSplit> splits, int subtaskId) {
    pending.addAll(splits);
  }

  @Override
  public void addReader(int subtaskId) {
    int parallelism = context.currentParallelism();
    for (Iterator<NexmarkSplit> it = pending.iterator(); it.hasNext(); ) {
      NexmarkSplit split = it.next();
      if (split.id % parallelism == subtaskId) {
        context.assignSplit(split, subtaskId);
        it.remove();
      }
    }
    context.signalNoMoreSplits(subtaskId);
  }

  @Override
  public List<NexmarkSplit> snapshotState(long checkpointId) {
    List<NexmarkSplit> copy = new ArrayList<>();
    for (NexmarkSplit split : pending) copy.add(split.copy());
    return copy;
  }

  @Override
  public void close() {}

  /** The splits not dealt yet, in a checkpoint. */
  static final class StateSerializer implements SimpleVersionedSerializer<List<NexmarkSplit>> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(List<NexmarkSplit> splits) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(splits.size());
        for (NexmarkSplit split : splits) NexmarkSplit.Serializer.write(out, split);
      }
      return bytes.toByteArray();
    }

    @Override
    public List<NexmarkSplit> deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        int n = in.readInt();
        List<NexmarkSplit> splits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) splits.add(NexmarkSplit.Serializer.read(in));
        return splits;
      }
    }
  }
}
