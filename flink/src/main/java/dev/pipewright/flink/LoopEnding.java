package dev.pipewright.flink;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * When a bounded job's loop ends (issue 29, design note §2.3), as pure logic: the state of
 * LoopControlEnumerator without Flink, so the rule is tested as a table. The loop goes RUNNING →
 * TOLD (every head is told its regular input is over and starts its final firing) → CLOSED (the
 * control input ends, so the head tasks can finish).
 *
 * <p>Each of the P heads reports, at each checkpoint N after its regular input ended, its phase at
 * snapshot N and how many loop records it logged for N (taken between its snapshot and the tail's
 * sentinel: records that were in flight round the loop at the cut). A decision is taken on the
 * newest checkpoint with a report from every head: TELL when all were AWAITING and none logged a
 * record; CLOSE, after TELL, when all were TOLD and none logged one. CLOSE needs a cut where every
 * head was TOLD at its snapshot: a cut taken before a head heard TELL says nothing about what its
 * final firing sends round the loop.
 *
 * <p>Reports from reader attempts that are not registered any more are ignored: after a failover
 * a dead attempt's report describes a cut the job may have been restored past.
 */
final class LoopEnding {
  /** The loop's phase, the enumerator's checkpointed state. */
  enum Phase { RUNNING, TOLD, CLOSED }

  /** A head's phase at its snapshot: its regular input ended (AWAITING), or it was also TOLD. */
  enum HeadPhase { AWAITING, TOLD }

  /** What the enumerator sends every reader after a report. */
  enum Decision { NONE, TELL, CLOSE }

  /** Head `subtask`'s report for checkpoint `checkpointId`, from reader attempt `attempt`. */
  record Report(long checkpointId, int subtask, int attempt, HeadPhase phase, long logged) {}

  /** Whether a reader attempt is registered now (the enumerator asks Flink's context). */
  @FunctionalInterface
  interface LiveAttempts {
    boolean live(int subtask, int attempt);
  }

  private final int parallelism;
  private final LiveAttempts liveAttempts;
  private Phase phase;
  /** Reports by checkpoint, then by subtask; only checkpoints newer than `decided`. */
  private final TreeMap<Long, Map<Integer, Report>> reports = new TreeMap<>();
  /**
   * The newest checkpoint whose full set of reports was judged: an older set completing later is
   * staler than what was already seen, so it is not judged. Not checkpointed: a restored
   * enumerator judges new cuts only (checkpoint ids keep growing across restores).
   */
  private long decided = Long.MIN_VALUE;

  /** A fresh loop (RUNNING) or one restored from the enumerator's checkpoint. */
  LoopEnding(int parallelism, Phase restored, LiveAttempts liveAttempts) {
    if (parallelism < 1) throw new IllegalArgumentException("parallelism " + parallelism);
    this.parallelism = parallelism;
    this.phase = restored;
    this.liveAttempts = liveAttempts;
  }

  Phase phase() {
    return phase;
  }

  /**
   * A reader attempt registered: reports held from the subtask's other attempts are dropped, as
   * the new attempt restarted from a checkpoint that may be older than their cuts.
   */
  void attemptRegistered(int subtask, int attempt) {
    for (Map<Integer, Report> byHead : reports.values()) {
      Report held = byHead.get(subtask);
      if (held != null && held.attempt() != attempt) byHead.remove(subtask);
    }
  }

  /** How many cuts have reports waiting for the rest (tests: judged and older ones are dropped). */
  int heldCuts() {
    return reports.size();
  }

  /** Takes one report; says what to send every reader now. */
  Decision report(Report r) {
    if (r.subtask() < 0 || r.subtask() >= parallelism) {
      throw new IllegalArgumentException("a report from subtask " + r.subtask() + " of " + parallelism);
    }
    if (r.logged() < 0) throw new IllegalArgumentException("a report with " + r.logged() + " logged");
    if (phase == Phase.CLOSED || r.checkpointId() <= decided) return Decision.NONE;
    if (!liveAttempts.live(r.subtask(), r.attempt())) return Decision.NONE;
    Map<Integer, Report> byHead = reports.computeIfAbsent(r.checkpointId(), n -> new HashMap<>());
    byHead.put(r.subtask(), r);
    if (byHead.size() < parallelism) return Decision.NONE;
    // A head may have failed since it reported: its report then belongs to a dead attempt.
    for (Iterator<Report> it = byHead.values().iterator(); it.hasNext(); ) {
      Report held = it.next();
      if (!liveAttempts.live(held.subtask(), held.attempt())) it.remove();
    }
    if (byHead.size() < parallelism) return Decision.NONE;
    decided = r.checkpointId();
    reports.headMap(decided, true).clear();
    return judge(byHead);
  }

  /** §2.3 on one complete cut. */
  private Decision judge(Map<Integer, Report> cut) {
    HeadPhase needed = phase == Phase.RUNNING ? HeadPhase.AWAITING : HeadPhase.TOLD;
    for (Report r : cut.values()) {
      if (r.phase() != needed || r.logged() != 0) return Decision.NONE;
    }
    if (phase == Phase.RUNNING) {
      phase = Phase.TOLD;
      return Decision.TELL;
    }
    phase = Phase.CLOSED;
    return Decision.CLOSE;
  }
}
