package dev.pipewright.flink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SupportsHandleExecutionAttemptSourceEvent;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The coordinator of a loop's control input (issue 29, design note §2.2): it takes the heads'
 * reports, which their readers forward, applies LoopEnding's rule and sends TELL or CLOSE to
 * every reader. Its checkpoint is the loop's phase, so a restored job does not tell twice nor
 * forget it told; a reader that registers (again) is sent the phase at once.
 *
 * <p>A report from a reader attempt that is no longer registered describes a cut the job may
 * have been restored past, and is ignored. Its attempt is the one the reader put in the event;
 * where Flink names the sender's attempt itself (SupportsHandleExecutionAttemptSourceEvent, only
 * with concurrent attempts) Flink's is used.
 */
final class LoopControlEnumerator
    implements SplitEnumerator<LoopControlSplit, LoopEnding.Phase>,
        SupportsHandleExecutionAttemptSourceEvent {
  private final SplitEnumeratorContext<LoopControlSplit> context;
  private final LoopEnding ending;

  LoopControlEnumerator(SplitEnumeratorContext<LoopControlSplit> context, LoopEnding.Phase phase) {
    this.context = context;
    this.ending = new LoopEnding(context.currentParallelism(), phase, this::live);
  }

  private boolean live(int subtask, int attempt) {
    Map<Integer, ReaderInfo> attempts = context.registeredReadersOfAttempts().get(subtask);
    return attempts != null && attempts.containsKey(attempt);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtaskId, String requesterHostname) {}

  @Override
  public void addSplitsBack(List<LoopControlSplit> splits, int subtaskId) {
    // Never assigned, so never given back.
  }

  @Override
  public void addReader(int subtaskId) {
    Map<Integer, ReaderInfo> attempts = context.registeredReadersOfAttempts().get(subtaskId);
    if (attempts == null || attempts.isEmpty()) return; // failed again before this call ran
    // The attempt that just registered is the newest: attempt numbers only grow.
    int attempt = Collections.max(attempts.keySet());
    ending.attemptRegistered(subtaskId, attempt);
    if (ending.phase() != LoopEnding.Phase.RUNNING) {
      context.sendEventToSourceReader(subtaskId, attempt, new LoopControlEvents.Decided(ending.phase()));
    }
  }

  @Override
  public void handleSourceEvent(int subtaskId, SourceEvent event) {
    handleSourceEvent(subtaskId, report(event).attempt, event);
  }

  @Override
  public void handleSourceEvent(int subtaskId, int attemptNumber, SourceEvent event) {
    LoopControlEvents.Report r = report(event);
    LoopEnding.Decision decision = ending.report(
        new LoopEnding.Report(r.checkpointId, subtaskId, attemptNumber, r.phase, r.logged));
    if (decision == LoopEnding.Decision.NONE) return;
    // Every reader registered now hears it; one registering later is told in addReader.
    LoopControlEvents.Decided decided = new LoopControlEvents.Decided(ending.phase());
    for (Map.Entry<Integer, Map<Integer, ReaderInfo>> reader :
        context.registeredReadersOfAttempts().entrySet()) {
      for (int attempt : reader.getValue().keySet()) {
        context.sendEventToSourceReader(reader.getKey(), attempt, decided);
      }
    }
  }

  private static LoopControlEvents.Report report(SourceEvent event) {
    if (event instanceof LoopControlEvents.Report r) return r;
    throw new IllegalArgumentException("loop control: unexpected event " + event);
  }

  @Override
  public LoopEnding.Phase snapshotState(long checkpointId) {
    return ending.phase();
  }

  @Override
  public void close() {}

  /** The enumerator's checkpoint: the phase's name, so a reordered enum cannot misread it. */
  static final class StateSerializer implements SimpleVersionedSerializer<LoopEnding.Phase> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(LoopEnding.Phase phase) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeUTF(phase.name());
      }
      return bytes.toByteArray();
    }

    @Override
    public LoopEnding.Phase deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1) throw new IOException("loop control state version " + version);
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        String name = in.readUTF();
        try {
          return LoopEnding.Phase.valueOf(name);
        } catch (IllegalArgumentException e) {
          throw new IOException("loop control state: unknown phase " + name, e);
        }
      }
    }
  }
}
