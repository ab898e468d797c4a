package dev.pipewright.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Deals source.redis's one split as the local engine does (redisEnumerator): subtask 0 reads the
 * stream and every other subtask ends at once (a stream has one order, and reading it with
 * several readers would need consumer groups, whose acknowledgements live on the server and not
 * in the job's checkpoints). A split given back after a failure goes to subtask 0 again when it
 * registers. Its checkpoint is the split not dealt yet.
 */
final class RedisEnumerator implements SplitEnumerator<RedisSplit, List<RedisSplit>> {
  private final SplitEnumeratorContext<RedisSplit> context;
  private final List<RedisSplit> pending;

  RedisEnumerator(SplitEnumeratorContext<RedisSplit> context, List<RedisSplit> pending) {
    this.context = context;
    this.pending = new ArrayList<>(pending);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<RedisSplit> splits, int subtaskId) {
    pending.addAll(splits);
  }

  @Override
  public void addReader(int subtaskId) {
    if (subtaskId == 0 && !pending.isEmpty()) {
      for (RedisSplit split : pending) context.assignSplit(split, 0);
      pending.clear();
    }
    context.signalNoMoreSplits(subtaskId);
  }

  @Override
  public List<RedisSplit> snapshotState(long checkpointId) {
    List<RedisSplit> copy = new ArrayList<>();
    for (RedisSplit split : pending) copy.add(split.copy());
    return copy;
  }

  @Override
  public void close() {}

  /** The splits not dealt yet, in a checkpoint. */
  static final class StateSerializer implements SimpleVersionedSerializer<List<RedisSplit>> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(List<RedisSplit> splits) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(splits.size());
        for (RedisSplit split : splits) RedisSplit.Serializer.write(out, split);
      }
      return bytes.toByteArray();
    }

    @Override
    public List<RedisSplit> deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        int n = in.readInt();
        List<RedisSplit> splits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) splits.add(RedisSplit.Serializer.read(in));
        return splits;
      }
    }
  }
}
