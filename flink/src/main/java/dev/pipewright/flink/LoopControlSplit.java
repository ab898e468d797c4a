package dev.pipewright.flink;

import java.io.IOException;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The split type of the loop's control source (LoopControlSource), which has no splits: a
 * reader's input is the enumerator's decisions, sent as events, not a split's data. Flink's
 * Source API still needs a type and a serializer; the enumerator never assigns one.
 */
final class LoopControlSplit implements SourceSplit {
  static final LoopControlSplit INSTANCE = new LoopControlSplit();

  private LoopControlSplit() {}

  @Override
  public String splitId() {
    return "loop-control";
  }

  /** The split has no content: zero bytes. */
  static final class Serializer implements SimpleVersionedSerializer<LoopControlSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(LoopControlSplit split) {
      return new byte[0];
    }

    @Override
    public LoopControlSplit deserialize(int version, byte[] serialized) throws IOException {
      if (version != 1 || serialized.length != 0) {
        throw new IOException("not a loop-control split: version " + version + ", "
            + serialized.length + " bytes");
      }
      return INSTANCE;
    }
  }
}
