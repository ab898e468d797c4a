package dev.pipewright.flink;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * A test's stand-in for a loop's control source (the head's input 2): it emits no signal, and each
 * reader ends once the test says the loop is empty, which lets the head tasks finish. It asks every
 * 10 ms (a poll, not a timing assumption: nothing depends on when it asks). No splits, no state.
 */
final class UntilLoopEmpty implements Source<LoopSignal, UntilLoopEmpty.NoSplit, Integer> {
  private static final long serialVersionUID = 1L;

  /** Whether the loop is empty: the test's own knowledge, read from static state. */
  private final SerializableSupplier<Boolean> empty;

  UntilLoopEmpty(SerializableSupplier<Boolean> empty) {
    this.empty = empty;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<LoopSignal, NoSplit> createReader(SourceReaderContext context) {
    return new SourceReader<>() {
      @Override
      public void start() {}

      @Override
      public InputStatus pollNext(ReaderOutput<LoopSignal> output) {
        return empty.get() ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
      }

      @Override
      public CompletableFuture<Void> isAvailable() {
        return CompletableFuture.runAsync(() -> {},
            CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS));
      }

      @Override
      public List<NoSplit> snapshotState(long checkpointId) {
        return List.of();
      }

      @Override
      public void addSplits(List<NoSplit> splits) {}

      @Override
      public void notifyNoMoreSplits() {}

      @Override
      public void close() {}
    };
  }

  @Override
  public SplitEnumerator<NoSplit, Integer> createEnumerator(SplitEnumeratorContext<NoSplit> context) {
    return new SplitEnumerator<>() {
      @Override
      public void start() {}

      @Override
      public void handleSplitRequest(int subtaskId, String requesterHostname) {}

      @Override
      public void addSplitsBack(List<NoSplit> splits, int subtaskId) {}

      @Override
      public void addReader(int subtaskId) {}

      @Override
      public Integer snapshotState(long checkpointId) {
        return 0;
      }

      @Override
      public void close() {}
    };
  }

  @Override
  public SplitEnumerator<NoSplit, Integer> restoreEnumerator(
      SplitEnumeratorContext<NoSplit> context, Integer state) {
    return createEnumerator(context);
  }

  @Override
  public SimpleVersionedSerializer<NoSplit> getSplitSerializer() {
    return new NoSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<Integer> getEnumeratorCheckpointSerializer() {
    return new NoState();
  }

  /** The control stand-in's split: it has none; Flink wants a type. */
  static final class NoSplit implements SourceSplit {
    @Override
    public String splitId() {
      return "none";
    }
  }

  static final class NoSplitSerializer implements SimpleVersionedSerializer<NoSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(NoSplit split) {
      return new byte[0];
    }

    @Override
    public NoSplit deserialize(int version, byte[] bytes) {
      return new NoSplit();
    }
  }

  static final class NoState implements SimpleVersionedSerializer<Integer> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(Integer nothing) {
      return new byte[0];
    }

    @Override
    public Integer deserialize(int version, byte[] bytes) {
      return 0;
    }
  }
}
