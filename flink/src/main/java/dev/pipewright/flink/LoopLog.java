package dev.pipewright.flink;

import java.io.DataInput;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;

/**
 * The FLIP-16 log of one checkpoint N at one loop head subtask (design note §1.5): the feedback
 * records the head takes between its snapshot N and the tail's sentinel N, which were in flight
 * round the loop at cut N. It is opened in snapshotState with the snapshot's raw keyed state output
 * and a lease on it, so the checkpoint's asynchronous part waits; {@link #commit()} writes it and
 * releases the lease, {@link #abort()} releases it without writing. {@link #replay} reads it back on
 * restore, key group by key group, so each record reaches its group's owner at any parallelism.
 *
 * <p>Each key group of the subtask's range is written, empty ones too, as: int magic, int version,
 * int count, then `count` entries of (int length, edge id bytes), byte 1 and long time or byte 0,
 * (int length, text bytes). Strings are {@link Wtf8} (UTF-8, lone surrogates kept, no 64 KB cap).
 * The edge is named by its id, not its index, so a savepoint survives a plan whose edges moved.
 */
final class LoopLog {
  static final int MAGIC = 0x50574C4F; // "PWLO"
  static final int VERSION = 1;
  /** An entry without event time (as WorkerMessage.NO_TIME for records). */
  static final long NO_TIME = WorkerMessage.NO_TIME;

  /** Takes the logged records on restore. */
  interface Replay {
    void record(int keyGroup, String edgeId, String text, long time) throws Exception;
  }

  private final long checkpointId;
  private final int maxParallelism;
  private final LoopInternals.RawKeyedOutput out;
  /** Entries by key group, in arrival order; a group without entries has none here. */
  private final Map<Integer, DataOutputSerializer> groups = new HashMap<>();
  private final Map<Integer, Integer> counts = new HashMap<>();
  private int size;
  private boolean closed;

  LoopLog(long checkpointId, int maxParallelism, LoopInternals.RawKeyedOutput out) {
    this.checkpointId = checkpointId;
    this.maxParallelism = maxParallelism;
    this.out = out;
  }

  /** Opens the log of checkpoint `ctx.getCheckpointId()`: in snapshotState, in the task thread. */
  static LoopLog open(StateSnapshotContext ctx, int maxParallelism) throws Exception {
    return new LoopLog(ctx.getCheckpointId(), maxParallelism, LoopInternals.openRawKeyedOutput(ctx));
  }

  long checkpointId() {
    return checkpointId;
  }

  /** Entries appended so far (the head's report counts them: Σ logged = 0 means a quiet cut). */
  int size() {
    return size;
  }

  boolean isOpen() {
    return !closed;
  }

  /**
   * Logs a record under `key` (the value the feedback edge's KeySelector gave, whose key group Flink
   * routed it by), on edge `edgeId`, with event time `time` or {@link #NO_TIME}. A key outside this
   * subtask's key groups means the record reached the wrong head: a bug, which fails the job.
   */
  void append(Object key, String edgeId, String text, long time) throws IOException {
    if (closed) throw new IllegalStateException("the loop log of checkpoint " + checkpointId + " is closed");
    int keyGroup = LoopInternals.keyGroupOf(key, maxParallelism);
    if (!out.owns(keyGroup)) {
      throw new IllegalStateException("loop log of checkpoint " + checkpointId + ": key " + key
          + " is in key group " + keyGroup + ", which is not this subtask's (a feedback record reached the wrong head)");
    }
    DataOutputSerializer group = groups.computeIfAbsent(keyGroup, g -> new DataOutputSerializer(256));
    writeBytes(group, Wtf8.encode(edgeId));
    if (time == NO_TIME) {
      group.writeByte(0);
    } else {
      group.writeByte(1);
      group.writeLong(time);
    }
    writeBytes(group, Wtf8.encode(text));
    counts.merge(keyGroup, 1, Integer::sum);
    size++;
  }

  /**
   * The tail's sentinel N came: writes every key group of the stream's list, in its order, then
   * releases the lease so the checkpoint's asynchronous part can finish. Returns the entries
   * written. If a write fails, the lease stays held (the task fails on the exception; its
   * cancellation ends the wait) so the checkpoint never completes with a part of the log.
   */
  int commit() throws IOException {
    if (closed) throw new IllegalStateException("the loop log of checkpoint " + checkpointId + " is closed");
    closed = true;
    for (int keyGroup : out.keyGroups()) {
      DataOutputViewStreamWrapper stream = new DataOutputViewStreamWrapper(out.startKeyGroup(keyGroup));
      DataOutputSerializer entries = groups.get(keyGroup);
      stream.writeInt(MAGIC);
      stream.writeInt(VERSION);
      stream.writeInt(counts.getOrDefault(keyGroup, 0));
      if (entries != null) stream.write(entries.getSharedBuffer(), 0, entries.length());
    }
    groups.clear();
    out.release();
    return size;
  }

  /**
   * Drops the log without writing (the checkpoint was aborted, or its sentinel will never come, or
   * the operator closes): releases the lease, so nothing waits for it. Idempotent.
   */
  void abort() {
    closed = true;
    groups.clear();
    out.release();
  }

  /**
   * Reads every restored key group's log and hands each entry to `consumer`, group by group, in
   * the order they were appended. A group with no bytes (nothing restored there) gives nothing.
   * Returns the entries replayed.
   */
  static long replay(StateInitializationContext ctx, Replay consumer) throws Exception {
    long[] replayed = {0};
    LoopInternals.readRawKeyedInputs(ctx, (keyGroup, in) -> replayed[0] += readGroup(keyGroup, in, consumer));
    return replayed[0];
  }

  /** Reads one key group's log from `in` (which may go on past it), handing entries to `consumer`. */
  static int readGroup(int keyGroup, InputStream in, Replay consumer) throws Exception {
    int first = in.read();
    if (first < 0) return 0;
    DataInputStream data = new DataInputStream(in);
    int magic = (first << 24) | (data.readUnsignedByte() << 16) | (data.readUnsignedByte() << 8)
        | data.readUnsignedByte();
    if (magic != MAGIC) {
      throw new IOException("key group " + keyGroup + "'s raw keyed state is not a Pipewright loop log");
    }
    int version = data.readInt();
    if (version != VERSION) {
      throw new IOException("key group " + keyGroup + " holds a loop log of version " + version
          + ", which this runner cannot read (it reads " + VERSION + ")");
    }
    int count = data.readInt();
    for (int i = 0; i < count; i++) {
      String edgeId = readString(data);
      long time = data.readByte() == 0 ? NO_TIME : data.readLong();
      consumer.record(keyGroup, edgeId, readString(data), time);
    }
    return count;
  }

  private static void writeBytes(DataOutputSerializer out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(DataInput in) throws IOException {
    int length = in.readInt();
    if (length < 0) throw new EOFException("a loop log string of length " + length);
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return Wtf8.decode(bytes, 0, length);
  }
}
