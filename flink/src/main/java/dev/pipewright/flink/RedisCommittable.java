package dev.pipewright.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * What one sink.redis writer hands its committer at a checkpoint (or at the end of input): the
 * records it was given since the one before, as the `json` values of the entries to add, and
 * which commit of which writer lineage this is. A lineage is a writer's random id, kept in its
 * state (RedisSinkWriter), so `number` counts that writer's commits across restores: the marker
 * field `<operator>:<lineage>` holding the last number committed says whether this one is in the
 * stream already (RedisCommitter).
 */
final class RedisCommittable {
  final String lineage;
  final long number;
  /** The writer's last commit, at the end of its input: the marker says "end", as locally. */
  final boolean end;
  final List<String> entries;

  RedisCommittable(String lineage, long number, boolean end, List<String> entries) {
    this.lineage = lineage;
    this.number = number;
    this.end = end;
    this.entries = entries;
  }

  /** Committables in checkpoints (the committer keeps them until they are committed). */
  static final class Serializer implements SimpleVersionedSerializer<RedisCommittable> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(RedisCommittable c) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        RedisSplit.Serializer.writeText(out, c.lineage);
        out.writeLong(c.number);
        out.writeBoolean(c.end);
        out.writeInt(c.entries.size());
        for (String entry : c.entries) RedisSplit.Serializer.writeText(out, entry);
      }
      return bytes.toByteArray();
    }

    @Override
    public RedisCommittable deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        String lineage = RedisSplit.Serializer.readText(in);
        long number = in.readLong();
        boolean end = in.readBoolean();
        int n = in.readInt();
        List<String> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) entries.add(RedisSplit.Serializer.readText(in));
        return new RedisCommittable(lineage, number, end, entries);
      }
    }
  }

  /** A writer's state: its lineage and the number of its last commit. */
  static final class WriterState {
    final String lineage;
    final long number;

    WriterState(String lineage, long number) {
      this.lineage = lineage;
      this.number = number;
    }
  }

  static final class WriterStateSerializer implements SimpleVersionedSerializer<WriterState> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(WriterState state) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        RedisSplit.Serializer.writeText(out, state.lineage);
        out.writeLong(state.number);
      }
      return bytes.toByteArray();
    }

    @Override
    public WriterState deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        return new WriterState(RedisSplit.Serializer.readText(in), in.readLong());
      }
    }
  }
}
