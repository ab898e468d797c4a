package dev.pipewright.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** source.redis's enumerator checkpoint: the split not dealt yet (SubtaskZeroEnumerator deals it). */
final class RedisEnumerator {
  private RedisEnumerator() {}

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
