package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.pipewright.flink.LoopEnding.HeadPhase;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.junit.jupiter.api.Test;

/** The head-to-reader report box alone: identity, order, the reader's wake-up, closing. */
class LoopReportsTest {
  private final JobID job = new JobID();

  private static LoopReports.Report report(long checkpoint, long logged) {
    return new LoopReports.Report(checkpoint, HeadPhase.AWAITING, logged);
  }

  @Test
  void oneBoxPerJobLoopSubtaskAndAttempt() {
    LoopReports box = LoopReports.of(job, "h", 0, 0);
    assertSame(box, LoopReports.of(job, "h", 0, 0));
    assertNotSame(box, LoopReports.of(job, "h", 0, 1));
    assertNotSame(box, LoopReports.of(job, "h", 1, 0));
    assertNotSame(box, LoopReports.of(job, "g", 0, 0));
    assertNotSame(box, LoopReports.of(new JobID(), "h", 0, 0));
  }

  @Test
  void aPostWakesTheWaitingReaderAndReportsComeOutInOrder() throws Exception {
    LoopReports box = LoopReports.of(job, "h", 0, 0);
    CompletableFuture<Void> waiting = box.available();
    assertFalse(waiting.isDone());
    assertSame(waiting, box.available(), "one future while nothing arrives");
    // Posted from another thread, as the head's task thread does.
    Thread head = new Thread(() -> {
      box.post(report(1, 2));
      box.post(report(2, 0));
    });
    head.start();
    waiting.get(30, TimeUnit.SECONDS);
    head.join();
    assertTrue(box.available().isDone(), "reports wait");
    assertEquals(List.of(report(1, 2), report(2, 0)), box.takeAll());
    assertEquals(List.of(), box.takeAll());
    assertFalse(box.available().isDone());
  }

  @Test
  void aFutureTheReaderCompletedItselfIsReplaced() {
    LoopReports box = LoopReports.of(job, "h", 0, 0);
    CompletableFuture<Void> first = box.available();
    first.complete(null); // the reader woke for an enumerator event
    CompletableFuture<Void> second = box.available();
    assertFalse(second.isDone(), "an empty box hands out a fresh future");
    box.post(report(3, 0));
    assertTrue(second.isDone());
  }

  @Test
  void closingWakesTheReaderDropsLaterPostsAndLeavesTheRegistry() {
    LoopReports box = LoopReports.of(job, "h", 2, 1);
    box.post(report(1, 0));
    box.takeAll();
    CompletableFuture<Void> waiting = box.available();
    assertTrue(LoopReports.registered(job, "h", 2, 1));
    box.close();
    assertTrue(waiting.isDone());
    assertFalse(LoopReports.registered(job, "h", 2, 1));
    box.post(report(2, 0));
    assertEquals(List.of(), box.takeAll(), "the head's post after the reader closed is dropped");
    box.close();
  }
}
