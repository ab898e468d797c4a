package dev.pipewright.flink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.OptionalLong;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * sink.postgres in mode "append" as a two-phase Sink V2: PgAppendWriter prepares a transaction
 * per subtask and checkpoint, the committer (Flink's committer operator, which keeps the gids of
 * each checkpoint in its state and commits them again on a restore) runs COMMIT PREPARED once the
 * checkpoint completes. Committables and the writers' state (the lineage) are strings.
 */
final class PgAppendSink implements Sink<String>, SupportsCommitter<String>, SupportsWriterState<String, String> {
  private static final long serialVersionUID = 1L;
  private final PostgresSinks.Settings settings;

  PgAppendSink(PostgresSinks.Settings settings) {
    this.settings = settings;
  }

  @Override
  public PgAppendWriter createWriter(WriterInitContext context) throws IOException {
    return writer(context, PgPrepared.newLineage());
  }

  @Override
  public StatefulSinkWriter<String, String> restoreWriter(WriterInitContext context, Collection<String> states)
      throws IOException {
    // Every subtask's state is the one lineage; none (a restore of a checkpoint taken before
    // any writer snapshot) starts a new one.
    return writer(context, states.isEmpty() ? PgPrepared.newLineage() : states.iterator().next());
  }

  private PgAppendWriter writer(WriterInitContext context, String lineage) throws IOException {
    OptionalLong restored = context.getRestoredCheckpointId();
    return new PgAppendWriter(settings, context.getTaskInfo().getIndexOfThisSubtask(),
        context.getTaskInfo().getNumberOfParallelSubtasks(), restored, lineage);
  }

  @Override
  public Committer<String> createCommitter(CommitterInitContext context) {
    return new PgCommitter(settings);
  }

  @Override
  public SimpleVersionedSerializer<String> getCommittableSerializer() {
    return new Utf8();
  }

  @Override
  public SimpleVersionedSerializer<String> getWriterStateSerializer() {
    return new Utf8();
  }

  /** A gid or a lineage as UTF-8. */
  static final class Utf8 implements SimpleVersionedSerializer<String> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String deserialize(int version, byte[] bytes) {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  /**
   * COMMIT PREPARED for each gid of a completed checkpoint, from a connection of its own (opened
   * when first needed, dropped when it fails). A gid no longer prepared was committed by an
   * earlier attempt (only this committer ends a checkpoint's transactions). A failure fails the
   * task: the restore commits the checkpoint's gids again.
   */
  static final class PgCommitter implements Committer<String> {
    private final PostgresSinks.Settings settings;
    private Connection connection;

    PgCommitter(PostgresSinks.Settings settings) {
      this.settings = settings;
    }

    @Override
    public void commit(Collection<CommitRequest<String>> requests) throws IOException {
      for (CommitRequest<String> request : requests) {
        try {
          if (connection == null) connection = settings.connection.open(settings.operatorId);
          if (!PgPrepared.finish(connection, "COMMIT", request.getCommittable())) request.signalAlreadyCommitted();
        } catch (SQLException e) {
          PostgresSinks.closeQuietly(connection);
          connection = null;
          throw PgWrites.failure(settings.operatorId, "committing a checkpoint's prepared transaction",
              settings.connection.server, e);
        }
      }
    }

    @Override
    public void close() {
      PostgresSinks.closeQuietly(connection);
      connection = null;
    }
  }
}
