package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.pipewright.flink.LoopEnding.HeadPhase;
import dev.pipewright.flink.LoopEnding.Phase;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.junit.jupiter.api.Test;

/**
 * The control enumerator with a stand-in for Flink's context (two readers): what it sends to
 * which reader attempt, which attempt a report counts for, and its checkpoint. The rule itself is
 * LoopEndingTest's.
 */
class LoopControlEnumeratorTest {
  /** The registered reader attempts, by subtask, and the events sent, as "subtask#attempt EVENT". */
  private final Map<Integer, Map<Integer, ReaderInfo>> readers = new TreeMap<>();
  private final List<String> sent = new ArrayList<>();

  private final SplitEnumeratorContext<LoopControlSplit> context = new SplitEnumeratorContext<>() {
    @Override
    public SplitEnumeratorMetricGroup metricGroup() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
      throw new UnsupportedOperationException("the enumerator names the attempt");
    }

    @Override
    public void sendEventToSourceReader(int subtaskId, int attemptNumber, SourceEvent event) {
      sent.add(subtaskId + "#" + attemptNumber + " " + ((LoopControlEvents.Decided) event).phase);
    }

    @Override
    public int currentParallelism() {
      return 2;
    }

    @Override
    public Map<Integer, ReaderInfo> registeredReaders() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Map<Integer, Map<Integer, ReaderInfo>> registeredReadersOfAttempts() {
      return readers;
    }

    @Override
    public void assignSplits(SplitsAssignment<LoopControlSplit> newSplitAssignments) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void signalNoMoreSplits(int subtask) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
      throw new UnsupportedOperationException();
    }

    @Override
    public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay,
        long period) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void runInCoordinatorThread(Runnable runnable) {
      throw new UnsupportedOperationException();
    }
  };

  private void register(LoopControlEnumerator enumerator, int subtask, int attempt) {
    readers.computeIfAbsent(subtask, s -> new HashMap<>()).put(attempt, new ReaderInfo(subtask, "localhost"));
    enumerator.addReader(subtask);
  }

  private static LoopControlEvents.Report report(int attempt, long checkpoint, HeadPhase phase) {
    return new LoopControlEvents.Report(attempt, new LoopReports.Report(checkpoint, phase, 0));
  }

  @Test
  void aReaderRegisteringIsToldTheDecidedPhase() {
    for (Phase phase : Phase.values()) {
      sent.clear();
      readers.clear();
      LoopControlEnumerator enumerator = new LoopControlEnumerator(context, phase);
      register(enumerator, 1, 3);
      List<String> expected = phase == Phase.RUNNING ? List.of() : List.of("1#3 " + phase);
      assertEquals(expected, sent, "restored " + phase);
    }
  }

  @Test
  void decisionsGoToEveryRegisteredReaderAndCountOnlyLiveAttempts() {
    LoopControlEnumerator enumerator = new LoopControlEnumerator(context, Phase.RUNNING);
    register(enumerator, 0, 0);
    register(enumerator, 1, 0);
    enumerator.handleSourceEvent(0, report(0, 1, HeadPhase.AWAITING));
    // Subtask 1 failed after reporting nothing; its next attempt registers.
    readers.get(1).remove(0);
    register(enumerator, 1, 1);
    enumerator.handleSourceEvent(1, report(0, 1, HeadPhase.AWAITING)); // late, from attempt 0
    assertEquals(List.of(), sent);
    enumerator.handleSourceEvent(1, report(1, 1, HeadPhase.AWAITING));
    assertEquals(List.of("0#0 TOLD", "1#1 TOLD"), sent);
    assertEquals(Phase.TOLD, enumerator.snapshotState(5));
    sent.clear();
    // Where Flink names the attempt itself, its number counts, not the event's.
    enumerator.handleSourceEvent(0, 0, report(9, 2, HeadPhase.TOLD));
    enumerator.handleSourceEvent(1, 1, report(9, 2, HeadPhase.TOLD));
    assertEquals(List.of("0#0 CLOSED", "1#1 CLOSED"), sent);
    assertEquals(Phase.CLOSED, enumerator.snapshotState(6));
  }

  @Test
  void theCheckpointIsThePhase() throws Exception {
    LoopControlEnumerator.StateSerializer serializer = new LoopControlEnumerator.StateSerializer();
    for (Phase phase : Phase.values()) {
      assertEquals(phase, serializer.deserialize(serializer.getVersion(), serializer.serialize(phase)));
    }
    assertThrows(IOException.class, () -> serializer.deserialize(2, serializer.serialize(Phase.TOLD)));
    byte[] unknown = {0, 4, 'D', 'O', 'N', 'E'};
    assertThrows(IOException.class, () -> serializer.deserialize(1, unknown));
  }

  @Test
  void theSplitHasNoContent() throws Exception {
    LoopControlSplit.Serializer serializer = new LoopControlSplit.Serializer();
    byte[] bytes = serializer.serialize(LoopControlSplit.INSTANCE);
    assertEquals(0, bytes.length);
    assertSame(LoopControlSplit.INSTANCE, serializer.deserialize(1, bytes));
    assertThrows(IOException.class, () -> serializer.deserialize(1, new byte[] {1}));
  }
}
