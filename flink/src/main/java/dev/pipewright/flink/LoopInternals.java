package dev.pipewright.flink;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.KeyGroupStatePartitionStreamProvider;
import org.apache.flink.runtime.state.KeyGroupsList;
import org.apache.flink.runtime.state.KeyedStateCheckpointOutputStream;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.util.ResourceGuard;

/**
 * The one place where the loop code (feedback edges, docs: /work/notes/feedback-on-flink.md §1.5,
 * §1.6, §3) touches Flink's internals: raw keyed state written by key group, the lease that makes
 * a checkpoint's asynchronous part wait for it, reading it back on restore, and the key-group
 * arithmetic. Each method says which Flink behaviour it relies on, so that a new Flink version is
 * checked here (and by LoopInternalsEndToEndTest) and nowhere else.
 *
 * <p>Checked against Flink 2.3.0. Raw keyed state is PublicEvolving; the lease
 * (NonClosingCheckpointOutputStream#acquireLease) is a public method of an unannotated runtime
 * class, and the wait for it is behaviour only.
 */
final class LoopInternals {
  private LoopInternals() {}

  /**
   * The raw keyed state output of one snapshot of one operator subtask, held open by a lease until
   * {@link #release()}. Only the task thread uses it.
   */
  static final class RawKeyedOutput {
    private final KeyedStateCheckpointOutputStream out;
    private final ResourceGuard.Lease lease;
    private final int[] keyGroups;
    private boolean released;

    private RawKeyedOutput(KeyedStateCheckpointOutputStream out, ResourceGuard.Lease lease) {
      this.out = out;
      this.lease = lease;
      KeyGroupsList list = out.getKeyGroupList();
      keyGroups = new int[list.getNumberOfKeyGroups()];
      for (int i = 0; i < keyGroups.length; i++) keyGroups[i] = list.getKeyGroupId(i);
    }

    /**
     * The key groups this subtask may write, in the stream's order: its KeyGroupRange
     * (KeyedStateCheckpointOutputStream#getKeyGroupList), the range its keyed backend serves.
     */
    int[] keyGroups() {
      return keyGroups.clone();
    }

    /** Whether `keyGroup` is one of {@link #keyGroups()} (KeyGroupsList#contains). */
    boolean owns(int keyGroup) {
      return out.getKeyGroupList().contains(keyGroup);
    }

    /**
     * Starts `keyGroup` and returns the stream to write its bytes to. Flink records the stream's
     * position as the group's offset (KeyedStateCheckpointOutputStream#startNewKeyGroup); the
     * group ends where the next one starts, or at the end of the stream, so what is written must
     * say its own length. A group may be started once; a group not started has no offset, and
     * restore skips it. The stream's close() does nothing (Flink closes it in the async part).
     */
    OutputStream startKeyGroup(int keyGroup) throws IOException {
      out.startNewKeyGroup(keyGroup);
      return out;
    }

    /**
     * Lets the checkpoint's asynchronous part close the stream (ResourceGuard.Lease#close; idempotent
     * here). Until every lease is released, StateSnapshotContextSynchronousImpl's closing callable
     * blocks in KeyedStateCheckpointOutputStream#closeAndGetHandle →
     * NonClosingCheckpointOutputStream#closeAndGetHandleAfterLeasesReleased →
     * ResourceGuard#closeInterruptibly, so this subtask does not acknowledge the checkpoint. The
     * guard's lock orders the task thread's writes before that close.
     */
    void release() {
      if (released) return;
      released = true;
      lease.close();
    }
  }

  /**
   * Opens the raw keyed state output of the snapshot `ctx` and takes a lease on it. Call in
   * snapshotState, in the task thread. Relies on: StateSnapshotContext#getRawKeyedOperatorStateOutput
   * opening the stream in the synchronous part (once per snapshot; "Not a keyed operator" otherwise);
   * NonClosingCheckpointOutputStream#acquireLease (public final) holding off its close.
   *
   * <p>Flink itself writes timers into this stream when the keyed backend keeps them on the heap and
   * snapshots them synchronously (RocksDB with `state.backend.rocksdb.timer-service.factory: HEAP`,
   * checkpoints only: RocksDBKeyedStateBackend#requiresLegacySynchronousTimerSnapshots); an operator
   * using the stream itself must return true from isUsingCustomRawKeyedState, and
   * StreamOperatorStateHandler#snapshotState then fails such a checkpoint ("Attempting to snapshot
   * timers to raw keyed state, but this operator has custom raw keyed state to write."). With
   * ROCKSDB timers (Flink 2.3's default) it does not.
   *
   * <p>Where the wait can hold more than the checkpoint (Flink 2.3): a closing future cancelled
   * before it started waits for the lease in the cancelling thread
   * (StreamCloserCallable#cleanupProvidedResources calls closeAndGetHandle). On an abort
   * notification that thread is the task's async operations pool
   * (SubtaskCheckpointCoordinatorImpl#cancelAsyncCheckpointRunnable), and the operators'
   * notifyCheckpointAborted runs next in the same task mail: the log must be aborted there. At the
   * end of input, StreamTask#afterInvoke waits for pending checkpoints
   * (SubtaskCheckpointCoordinatorImpl#waitForPendingCheckpoints, with checkpoints after tasks
   * finish, which loops pin) before it closes the operators: a log still open then would hold the
   * task, so every log must be settled by finish().
   */
  static RawKeyedOutput openRawKeyedOutput(StateSnapshotContext ctx) throws Exception {
    KeyedStateCheckpointOutputStream out = ctx.getRawKeyedOperatorStateOutput();
    return new RawKeyedOutput(out, out.acquireLease());
  }

  /** Reads one key group's raw keyed state. */
  interface KeyGroupReader {
    /**
     * `in` starts at the group's first byte and does not stop at its end (several groups of a file
     * share one stream), so the reader must know where its bytes end; it must not close `in`.
     */
    void read(int keyGroup, InputStream in) throws Exception;
  }

  /**
   * Hands every key group of this subtask's restored raw keyed state to `reader`, one after the
   * other. Relies on: StateInitializationContext#getRawKeyedStateInputs giving one
   * KeyGroupStatePartitionStreamProvider per key group of the subtask's (new) range that has an
   * offset in a restored file (StreamTaskStateInitializerImpl's KeyGroupStreamIterator skips groups
   * not started); consecutive groups of one file share a stream, which the next provider seeks, so
   * each group is read completely before the next is asked for. Nothing restored (a fresh start, or
   * state from a job without this operator's raw keyed state): no call.
   */
  static void readRawKeyedInputs(StateInitializationContext ctx, KeyGroupReader reader) throws Exception {
    for (KeyGroupStatePartitionStreamProvider group : ctx.getRawKeyedStateInputs()) {
      // getStream rethrows the IOException Flink met opening or seeking the file.
      reader.read(group.getKeyGroupId(), group.getStream());
    }
  }

  /**
   * The key group of `key`, as Flink's keyBy computes it (KeyGroupRangeAssignment#assignToKeyGroup:
   * murmur hash of hashCode, modulo max parallelism). The key must be the value the stream's
   * KeySelector returned, so its hashCode is the one Flink used.
   */
  static int keyGroupOf(Object key, int maxParallelism) {
    return KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
  }

  /**
   * The subtask that owns `keyGroup` at `parallelism`
   * (KeyGroupRangeAssignment#computeOperatorIndexForKeyGroup): after a rescale, where a key
   * group's raw keyed state is restored.
   */
  static int subtaskOf(int keyGroup, int maxParallelism, int parallelism) {
    return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(maxParallelism, parallelism, keyGroup);
  }
}
