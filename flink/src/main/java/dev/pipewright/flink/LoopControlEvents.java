package dev.pipewright.flink;

import java.util.Objects;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * The events between the loop's control readers and their enumerator (issue 29, design note
 * §2.2): a head's report, forwarded by its reader, and the enumerator's decision.
 */
final class LoopControlEvents {
  private LoopControlEvents() {}

  /**
   * Reader → enumerator: what the reader's head saw at a checkpoint, and the reader's attempt.
   * The attempt travels in the event because Flink 2.3's SourceCoordinator names the sender's
   * attempt to the enumerator only when concurrent attempts (speculative execution) are on, never
   * in a streaming job; the subtask it always names.
   */
  static final class Report implements SourceEvent {
    private static final long serialVersionUID = 1L;

    final int attempt;
    final long checkpointId;
    final LoopEnding.HeadPhase phase;
    final long logged;

    Report(int attempt, LoopReports.Report report) {
      this.attempt = attempt;
      this.checkpointId = report.checkpointId();
      this.phase = Objects.requireNonNull(report.phase());
      this.logged = report.logged();
    }

    @Override
    public String toString() {
      return "Report{attempt " + attempt + ", checkpoint " + checkpointId + ", " + phase
          + ", logged " + logged + "}";
    }
  }

  /**
   * Enumerator → readers: TELL or CLOSE, when the enumerator decides it and again to every reader
   * that registers later (a restarted one repeats what its head must have heard).
   */
  static final class Decided implements SourceEvent {
    private static final long serialVersionUID = 1L;

    final LoopEnding.Phase phase;

    Decided(LoopEnding.Phase phase) {
      if (phase == LoopEnding.Phase.RUNNING) throw new IllegalArgumentException("nothing decided");
      this.phase = phase;
    }

    @Override
    public String toString() {
      return "Decided{" + phase + "}";
    }
  }
}
