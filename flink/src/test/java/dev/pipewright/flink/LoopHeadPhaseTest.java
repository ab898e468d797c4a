package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.pipewright.flink.LoopHeadPhase.Phase;
import dev.pipewright.flink.LoopHeadPhase.Report;
import org.junit.jupiter.api.Test;

/** A loop head's phases and its per-checkpoint reports, without Flink. */
class LoopHeadPhaseTest {
  @Test
  void aRunningHeadReportsNothing() {
    LoopHeadPhase head = new LoopHeadPhase(0);
    head.snapshot(1);
    assertNull(head.settled(1, 3));
    assertNull(head.lastReport());
    assertEquals(-1, head.oldestOpen());
  }

  @Test
  void theReportSaysThePhaseAtTheSnapshotNotAtTheSentinel() {
    LoopHeadPhase head = new LoopHeadPhase(2);
    head.snapshot(4);
    head.regularInputEnded();
    head.snapshot(5);
    head.told();
    // Snapshot 4 was RUNNING: its cut cannot show every regular input over.
    assertEquals(new Report(4, 2, Phase.RUNNING, 7), head.settled(4, 7));
    assertEquals(new Report(5, 2, Phase.AWAITING, 0), head.settled(5, 0));
    head.snapshot(6);
    assertEquals(new Report(6, 2, Phase.TOLD, 0), head.settled(6, 0));
    assertEquals(new Report(6, 2, Phase.TOLD, 0), head.lastReport());
  }

  @Test
  void aSentinelSettlesOlderSnapshotsAndAnAbortedLogReportsNothing() {
    LoopHeadPhase head = new LoopHeadPhase(0);
    head.regularInputEnded();
    head.snapshot(1);
    head.snapshot(2);
    head.snapshot(3);
    head.aborted(3);
    assertEquals(1, head.oldestOpen());
    // Sentinel 2 came first: checkpoint 1's was never sent (the tail never reached it).
    assertEquals(new Report(2, 0, Phase.AWAITING, 1), head.settled(2, 1));
    assertEquals(-1, head.oldestOpen());
    assertNull(head.settled(1, -1), "no report for a log already dropped");
    assertNull(head.settled(3, -1), "no report for an aborted checkpoint");
    assertEquals(new Report(2, 0, Phase.AWAITING, 1), head.lastReport());
  }

  @Test
  void tellIsIdempotentAndTheEndOfInputAfterItDoesNotUndoIt() {
    LoopHeadPhase head = new LoopHeadPhase(1);
    head.told();
    head.regularInputEnded();
    assertEquals(Phase.TOLD, head.phase());
    head.told();
    assertEquals(Phase.TOLD, head.phase());
    head.snapshot(9);
    assertEquals(new Report(9, 1, Phase.TOLD, 0), head.settled(9, 0));
  }
}
