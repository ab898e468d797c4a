package dev.pipewright.flink;

import java.io.IOException;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * A source's watermarks by the local engine's rule (docs/job-file.md, "Event time"): after each
 * record, the highest event time so far minus `maxOutOfOrdernessMs`, made from the data alone,
 * never on a wall-clock period, so the same watermarks fall between the same records as locally.
 * (Flink's bounded-out-of-orderness generator says one less, and periodically.) A watermark that
 * would not advance is not sent.
 */
final class SourceWatermarks implements WatermarkGenerator<String> {
  private final long maxOutOfOrdernessMs;
  private long highest = Long.MIN_VALUE;
  private long sent = Long.MIN_VALUE;

  SourceWatermarks(long maxOutOfOrdernessMs) {
    this.maxOutOfOrdernessMs = maxOutOfOrdernessMs;
  }

  /**
   * A source's watermarks by this rule, `op`'s bound, idle after its `idleTimeoutMs` without a
   * record (as locally); each record keeps the time its source gave it.
   */
  static WatermarkStrategy<String> localRule(Plan.Operator op) {
    long bound = op.maxOutOfOrdernessMs;
    WatermarkStrategy<String> strategy = WatermarkStrategy.forGenerator(context -> new SourceWatermarks(bound));
    return op.idleTimeoutMs > 0 ? strategy.withIdleness(Duration.ofMillis(op.idleTimeoutMs)) : strategy;
  }

  /**
   * The same, each record's time read from its `timestampField` (its source has let through only
   * records with one); without the field, the time its source gave it.
   */
  static WatermarkStrategy<String> fromField(Plan.Operator op) {
    String[] path = op.timestampPath;
    WatermarkStrategy<String> rule = localRule(op);
    if (path == null) return rule;
    return rule.withTimestampAssigner((SerializableTimestampAssigner<String>) (text, given) -> {
      try {
        return EventTimes.read(text, path);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  @Override
  public void onEvent(String record, long timestamp, WatermarkOutput output) {
    if (timestamp <= highest) return;
    highest = timestamp;
    long watermark = highest - maxOutOfOrdernessMs;
    if (watermark > sent) {
      sent = watermark;
      output.emitWatermark(new Watermark(watermark));
    }
  }

  @Override
  public void onPeriodicEmit(WatermarkOutput output) {}
}
