package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;

/** The in-JVM loop channel alone: order, drain callbacks, identity, closing, two threads. */
class LoopQueueTest {
  private final JobID job = new JobID();

  private static LoopQueue.Feedback feedback(String edge, String text, Object key) {
    return new LoopQueue.Feedback(edge, text, false, Long.MIN_VALUE, key);
  }

  private static List<LoopQueue.Item> drain(LoopQueue queue) throws Exception {
    List<LoopQueue.Item> taken = new ArrayList<>();
    queue.drainTo(taken::add);
    return taken;
  }

  @Test
  void itemsComeOutInOrderWithTheSentinelInItsPlace() throws Exception {
    LoopQueue queue = LoopQueue.of(job, "h", 0, 0);
    queue.register(() -> {});
    LoopQueue.Feedback a = new LoopQueue.Feedback("fb", "{\"n\":1}", true, 42L, "k1");
    LoopQueue.Feedback b = feedback("fb2", "{\"n\":2}", 7.0);
    LoopQueue.Feedback c = feedback("fb", "{\"n\":3}", "k3");
    queue.put(a);
    queue.put(new LoopQueue.Sentinel(5));
    queue.put(b);
    queue.put(new LoopQueue.Sentinel(6));
    queue.put(c);
    List<LoopQueue.Item> taken = drain(queue);
    assertEquals(List.of(a, new LoopQueue.Sentinel(5), b, new LoopQueue.Sentinel(6), c), taken);
    assertEquals(List.of(), drain(queue));
    LoopQueue.Feedback first = (LoopQueue.Feedback) taken.get(0);
    assertTrue(first.hasTime());
    assertEquals(42L, first.time());
    assertEquals("k1", first.key());
  }

  @Test
  void drainRunsOncePerEmptyToNonEmptyTransition() throws Exception {
    LoopQueue queue = LoopQueue.of(job, "h", 0, 0);
    AtomicInteger drains = new AtomicInteger();
    queue.register(drains::incrementAndGet);
    assertEquals(0, drains.get(), "nothing waits at registration");
    queue.put(feedback("fb", "1", "k"));
    queue.put(feedback("fb", "2", "k"));
    queue.put(new LoopQueue.Sentinel(1));
    assertEquals(1, drains.get());
    assertEquals(3, queue.drainTo(item -> {}));
    queue.put(feedback("fb", "3", "k"));
    assertEquals(2, drains.get());
    // A put while the consumer is taking a batch lands in an empty queue: one more drain.
    queue.drainTo(item -> queue.put(feedback("fb", "4", "k")));
    assertEquals(3, drains.get());
    assertEquals(List.of(feedback("fb", "4", "k")), drain(queue));
    assertEquals(0, queue.drainTo(item -> {}));
    assertEquals(3, drains.get(), "an empty drain triggers nothing");
  }

  @Test
  void registeringDrainsWhatIsAlreadyWaiting() throws Exception {
    LoopQueue queue = LoopQueue.of(job, "h", 1, 0);
    queue.put(feedback("fb", "early", "k"));
    queue.put(new LoopQueue.Sentinel(3));
    assertFalse(queue.headRegistered());
    AtomicInteger drains = new AtomicInteger();
    queue.register(drains::incrementAndGet);
    assertTrue(queue.headRegistered());
    assertEquals(1, drains.get());
    queue.put(feedback("fb", "later", "k"));
    assertEquals(1, drains.get(), "the queue was not empty");
    assertEquals(List.of(feedback("fb", "early", "k"), new LoopQueue.Sentinel(3), feedback("fb", "later", "k")),
        drain(queue));
  }

  @Test
  void jobsLoopsSubtasksAndAttemptsHaveTheirOwnQueues() throws Exception {
    LoopQueue q = LoopQueue.of(job, "h", 0, 0);
    assertSame(q, LoopQueue.of(job, "h", 0, 0));
    LoopQueue otherAttempt = LoopQueue.of(job, "h", 0, 1);
    LoopQueue otherSubtask = LoopQueue.of(job, "h", 1, 0);
    LoopQueue otherLoop = LoopQueue.of(job, "g", 0, 0);
    LoopQueue otherJob = LoopQueue.of(new JobID(), "h", 0, 0);
    for (LoopQueue other : List.of(otherAttempt, otherSubtask, otherLoop, otherJob)) {
      assertNotSame(q, other);
    }
    otherAttempt.put(feedback("fb", "attempt 1", "k"));
    otherJob.put(feedback("fb", "other job", "k"));
    q.put(feedback("fb", "attempt 0", "k"));
    assertEquals(List.of(feedback("fb", "attempt 0", "k")), drain(q));
    assertEquals(List.of(feedback("fb", "attempt 1", "k")), drain(otherAttempt));
    assertEquals(List.of(feedback("fb", "other job", "k")), drain(otherJob));
  }

