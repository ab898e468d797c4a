package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * source.nexmark on Flink: the local engine's NEXMark stream, event n made by the engine's own
 * generator in a worker beside each reader (NexmarkReader), split by event number as locally
 * (NexmarkSplit), so event n, its text and its time are the same on both engines at any
 * parallelism. Bounded when `count` is set. source.generator is the same source: its worker
 * makes record i with the user's generate (engine/flink/generatorMaker.ts), split alike.
 */
public final class NexmarkSource implements Source<String, NexmarkSplit, List<NexmarkSplit>> {
  private static final long serialVersionUID = 1L;

  final String operatorId;
  final String operatorJson;
  final List<String> workerCommand;
  final int maxParallelism;
  /** `count`, or -1 without end. */
  final long count;
  /** `ratePerSec`, shared by the readers; 0: as fast as they can. */
  final double ratePerSec;
  private final int parallelism;

  NexmarkSource(Plan.Operator operator, Plan plan, long count) {
    this.operatorId = operator.id;
    this.operatorJson = operator.json;
    this.workerCommand = new ArrayList<>(plan.workerCommand);
    this.maxParallelism = plan.maxParallelism;
    this.count = count;
    this.parallelism = operator.parallelism;
    try {
      this.ratePerSec = Json.MAPPER.readTree(operator.json).path("params").path("ratePerSec").asDouble(0);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Override
  public Boundedness getBoundedness() {
    return count >= 0 ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<String, NexmarkSplit> createReader(SourceReaderContext context) {
    return new NexmarkReader(context, this);
  }

  @Override
  public SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> createEnumerator(
      SplitEnumeratorContext<NexmarkSplit> context) {
    return new NexmarkEnumerator(context, NexmarkEnumerator.initial(parallelism));
  }

  @Override
  public SplitEnumerator<NexmarkSplit, List<NexmarkSplit>> restoreEnumerator(
      SplitEnumeratorContext<NexmarkSplit> context, List<NexmarkSplit> pending) {
    return new NexmarkEnumerator(context, pending);
  }

  @Override
  public SimpleVersionedSerializer<NexmarkSplit> getSplitSerializer() {
    return new NexmarkSplit.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<List<NexmarkSplit>> getEnumeratorCheckpointSerializer() {
    return new NexmarkEnumerator.StateSerializer();
  }
}
