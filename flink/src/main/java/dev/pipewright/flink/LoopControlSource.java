package dev.pipewright.flink;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A loop head's control input (issue 29, design note §2): a FLIP-27 source at the head's
 * parallelism, co-located with it, whose enumerator decides from the heads' reports when the
 * loop ends (LoopEnding). It keeps the head task's input open after its regular inputs end, so
 * the head goes on taking checkpoints while the loop drains: Flink 2.3 offers no other way to
 * keep a task whose inputs all ended alive through checkpoints (§2.1).
 *
 * <p>Unbounded: it ends only when the enumerator decides CLOSE, which a job without a bounded
 * input never reaches.
 */
final class LoopControlSource
    implements Source<LoopSignal, LoopControlSplit, LoopEnding.Phase>, ResultTypeQueryable<LoopSignal> {
  private static final long serialVersionUID = 1L;

  /** The loop head operator's id, which names the reports' mailboxes (LoopReports). */
  private final String loop;

  LoopControlSource(String loop) {
    this.loop = loop;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<LoopSignal, LoopControlSplit> createReader(SourceReaderContext context) {
    return new LoopControlReader(context, loop);
  }

  @Override
  public SplitEnumerator<LoopControlSplit, LoopEnding.Phase> createEnumerator(
      SplitEnumeratorContext<LoopControlSplit> context) {
    return new LoopControlEnumerator(context, LoopEnding.Phase.RUNNING);
  }

  @Override
  public SplitEnumerator<LoopControlSplit, LoopEnding.Phase> restoreEnumerator(
      SplitEnumeratorContext<LoopControlSplit> context, LoopEnding.Phase phase) {
    return new LoopControlEnumerator(context, phase);
  }

  @Override
  public SimpleVersionedSerializer<LoopControlSplit> getSplitSerializer() {
    return new LoopControlSplit.Serializer();
  }

  @Override
  public SimpleVersionedSerializer<LoopEnding.Phase> getEnumeratorCheckpointSerializer() {
    return new LoopControlEnumerator.StateSerializer();
  }

  @Override
  public TypeInformation<LoopSignal> getProducedType() {
    return TypeInformation.of(LoopSignal.class);
  }
}
