package dev.pipewright.flink;

import java.util.TreeMap;

/**
 * Where one loop head subtask is in ending a bounded job, and what it reports per checkpoint
 * (design note §2.2): RUNNING → AWAITING (every regular input ended) → TOLD (the control source's
 * TELL). The phase at each snapshot N is kept until sentinel N settles log N; the report then says
 * that phase and how many records log N holds, which the control source's rule (§2.3) needs from
 * every head for the same N. A RUNNING head reports nothing, so an unbounded job pays nothing. The
 * phase is not checkpointed: after a restore Flink ends the regular input again and the restored
 * control reader repeats its TELL. Only the task thread uses it.
 */
final class LoopHeadPhase {
  enum Phase {
    /** The regular input goes on. */
    RUNNING,
    /** Every regular input ended; the control source has not told the head yet. */
    AWAITING,
    /** The control source sent TELL: the head operator's input is over, loop records aside. */
    TOLD
  }

  /**
   * Head subtask `attempt`'s word on checkpoint N: its phase when it took snapshot N, and the
   * records in flight round the loop at cut N that it logged (Σ 0 over all heads: a quiet cut).
   */
  record Report(long checkpointId, int attempt, Phase phase, int logged) {}

  private final int attempt;
  private Phase phase = Phase.RUNNING;
  /** The phase at each snapshot whose log is open, by checkpoint. */
  private final TreeMap<Long, Phase> atSnapshot = new TreeMap<>();
  private Report last;

  LoopHeadPhase(int attempt) {
    this.attempt = attempt;
  }

  Phase phase() {
    return phase;
  }

  /** endInput(1). A TELL that came first (a restored reader repeating it) stays. */
  void regularInputEnded() {
    if (phase == Phase.RUNNING) phase = Phase.AWAITING;
  }

  /** TELL: idempotent, as a restored reader repeats the enumerator's decisions. */
  void told() {
    phase = Phase.TOLD;
  }

  /** Snapshot N opened its log: the phase now is the phase at cut N. */
  void snapshot(long checkpointId) {
    atSnapshot.put(checkpointId, phase);
  }

  /** Checkpoint N was aborted: its log is gone, and no report for it will be made. */
  void aborted(long checkpointId) {
    atSnapshot.remove(checkpointId);
  }

  /** The oldest checkpoint whose log is open, or -1. */
  long oldestOpen() {
    return atSnapshot.isEmpty() ? -1 : atSnapshot.firstKey();
  }

  /**
   * Sentinel N came and log N held `logged` records, or -1 when no log N was open (aborted here
   * first). Snapshots below N are settled too: their logs were dropped, their sentinels never to
   * come (LoopLogs#sentinel). Returns the report to send, or null: no log N, or the head RUNNING.
   */
  Report settled(long checkpointId, int logged) {
    Phase at = atSnapshot.get(checkpointId);
    atSnapshot.headMap(checkpointId, true).clear();
    if (logged < 0 || at == null || phase == Phase.RUNNING) return null;
    last = new Report(checkpointId, attempt, at, logged);
    return last;
  }

  /** The newest report made, or null: what the control wiring sends to its reader. */
  Report lastReport() {
    return last;
  }
}
