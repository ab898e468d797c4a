package dev.pipewright.flink;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/**
 * One subtask of source.nexmark (or source.generator, whose worker makes record i with the
 * user's generate where NEXMark's makes event i): its splits' events made by a worker process
 * with the local engine's generator (the `make` frame, PROTOCOL.md), a batch at a time, each
 * collected with its event time, at the source's ratePerSec if it has one (ReaderPace). Like the
 * local reader it makes the lowest next number of its splits first, so its records come in time
 * order; a checkpoint keeps each split's next number, so a restore goes on with the event after
 * the last one a checkpoint covered.
 */
final class NexmarkReader implements SourceReader<String, NexmarkSplit> {
  /** Events per `make` without a rate: large enough that the pipe's round trip does not count. */
  private static final int BATCH = 1000;

  private final SourceReaderContext context;
  private final NexmarkSource source;
  private final List<NexmarkSplit> splits = new ArrayList<>();
  private boolean noMoreSplits;
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private WorkerProcess worker;
  private ReaderPace pace;

  NexmarkReader(SourceReaderContext context, NexmarkSource source) {
    this.context = context;
    this.source = source;
  }

  @Override
  public void start() {
    int subtask = context.getIndexOfSubtask();
    pace = new ReaderPace(source.ratePerSec, context.currentParallelism(), BATCH);
    String name = "worker of operator \"" + source.operatorId + "\" subtask " + subtask;
    try {
      worker = WorkerProcess.start(BundledWorker.command(source.workerCommand), name);
      StringBuilder open = new StringBuilder(256 + source.operatorJson.length());
      open.append("{\"t\":\"open\",\"operator\":").append(source.operatorJson);
      open.append(",\"inputs\":[],\"subtask\":").append(subtask);
      open.append(",\"parallelism\":").append(context.currentParallelism());
      open.append(",\"maxParallelism\":").append(source.maxParallelism).append(",\"keyed\":false}");
      worker.send(open);
      WorkerMessage reply = WorkerMessage.parse(worker.receive());
      if ("error".equals(reply.t)) throw UserError.fail(reply.message);
      if (!"ready".equals(reply.t)) throw new IOException("the worker answered `open` with \"" + reply.t + "\"");
    } catch (IOException | InterruptedException e) {
      close();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public InputStatus pollNext(ReaderOutput<String> output) throws Exception {
    splits.removeIf(this::exhausted);
    if (splits.isEmpty()) {
      if (noMoreSplits) return InputStatus.END_OF_INPUT;
      available = new CompletableFuture<>();
      return InputStatus.NOTHING_AVAILABLE;
    }
    NexmarkSplit split = splits.stream().min(Comparator.comparingLong(s -> s.next)).get();
    long count = pace.perSlice();
    if (source.count >= 0) count = Math.min(count, (source.count - split.next + split.stride - 1) / split.stride);
    CompletableFuture<Void> due = pace.await(count);
    if (due != null) {
      // ratePerSec: nothing until the limiter gives the slice's permits (on its own thread).
      CompletableFuture<Void> waiting = new CompletableFuture<>();
      available = waiting;
      due.whenComplete((ignored, error) -> waiting.complete(null));
      return InputStatus.NOTHING_AVAILABLE;
    }
    worker.send("{\"t\":\"make\",\"next\":" + split.next + ",\"stride\":" + split.stride + ",\"count\":" + count + "}");
    WorkerMessage made = WorkerMessage.parse(worker.receive());
    // A generator's code failed: its one line, without restarts (it would fail again).
    if ("error".equals(made.t)) throw UserError.fail(made.message);
    if (!"made".equals(made.t)) throw new IOException("the worker answered `make` with \"" + made.t + "\"");
    for (int i = 0, n = made.out.size(); i < n; i++) output.collect(made.out.get(i), made.outTime(i));
    split.next += count * split.stride;
    return InputStatus.MORE_AVAILABLE;
  }

  private boolean exhausted(NexmarkSplit split) {
    return source.count >= 0 && split.next >= source.count;
  }

  @Override
  public List<NexmarkSplit> snapshotState(long checkpointId) {
    List<NexmarkSplit> copy = new ArrayList<>();
    for (NexmarkSplit split : splits) copy.add(split.copy());
    return copy;
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void addSplits(List<NexmarkSplit> added) {
    splits.addAll(added);
    available.complete(null);
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    available.complete(null);
  }

  @Override
  public void close() {
    if (worker != null) worker.close(true);
    worker = null;
  }
}
