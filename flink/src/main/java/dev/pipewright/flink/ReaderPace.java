package dev.pipewright.flink;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

/**
 * A worker-made source's `ratePerSec` (source.nexmark, source.generator), shared by its readers as
 * locally (engine/operators/ratePacer.ts): each reader makes ratePerSec / parallelism indexes a
 * second, in slices of a tenth of a second's worth (at least one), each slice paid for with
 * permits of Flink's own rate limiter (RateLimiterStrategy.perSecond, a Guava RateLimiter in
 * flink-core) before it is asked of the worker. The limiter waits on a thread of its own; the
 * reader says it has nothing available meanwhile, so the task's mailbox (checkpoints) goes on.
 * Without a rate: slices of {@code unpaced} and no waiting.
 */
final class ReaderPace {
  /**
   * Slices per second when rate-limited: a tenth of the local pacer's, since each slice here
   * costs a hand-off to the limiter's thread, a mail back and a worker round trip (measured, 1,500
   * records at 150 a second over two readers: slices of one record each took 16.5 s, not 10 s).
   */
  private static final double SLICES_PER_SECOND = 10;

  private final RateLimiter<NexmarkSplit> limiter;
  private final long perSlice;
  /** The permits of the next slice, asked for and not yet used; null when none is pending. */
  private CompletionStage<Void> permit;

  @SuppressWarnings("unchecked")
  ReaderPace(double ratePerSec, int parallelism, long unpaced) {
    if (ratePerSec <= 0) {
      limiter = null;
      perSlice = unpaced;
    } else {
      limiter = RateLimiterStrategy.perSecond(ratePerSec).createRateLimiter(parallelism);
      perSlice = Math.max(1, (long) Math.floor(ratePerSec / parallelism / SLICES_PER_SECOND));
    }
  }

  /** How many indexes the next slice may make. */
  long perSlice() {
    return perSlice;
  }

  /**
   * Null when a slice of `count` indexes may be made now; else a future that completes once it
   * may (poll again then).
   */
  CompletableFuture<Void> await(long count) {
    if (limiter == null) return null;
    // A slice asked for is used whole even if the next is smaller (the last of a bounded split).
    if (permit == null) permit = limiter.acquire((int) count);
    CompletableFuture<Void> due = permit.toCompletableFuture();
    if (due.isDone()) {
      permit = null;
      return null;
    }
    return due;
  }
}
