package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.pipewright.flink.LoopEnding.Decision;
import dev.pipewright.flink.LoopEnding.HeadPhase;
import dev.pipewright.flink.LoopEnding.Phase;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop's ending rule (design note §2.3) as a table, two heads. A step is "N s A|T logged
 * DECISION [PHASE]": head s reports for checkpoint N that it was AWAITING or TOLD at its snapshot
 * and logged that many records; the rule answers DECISION and is then in PHASE (when given).
 * Every reader attempt is 0 and registered, except in the attempt tests below.
 */
class LoopEndingTest {
  static Stream<Arguments> table() {
    return Stream.of(
        row("a cut with a report missing decides nothing", Phase.RUNNING,
            "1 0 A 0 NONE RUNNING", "2 1 A 0 NONE RUNNING", "3 0 A 0 NONE RUNNING"),
        row("a record logged at the cut delays TELL to the next cut", Phase.RUNNING,
            "1 0 A 0 NONE", "1 1 A 2 NONE RUNNING", "2 1 A 0 NONE", "2 0 A 0 TELL TOLD"),
        row("one head still RUNNING at the cut (no report) holds TELL back", Phase.RUNNING,
            "1 1 A 0 NONE", "2 1 A 0 NONE", "2 0 A 0 TELL TOLD"),
        row("mixed phases decide nothing in RUNNING", Phase.RUNNING,
            "1 0 A 0 NONE", "1 1 T 0 NONE RUNNING"),
        row("TELL then CLOSE", Phase.RUNNING,
            "1 0 A 0 NONE", "1 1 A 0 TELL TOLD", "2 0 T 0 NONE", "2 1 T 0 CLOSE CLOSED"),
        row("no CLOSE from a cut taken before every head heard TELL", Phase.RUNNING,
            "1 0 A 0 NONE", "1 1 A 0 TELL TOLD",
            "2 0 T 0 NONE", "2 1 A 0 NONE TOLD",
            "3 0 A 0 NONE", "3 1 A 0 NONE TOLD",
            "4 0 T 0 NONE", "4 1 T 0 CLOSE CLOSED"),
        row("a final firing's record logged at the cut delays CLOSE", Phase.RUNNING,
            "1 0 A 0 NONE", "1 1 A 0 TELL TOLD",
            "2 0 T 1 NONE", "2 1 T 0 NONE TOLD", "3 0 T 0 NONE", "3 1 T 0 CLOSE CLOSED"),
        row("an older cut completing after a newer one was judged is not judged", Phase.RUNNING,
            "1 0 A 0 NONE", "2 0 A 1 NONE", "2 1 A 0 NONE RUNNING", "1 1 A 0 NONE RUNNING",
            "3 0 A 0 NONE", "3 1 A 0 TELL TOLD"),
        row("an older cut arriving whole after a newer one was judged is not judged", Phase.RUNNING,
            "2 0 A 1 NONE", "2 1 A 0 NONE", "1 0 A 0 NONE", "1 1 A 0 NONE RUNNING"),
        row("a newer complete cut drops an older incomplete one", Phase.RUNNING,
            "1 0 A 0 NONE", "2 0 A 0 NONE", "2 1 A 0 TELL TOLD", "1 1 A 0 NONE TOLD"),
        row("after CLOSE nothing more is decided", Phase.RUNNING,
            "1 0 A 0 NONE", "1 1 A 0 TELL", "2 0 T 0 NONE", "2 1 T 0 CLOSE",
            "3 0 T 0 NONE", "3 1 T 0 NONE CLOSED"),
        row("restored RUNNING: TELL from a quiet cut", Phase.RUNNING,
            "7 0 A 0 NONE", "7 1 A 0 TELL TOLD"),
        row("restored TOLD: no second TELL from AWAITING heads, CLOSE from a TOLD cut", Phase.TOLD,
            "7 0 A 0 NONE", "7 1 A 0 NONE TOLD", "8 0 T 0 NONE", "8 1 T 0 CLOSE CLOSED"),
        row("restored CLOSED: nothing is decided", Phase.CLOSED,
            "7 0 A 0 NONE", "7 1 A 0 NONE CLOSED", "8 0 T 0 NONE", "8 1 T 0 NONE CLOSED"));
  }

