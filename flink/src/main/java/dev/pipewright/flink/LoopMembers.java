package dev.pipewright.flink;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.common.JobID;

/**
 * How a loop head's TELL reaches the worker operator chained after it (issue 29, design note
 * §1.4): LoopHead takes TELL on its control input, but the final firing is JsOperator's, and Flink
 * gives chained operators no handle on each other. Both are subtask j of the same attempt in the
 * same task (the same JVM and thread), so the worker operator registers here under (job, loop
 * head, subtask, attempt) when it opens, and LoopHead looks it up when TELL comes. Keyed like
 * LoopQueue and LoopReports, for their reasons: one job's tasks share its class loader, JobID
 * separates MiniCluster jobs, and a dead attempt's entry is never read.
 */
final class LoopMembers {
  /** The head operator's side of a loop: its input is over, loop records aside. */
  @FunctionalInterface
  interface Member {
    void loopInputEnded() throws Exception;
  }

  private record Id(JobID job, String loop, int subtask, int attempt) {}

  private static final ConcurrentHashMap<Id, Member> MEMBERS = new ConcurrentHashMap<>();

  private LoopMembers() {}

  /** The worker operator of loop head `loop`, subtask and attempt, opened. */
  static void register(JobID job, String loop, int subtask, int attempt, Member member) {
    MEMBERS.put(new Id(job, loop, subtask, attempt), member);
  }

  /** It closed (on success and on failure alike). */
  static void unregister(JobID job, String loop, int subtask, int attempt, Member member) {
    MEMBERS.remove(new Id(job, loop, subtask, attempt), member);
  }

  /**
   * The registered member. Missing means the worker operator is not chained after the head in this
   * task, which JobBuilder always arranges: a bug, so the job fails loudly rather than never
   * running the final firing.
   */
  static Member of(JobID job, String loop, int subtask, int attempt) {
    Member member = MEMBERS.get(new Id(job, loop, subtask, attempt));
    if (member == null) {
      throw new IllegalStateException("loop \"" + loop + "\": subtask " + subtask
          + "'s head operator is not chained after its loop head");
    }
    return member;
  }
}
