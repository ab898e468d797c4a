package dev.pipewright.flink;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;

/**
 * The in-JVM channel of a loop (issue 29, design note §1.3): what tail subtask j
 * of loop head H hands to head subtask j, which runs in the same TaskManager JVM (the two are
 * co-located). There is no network edge from tail to head, so Flink's graph has no cycle.
 *
 * <p>Queues live in a static registry keyed by (job, loop head, subtask, attempt): tasks of one
 * job on one TaskManager share the job's class loader, and the job id keeps jobs on one
 * MiniCluster apart. Head and tail restart together (co-located tasks share a pipelined region),
 * so their attempt numbers move in lockstep and a dead attempt's queue is never read again.
 *
 * <p>One producer (the tail's task thread) and one consumer (the head's task thread). The queue
 * is unbounded, as the local engine's feedback channels are: a tail that blocked on a full queue
 * could deadlock the loop, since no credit-based flow control spans it. The consumer does not
 * poll: it registers a drain callback (in the runner, a mail to the head's mailbox), which the
 * producer runs once each time the queue goes from empty to non-empty, and registering runs it
 * when items already wait. The callback runs outside the queue's lock, so it may take the
 * mailbox's own lock freely.
 */
public final class LoopQueue {
  /** What the tail hands to the head. */
  public sealed interface Item permits Feedback, Sentinel {}

  /**
   * A feedback record: its edge's id (not its index, so a logged record survives edges being
   * reordered in a later plan), its JSON text, its event time if it has one, and the key the
   * tail's keyBy set, so the head can log it by key group without parsing the text again.
   */
  public record Feedback(String edgeId, String text, boolean hasTime, long time, Object key)
      implements Item {}

  /**
   * The tail's mark for checkpoint N: every feedback record emitted before barrier N is ahead of
   * it in the queue (the tail puts it in prepareSnapshotPreBarrier, after aligning barrier N).
   */
  public record Sentinel(long checkpointId) implements Item {}

  /** Takes the items of a drain, in order. */
  @FunctionalInterface
  public interface ItemHandler {
    void take(Item item) throws Exception;
  }

  private record Id(JobID job, String loop, int subtask, int attempt) {}

  private static final ConcurrentHashMap<Id, LoopQueue> QUEUES = new ConcurrentHashMap<>();

  /** The queue of (job, loop head, subtask, attempt): the one that exists, or a new one. */
  public static LoopQueue of(JobID job, String loop, int subtask, int attempt) {
    return QUEUES.computeIfAbsent(new Id(job, loop, subtask, attempt), LoopQueue::new);
  }

  private final Id id;
  private final Object lock = new Object();
  /** The items put and not yet taken, oldest first. Guarded by lock. */
  private ArrayDeque<Item> items = new ArrayDeque<>();
  /**
   * An empty deque the consumer swaps in for `items` when it drains, so a drain moves the whole
   * batch out under the lock without copying it. Touched only by the consumer.
   */
  private ArrayDeque<Item> spare = new ArrayDeque<>();
  /** The consumer's drain callback; null until it registers and after the head closes. */
  private Runnable drain;
  private boolean headClosed;
  /** The head closed because its input ended (the job is ending), not because its task failed. */
  private boolean headEnded;
  private boolean tailClosed;

  private LoopQueue(Id id) {
    this.id = id;
  }

  /**
   * The producer's put. A record put after the head ended cannot be processed any more: that is
   * the local engine's lost-record line, and the job fails without restarts (they would end the
   * same way). After the head closed for a failure the item is dropped: the tail's task is in the
   * same pipelined region and is being restarted from the last checkpoint with it, and failing
   * here could reach the JobManager first and hide the head's real cause.
   */
  public void put(Item item) {
    Runnable trigger;
    synchronized (lock) {
      if (tailClosed) throw new IllegalStateException(describe() + ": a put after the tail closed");
      if (headEnded) {
        if (item instanceof Feedback r) throw UserError.fail(leftOnEdge(r.edgeId()));
        return; // a sentinel for a checkpoint after the head's end: nothing waits for it
      }
      if (headClosed) return;
      items.addLast(item);
      trigger = items.size() == 1 ? drain : null;
    }
    if (trigger != null) trigger.run();
  }

  /**
   * The consumer registers its drain callback (once). Items put before wait for it, and the
   * callback runs now if there are any: a tail may start feeding before its head has opened.
   */
  public void register(Runnable drainCallback) {
    boolean waiting;
    synchronized (lock) {
      if (drain != null) throw new IllegalStateException(describe() + ": a second consumer registered");
      if (headClosed) throw new IllegalStateException(describe() + ": registered after the head closed");
      drain = drainCallback;
      waiting = !items.isEmpty();
    }
    if (waiting) drainCallback.run();
  }

  /**
   * Whether the head has registered: the tail's check that head and tail share this JVM. In a
   * different JVM (co-location broken, or a class loader not shared), the head registers on a
   * queue of its own and this one never gets a consumer.
   */
  public boolean headRegistered() {
    synchronized (lock) {
      return drain != null || headClosed;
    }
  }

  /**
   * The consumer takes every item present, in order, handing each to `handler` outside the
   * lock. Returns how many it took. The producer's next put after this runs the callback again.
   */
  public int drainTo(ItemHandler handler) throws Exception {
    ArrayDeque<Item> taken;
    synchronized (lock) {
      if (items.isEmpty()) return 0;
      taken = items;
      items = spare;
    }
    int n = taken.size();
    try {
      for (Item item; (item = taken.pollFirst()) != null; ) handler.take(item);
    } finally {
      taken.clear(); // a handler that threw fails the head's task; what it left goes with it
      spare = taken;
    }
    return n;
  }

  /**
   * The head is done with the queue. `ended`: its input ended and it finished (the job is
   * ending); a record still waiting, or put later, would be lost, so either fails the job with the
   * local engine's line. Otherwise its task failed or was cancelled: what waits is dropped with
   * the attempt. Idempotent; the head calls it from finish() with true and from close() with false.
   */
  public void closeHead(boolean ended) {
    Feedback left = null;
    synchronized (lock) {
      if (ended && !headClosed) {
        headEnded = true;
        for (Item item : items) {
          if (item instanceof Feedback r) {
            left = r;
            break;
          }
        }
      }
      headClosed = true;
      drain = null;
      items.clear();
    }
    QUEUES.remove(id, this);
    if (left != null) throw UserError.fail(leftOnEdge(left.edgeId()));
  }

  /** The tail is done: no more puts. What it put stays for the head to take. Idempotent. */
  public void closeTail() {
    synchronized (lock) {
      tailClosed = true;
    }
    QUEUES.remove(id, this);
  }

  /** The local engine's line for a record no operator will process (subtask.ts). */
  static String leftOnEdge(String edgeId) {
    return "internal: a record was left on edge \"" + edgeId + "\" when the job ended";
  }

  /** Whether the registry still holds this queue (tests: a closed queue is removed). */
  static boolean registered(JobID job, String loop, int subtask, int attempt) {
    return QUEUES.containsKey(new Id(job, loop, subtask, attempt));
  }

  private String describe() {
    return "loop \"" + id.loop() + "\" subtask " + id.subtask() + " attempt " + id.attempt();
  }
}
