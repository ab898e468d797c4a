package dev.pipewright.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * source.redis's one split, the local engine's RedisSplit (engine/operators/redis/sourceRedis.ts):
 * the whole stream, read after `lastId`. A checkpoint keeps `lastId` as the id of the last entry
 * emitted before the barrier, so a restore goes on exactly after it. "$" (startId) and "last"
 * (stopAt) are resolved when the reader first opens the split, to the stream's last id then, and
 * the split keeps that id: a restore reads from and up to the same entries as the run it restores.
 */
public final class RedisSplit implements SourceSplit {
  final String stream;
  /** Entries after this id are read; "$" until the first open resolves it. */
  String lastId;
  /** stopAt "last": the last id to read ("last" until the first open); null: unbounded. */
  String stopId;
  /** startId "$": the stream may not exist yet (every entry a producer adds to it is new). */
  final boolean mayBeMissing;

  RedisSplit(String stream, String lastId, String stopId, boolean mayBeMissing) {
    this.stream = stream;
    this.lastId = lastId;
    this.stopId = stopId;
    this.mayBeMissing = mayBeMissing;
  }

  @Override
  public String splitId() {
    return "0";
  }

  RedisSplit copy() {
    return new RedisSplit(stream, lastId, stopId, mayBeMissing);
  }

  /** Splits as checkpoints and the enumerator keep them. */
  static final class Serializer implements SimpleVersionedSerializer<RedisSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(RedisSplit split) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        write(out, split);
      }
      return bytes.toByteArray();
    }

    @Override
    public RedisSplit deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        return read(in);
      }
    }

    static void write(DataOutputStream out, RedisSplit split) throws IOException {
      // Not writeUTF: a key may be longer than its 64 KB.
      writeText(out, split.stream);
      writeText(out, split.lastId);
      out.writeBoolean(split.stopId != null);
      if (split.stopId != null) writeText(out, split.stopId);
      out.writeBoolean(split.mayBeMissing);
    }

    static RedisSplit read(DataInputStream in) throws IOException {
      String stream = readText(in);
      String lastId = readText(in);
      String stopId = in.readBoolean() ? readText(in) : null;
      return new RedisSplit(stream, lastId, stopId, in.readBoolean());
    }

    static void writeText(DataOutputStream out, String text) throws IOException {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      out.writeInt(bytes.length);
      out.write(bytes);
    }

    static String readText(DataInputStream in) throws IOException {
      byte[] bytes = new byte[in.readInt()];
      in.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }
}
