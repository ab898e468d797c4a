package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;

/**
 * The in-JVM hand-off of a loop head's reports to its control reader (issue 29, design note §2.2):
 * head subtask j posts what it saw at a checkpoint, and control reader j, the same subtask of the
 * same attempt in the same TaskManager JVM (co-located), takes it and sends it to the enumerator.
 * There is no network edge from head to reader: the reader is the head's own input.
 *
 * <p>Mailboxes live in a static registry keyed by (job, loop head, subtask, attempt), for the
 * reasons LoopQueue gives; head and reader restart together, so a dead attempt's box is never
 * read. One poster (the head's task thread) and one taker (the reader's task thread). The reader
 * does not poll: it waits on `available()`, which a post completes, so its task wakes up.
 */
final class LoopReports {
  /** What head j saw at checkpoint N: its phase at snapshot N and the records it logged for N. */
  record Report(long checkpointId, LoopEnding.HeadPhase phase, long logged) {}

  private record Id(JobID job, String loop, int subtask, int attempt) {}

  private static final ConcurrentHashMap<Id, LoopReports> BOXES = new ConcurrentHashMap<>();

  /** The mailbox of (job, loop head, subtask, attempt): the one that exists, or a new one. */
  static LoopReports of(JobID job, String loop, int subtask, int attempt) {
    return BOXES.computeIfAbsent(new Id(job, loop, subtask, attempt), LoopReports::new);
  }

  private final Id id;
  private final Object lock = new Object();
  /** Posted and not taken, oldest first. Guarded by lock. */
  private List<Report> posted = new ArrayList<>();
  /** The future the reader waits on while the box is empty; null when none. Guarded by lock. */
  private CompletableFuture<Void> waiter;
  private boolean closed;

  private LoopReports(Id id) {
    this.id = id;
  }

  /**
   * The head's post. After the reader closed it is dropped: the reader closes when the loop is
   * CLOSED (no report matters any more) or when its task failed, and then the head's goes too.
   */
  void post(Report report) {
    CompletableFuture<Void> wake;
    synchronized (lock) {
      if (closed) return;
      posted.add(report);
      wake = waiter;
      waiter = null;
    }
    // Outside the lock: completing runs the reader task's callbacks, which take their own locks.
    if (wake != null) wake.complete(null);
  }

  /** The reader takes every report posted, oldest first (empty when there is none). */
  List<Report> takeAll() {
    synchronized (lock) {
      if (posted.isEmpty()) return List.of();
      List<Report> taken = posted;
      posted = new ArrayList<>();
      return taken;
    }
  }

  /**
   * Done when a report waits; otherwise a future the next post completes. The reader may complete
   * it itself to wake up for another reason (an event from the enumerator): the next call then
   * hands out a fresh one.
   */
  CompletableFuture<Void> available() {
    synchronized (lock) {
      if (!posted.isEmpty() || closed) return CompletableFuture.completedFuture(null);
      if (waiter == null || waiter.isDone()) waiter = new CompletableFuture<>();
      return waiter;
    }
  }

  /** The reader is done: later posts are dropped and the box leaves the registry. Idempotent. */
  void close() {
    CompletableFuture<Void> wake;
    synchronized (lock) {
      closed = true;
      posted.clear();
      wake = waiter;
      waiter = null;
    }
    BOXES.remove(id, this);
    if (wake != null) wake.complete(null);
  }

  /** Whether the registry still holds this box (tests: a closed box is removed). */
  static boolean registered(JobID job, String loop, int subtask, int attempt) {
    return BOXES.containsKey(new Id(job, loop, subtask, attempt));
  }
}
