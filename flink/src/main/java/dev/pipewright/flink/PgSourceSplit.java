package dev.pipewright.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * source.postgres's one split (the table) and where its reader stands, as checkpoints keep it:
 * the local engine's PostgresSplit (engine/operators/postgres/source/postgresSplit.ts). Fresh
 * until the reader has made the slot and emitted the snapshot (a restore to a fresh split starts
 * over: the leftover slot is dropped and the snapshot read again, nothing of it having been
 * emitted before that checkpoint). Then `lsn` is the end of the last transaction whose changes
 * were all emitted (at first the slot's consistent point) and `changeLsn` the last change emitted
 * of the transaction after it (0: none), so a restore streams from that transaction on and skips
 * what of it was emitted. A bounded read (stopAt "current") keeps where it stops.
 */
final class PgSourceSplit implements SourceSplit {
  final String slot;
  final String publication;
  boolean fresh;
  String schema;
  String name;
  long lsn;
  long changeLsn;
  /**
   * stopAt "current": the end of the log at the first open (0: unbounded, or not read yet);
   * transactions that commit after it are not read.
   */
  long stopLsn;

  PgSourceSplit(String slot, String publication) {
    this.slot = slot;
    this.publication = publication;
    this.fresh = true;
    this.schema = "";
    this.name = "";
  }

  @Override
  public String splitId() {
    return "0";
  }

  PgSourceSplit copy() {
    PgSourceSplit c = new PgSourceSplit(slot, publication);
    c.fresh = fresh;
    c.schema = schema;
    c.name = name;
    c.lsn = lsn;
    c.changeLsn = changeLsn;
    c.stopLsn = stopLsn;
    return c;
  }

  /** Splits as checkpoints and the enumerator keep them. */
  static final class Serializer implements SimpleVersionedSerializer<PgSourceSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(PgSourceSplit split) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        write(out, split);
      }
      return bytes.toByteArray();
    }

    @Override
    public PgSourceSplit deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        return read(in);
      }
    }

    static void write(DataOutputStream out, PgSourceSplit s) throws IOException {
      // Identifiers are at most 63 bytes: writeUTF's 64 KB is plenty.
      out.writeUTF(s.slot);
      out.writeUTF(s.publication);
      out.writeBoolean(s.fresh);
      out.writeUTF(s.schema);
      out.writeUTF(s.name);
      out.writeLong(s.lsn);
      out.writeLong(s.changeLsn);
      out.writeLong(s.stopLsn);
    }

    static PgSourceSplit read(DataInputStream in) throws IOException {
      PgSourceSplit s = new PgSourceSplit(in.readUTF(), in.readUTF());
      s.fresh = in.readBoolean();
      s.schema = in.readUTF();
      s.name = in.readUTF();
      s.lsn = in.readLong();
      s.changeLsn = in.readLong();
      s.stopLsn = in.readLong();
      return s;
    }
  }

  /** The splits not dealt yet, in the enumerator's checkpoint. */
  static final class ListSerializer implements SimpleVersionedSerializer<List<PgSourceSplit>> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(List<PgSourceSplit> splits) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeInt(splits.size());
        for (PgSourceSplit split : splits) Serializer.write(out, split);
      }
      return bytes.toByteArray();
    }

    @Override
    public List<PgSourceSplit> deserialize(int version, byte[] serialized) throws IOException {
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        int n = in.readInt();
        List<PgSourceSplit> splits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) splits.add(Serializer.read(in));
        return splits;
      }
    }
  }
}
