package dev.pipewright.flink;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * source.generator's event time on Flink: without a `timestampField` its records have none and
 * it makes no watermarks, as locally; with one, each record comes with the time the worker read
 * from it (as the local reader reads it) and watermarks follow the local rule (SourceWatermarks),
 * idle after `idleTimeoutMs` without a record.
 */
final class GeneratorTimes {
  private GeneratorTimes() {}

  static WatermarkStrategy<String> watermarks(Plan.Operator op) {
    if (op.timestampPath == null) return WatermarkStrategy.noWatermarks();
    long bound = op.maxOutOfOrdernessMs;
    WatermarkStrategy<String> strategy = WatermarkStrategy.forGenerator(context -> new SourceWatermarks(bound));
    return op.idleTimeoutMs > 0 ? strategy.withIdleness(Duration.ofMillis(op.idleTimeoutMs)) : strategy;
  }
}