  private static Arguments row(String name, Phase restored, String... steps) {
    return Arguments.of(name, restored, steps);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void rule(String name, Phase restored, String[] steps) {
    LoopEnding ending = new LoopEnding(2, restored, (subtask, attempt) -> attempt == 0);
    assertEquals(restored, ending.phase());
    for (String step : steps) {
      String[] f = step.split(" ");
      HeadPhase phase = f[2].equals("A") ? HeadPhase.AWAITING : HeadPhase.TOLD;
      LoopEnding.Report r = new LoopEnding.Report(
          Long.parseLong(f[0]), Integer.parseInt(f[1]), 0, phase, Long.parseLong(f[3]));
      assertEquals(Decision.valueOf(f[4]), ending.report(r), step);
      if (f.length > 5) assertEquals(Phase.valueOf(f[5]), ending.phase(), step);
    }
  }

  private static LoopEnding.Report awaiting(long checkpoint, int subtask, int attempt) {
    return new LoopEnding.Report(checkpoint, subtask, attempt, HeadPhase.AWAITING, 0);
  }

  @Test
  void aReportFromAnAttemptNotRegisteredIsIgnored() {
    Map<Integer, Integer> live = new HashMap<>(Map.of(0, 1, 1, 0));
    LoopEnding ending = new LoopEnding(2, Phase.RUNNING, (s, a) -> live.get(s) == a);
    assertEquals(Decision.NONE, ending.report(awaiting(1, 0, 0)), "subtask 0's dead attempt 0");
    assertEquals(Decision.NONE, ending.report(awaiting(1, 1, 0)), "the cut lacks a live subtask 0");
    assertEquals(Decision.TELL, ending.report(awaiting(1, 0, 1)));
  }

  @Test
  void aDeadAttemptsReportDoesNotReplaceALiveOne() {
    LoopEnding ending = new LoopEnding(2, Phase.RUNNING, (s, a) -> a == (s == 0 ? 1 : 0));
    assertEquals(Decision.NONE, ending.report(awaiting(1, 0, 1)));
    assertEquals(Decision.NONE, ending.report(awaiting(1, 0, 0)), "late, from the dead attempt");
    assertEquals(Decision.TELL, ending.report(awaiting(1, 1, 0)));
  }

  @Test
  void judgedAndOlderCutsAreNotKept() {
    LoopEnding ending = new LoopEnding(2, Phase.RUNNING, (s, a) -> true);
    ending.report(awaiting(1, 0, 0));
    ending.report(new LoopEnding.Report(2, 0, 0, HeadPhase.AWAITING, 3));
    ending.report(awaiting(3, 0, 0));
    assertEquals(3, ending.heldCuts());
    assertEquals(Decision.NONE, ending.report(awaiting(2, 1, 0)));
    assertEquals(1, ending.heldCuts(), "cuts 1 and 2 are dropped, cut 3 waits for subtask 1");
  }

  @Test
  void aHeldReportWhoseAttemptDiedSinceDoesNotCount() {
    Map<Integer, Integer> live = new HashMap<>(Map.of(0, 0, 1, 0));
    LoopEnding ending = new LoopEnding(2, Phase.RUNNING, (s, a) -> live.get(s) == a);
    assertEquals(Decision.NONE, ending.report(awaiting(1, 0, 0)));
    live.put(0, 1); // subtask 0 failed; attempt 1 has not registered in the rule yet
    assertEquals(Decision.NONE, ending.report(awaiting(1, 1, 0)), "attempt 0's report is dead");
    assertEquals(Decision.TELL, ending.report(awaiting(1, 0, 1)), "the new attempt's report");
  }

  @Test
  void aNewAttemptRegisteringDropsTheOldAttemptsReports() {
    Map<Integer, Integer> live = new HashMap<>(Map.of(0, 0, 1, 0));
    LoopEnding ending = new LoopEnding(2, Phase.RUNNING, (s, a) -> a <= live.get(s));
    assertEquals(Decision.NONE, ending.report(awaiting(1, 0, 0)));
    live.put(0, 1);
    ending.attemptRegistered(0, 1);
    // Attempt 0 still passes this predicate (as both would with concurrent attempts): only the
    // registration dropped its report.
    assertEquals(Decision.NONE, ending.report(awaiting(1, 1, 0)));
    assertEquals(Decision.TELL, ending.report(awaiting(1, 0, 1)));
  }

  @Test
  void aReportOutsideTheParallelismOrWithNegativeCountIsABug() {
    LoopEnding ending = new LoopEnding(2, Phase.RUNNING, (s, a) -> true);
    assertThrows(IllegalArgumentException.class, () -> ending.report(awaiting(1, 2, 0)));
    assertThrows(IllegalArgumentException.class,
        () -> ending.report(new LoopEnding.Report(1, 0, 0, HeadPhase.AWAITING, -1)));
  }
}