  @Test
  void aPutAfterTheHeadEndedFailsWithTheLocalLine() throws Exception {
    LoopQueue queue = LoopQueue.of(job, "h", 0, 0);
    queue.register(() -> {});
    queue.put(new LoopQueue.Sentinel(1));
    queue.closeHead(true); // a sentinel left over is no lost record
    assertFalse(LoopQueue.registered(job, "h", 0, 0), "a closed queue leaves the registry");
    assertTrue(queue.headRegistered(), "a head that ended was here");
    queue.put(new LoopQueue.Sentinel(2));
    SuppressRestartsException e = assertThrows(SuppressRestartsException.class,
        () -> queue.put(feedback("back-to-owners", "{}", "k")));
    assertInstanceOf(UserError.class, e.getCause());
    assertEquals("internal: a record was left on edge \"back-to-owners\" when the job ended",
        e.getCause().getMessage());
    assertEquals(e.getCause().getMessage(), Runner.message(e));
    // The head's close() after its finish() changes nothing.
    queue.closeHead(false);
    assertThrows(SuppressRestartsException.class, () -> queue.put(feedback("back-to-owners", "{}", "k")));
  }

  @Test
  void aRecordStillWaitingWhenTheHeadEndsIsLost() {
    LoopQueue queue = LoopQueue.of(job, "h", 0, 0);
    queue.register(() -> {});
    queue.put(new LoopQueue.Sentinel(1));
    queue.put(feedback("fb", "{}", "k"));
    SuppressRestartsException e = assertThrows(SuppressRestartsException.class, () -> queue.closeHead(true));
    assertEquals(LoopQueue.leftOnEdge("fb"), e.getCause().getMessage());
  }

  @Test
  void afterAFailedHeadPutsAreDroppedWithTheAttempt() throws Exception {
    LoopQueue queue = LoopQueue.of(job, "h", 0, 0);
    queue.register(() -> {});
    queue.put(feedback("fb", "{}", "k"));
    queue.closeHead(false);
    queue.put(feedback("fb", "{}", "k")); // the tail is being restarted with its head
    assertEquals(0, queue.drainTo(item -> {}));
    assertFalse(LoopQueue.registered(job, "h", 0, 0));
  }

  @Test
  void theTailClosingLeavesItsItemsForTheHead() throws Exception {
    LoopQueue queue = LoopQueue.of(job, "h", 0, 0);
    queue.put(feedback("fb", "last", "k"));
    queue.closeTail();
    assertFalse(LoopQueue.registered(job, "h", 0, 0));
    assertThrows(IllegalStateException.class, () -> queue.put(feedback("fb", "after", "k")));
    AtomicInteger drains = new AtomicInteger();
    queue.register(drains::incrementAndGet);
    assertEquals(1, drains.get());
    assertEquals(List.of(feedback("fb", "last", "k")), drain(queue));
    assertNotSame(queue, LoopQueue.of(job, "h", 0, 0), "a closed queue is not found again");
  }

  /**
   * The tail's thread puts while the head's "mailbox" (one thread) drains when told: nothing is
   * lost, nothing comes twice, the order holds, and no drain finds the queue needlessly woken.
   */
  @Test
  void aProducerAndAConsumerThreadKeepOrderAndLoseNothing() throws Exception {
    int n = 200_000;
    LoopQueue queue = LoopQueue.of(job, "h", 0, 0);
    ExecutorService mailbox = Executors.newSingleThreadExecutor();
    List<LoopQueue.Item> taken = new ArrayList<>(n);
    AtomicInteger drains = new AtomicInteger();
    AtomicInteger emptyDrains = new AtomicInteger();
    queue.register(() -> mailbox.execute(() -> {
      drains.incrementAndGet();
      try {
        if (queue.drainTo(taken::add) == 0) emptyDrains.incrementAndGet();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    }));
    Thread producer = new Thread(() -> {
      for (int i = 0; i < n; i++) {
        queue.put(i % 1000 == 999 ? new LoopQueue.Sentinel(i) : feedback("fb", Integer.toString(i), i % 7));
      }
    });
    producer.start();
    producer.join();
    mailbox.shutdown();
    assertTrue(mailbox.awaitTermination(60, TimeUnit.SECONDS));
    assertEquals(n, taken.size());
    for (int i = 0; i < n; i++) {
      LoopQueue.Item item = taken.get(i);
      if (i % 1000 == 999) assertEquals(new LoopQueue.Sentinel(i), item);
      else assertEquals(Integer.toString(i), ((LoopQueue.Feedback) item).text());
    }
    assertEquals(0, emptyDrains.get(), "each drain mail found the items that posted it");
    assertTrue(drains.get() >= 1);
  }
}
