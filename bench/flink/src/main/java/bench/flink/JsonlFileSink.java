package bench.flink;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Writes each record as one JSON line (Jackson) to one plain file, like Pipewright's
 * sink.jsonl at parallelism 1. Not FileSink: with checkpoints off, as the keyed suite runs,
 * FileSink never commits its in-progress part files. No exactly-once: bench tooling only.
 */
public final class JsonlFileSink<T> implements Sink<T> {
  private final String path;

  public JsonlFileSink(String path) {
    this.path = path;
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
    int subtask = context.getTaskInfo().getIndexOfThisSubtask();
    // One file at parallelism 1; a suffix per subtask should the sink ever run wider.
    String file = subtask == 0 ? path : path + "." + subtask;
    return new Writer<>(Files.newBufferedWriter(Paths.get(file), StandardCharsets.UTF_8));
  }

  private static final class Writer<T> implements SinkWriter<T> {
    private final BufferedWriter out;

    Writer(BufferedWriter out) {
      this.out = out;
    }

    @Override
    public void write(T record, Context context) throws IOException {
      out.write(KeyedJob.JSON.writeValueAsString(record));
      out.write('\n');
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
