package dev.pipewright.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A stream of NEXMark event numbers, as the local engine's source.nexmark splits them
 * (engine/operators/sourceNexmark.ts): `next`, `next + stride`, … Subtask s of p starts with the
 * split (s, p), so event n is made once whatever the parallelism; a checkpoint keeps `next`.
 */
public final class NexmarkSplit implements SourceSplit {
  final int id;
  long next;
  final int stride;

  NexmarkSplit(int id, long next, int stride) {
    this.id = id;
    this.next = next;
    this.stride = stride;
  }

  @Override
  public String splitId() {
    return Integer.toString(id);
  }

  NexmarkSplit copy() {
    return new NexmarkSplit(id, next, stride);
  }

  /** Splits as checkpoints and the enumerator keep them: id, next, stride. */
  static final class Serializer implements SimpleVersionedSerializer<NexmarkSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(NexmarkSplit split) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(16);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        write(out, split);
      }
      return bytes.toByteArray();
    }

    @Override
    public NexmarkSplit deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        return read(in);
      }
    }

    static void write(DataOutputStream out, NexmarkSplit split) throws IOException {
      out.writeInt(split.id);
      out.writeLong(split.next);
      out.writeInt(split.stride);
    }

    static NexmarkSplit read(DataInputStream in) throws IOException {
      return new NexmarkSplit(in.readInt(), in.readLong(), in.readInt());
    }
  }
}
