package dev.pipewright.flink;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

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
