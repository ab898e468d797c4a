package dev.pipewright.flink;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;

/**
 * A subtask of sink.redis: it keeps the records it is given between two checkpoints and hands
 * them over before the barrier (prepareCommit) as one committable; nothing reaches Redis here, the
 * committer writes them once the checkpoint is complete. Each committable is numbered within the
 * writer's lineage, and the lineage and last number go into the writer's state, so after a
 * restore the writer numbers on from the checkpoint: a number is never given to two different
 * sets of entries that could both be committed. A writer restored from exactly one state goes on
 * with its lineage; a fresh one (or one given several states by a rescale) starts a new one.
 */
final class RedisSinkWriter
    implements StatefulSinkWriter<String, RedisCommittable.WriterState>,
        CommittingSinkWriter<String, RedisCommittable> {
  private final String lineage;
  private long number;
  private List<String> entries = new ArrayList<>();
  private boolean ended;

  RedisSinkWriter(String lineage, long number) {
    this.lineage = lineage;
    this.number = number;
  }

  @Override
  public void write(String text, Context context) {
    entries.add(text);
  }

  @Override
  public void flush(boolean endOfInput) {
    if (endOfInput) ended = true;
  }

  @Override
  public Collection<RedisCommittable> prepareCommit() {
    // A checkpoint without records costs no commit; the end always commits, so that the marker
    // says "end" as locally.
    if (entries.isEmpty() && !ended) return List.of();
    RedisCommittable committable = new RedisCommittable(lineage, ++number, ended, entries);
    entries = new ArrayList<>();
    return List.of(committable);
  }

  @Override
  public List<RedisCommittable.WriterState> snapshotState(long checkpointId) {
    return List.of(new RedisCommittable.WriterState(lineage, number));
  }

  @Override
  public void close() {
    entries = new ArrayList<>();
  }
}
