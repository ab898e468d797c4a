package dev.pipewright.flink;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.core.io.InputStatus;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * One subtask of source.postgres, the local engine's PostgresReader (postgresReader.ts). Its first
 * poll of a fresh split checks the server and the table, makes the publication and the slot and
 * emits the whole snapshot, all in that one poll: Flink takes a checkpoint only between polls, so
 * no checkpoint falls inside the snapshot (locally too a checkpoint waits for it), and one before
 * it keeps the split fresh. Then it streams the slot's changes of the table, in commit order;
 * where it stands is the end of the last transaction emitted whole plus the last change emitted
 * of the next, so a restore starts streaming at that transaction and skips what of it was
 * emitted. The slot is told a position only once a checkpoint holding it is complete: the server
 * keeps the log from there, so a restore can always go back to it. A subtask without the split ends.
 */
final class PgSourceReader implements SourceReader<String, PgSourceSplit> {
  /** Messages one poll takes at most, so checkpoints are not held back by a long backlog. */
  private static final int BATCH = 1_000;
  /** How long a poll that found nothing waits before the next one. */
  private static final long IDLE_WAIT_MS = 100;
  /** How long a bounded read waits short of its stop position before it writes to the log (nudgeLog). */
  private static final long NUDGE_MS = 1_000;
  /** How long a restore waits for a slot still held by the connection of the run it restores. */
  private static final long SLOT_BUSY_WAIT_MS = 60_000;

  private final PgSource source;
  private final String op;
  private PgSourceSplit split;
  private boolean noMoreSplits;
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private Connection streamConnection;
  private PGReplicationStream stream;
  private PgOutput decoder;
  /** Changes of the first transaction after a (re)start already emitted: skipped by LSN (0: none). */
  private long skipThrough;
  /** The position each checkpoint holds, acknowledged once that checkpoint completes. */
  private final TreeMap<Long, Long> checkpointed = new TreeMap<>();
  private long acknowledged;
  /** A restored split: its publication is checked again before streaming (a fresh start just made it). */
  private boolean checkPublication;
  /** Between a Begin and its Commit: a keepalive there says nothing about the stop position. */
  private boolean inTransaction;
  /** When the idle bounded read last wrote to the log (0: not yet idle). */
  private long nudged;

  PgSourceReader(PgSource source) {
    this.source = source;
    this.op = source.operatorId;
  }

  @Override
  public void start() {}

  @Override
  public void addSplits(List<PgSourceSplit> splits) {
    split = splits.get(0);
    acknowledged = split.fresh ? 0 : split.lsn;
    skipThrough = split.changeLsn;
    checkPublication = !split.fresh;
    available.complete(null);
  }

  @Override
  public InputStatus pollNext(ReaderOutput<String> output) throws Exception {
    if (split == null) {
      if (noMoreSplits) return InputStatus.END_OF_INPUT;
      available = new CompletableFuture<>();
      return InputStatus.NOTHING_AVAILABLE;
    }
    try {
      if (split.fresh) {
        freshStart(output);
        return InputStatus.MORE_AVAILABLE;
      }
      if (stream == null) connect();
      for (int i = 0; i < BATCH; i++) {
        ByteBuffer message = stream.readPending();
        if (message == null) return split.stopLsn == 0 ? idle() : idleBounded();
        long lsn = stream.getLastReceiveLSN().asLong();
        PgOutput.Message m = decoder.decode(message);
        nudged = 0;
        if (m instanceof PgOutput.Begin begin) {
          if (split.stopLsn != 0 && begin.commitLsn() >= split.stopLsn) return finished();
          inTransaction = true;
        } else if (m instanceof PgOutput.Commit commit) {
          inTransaction = false;
          split.lsn = commit.endLsn();
          split.changeLsn = 0;
          skipThrough = 0;
          if (split.stopLsn != 0 && commit.endLsn() >= split.stopLsn) return finished();
        } else if (m instanceof PgOutput.Change change && change.schema().equals(split.schema)
            && change.name().equals(split.name)) {
          if (skipThrough != 0 && lsn <= skipThrough) continue;
          split.changeLsn = lsn;
          output.collect(change.text());
        }
      }
      return InputStatus.MORE_AVAILABLE;
    } catch (SQLException e) {
      closeStream();
      String line = PgSourceSetup.setupProblem(e, op, split.slot);
      if (line != null) throw UserError.fail(line);
      // The server away or the connection broken: Flink restarts from the last checkpoint.
      throw new java.io.IOException("operator \"" + op + "\": " + source.connection.server + ": "
          + PgWrites.describeCause(e));
    }
  }

  /** Nothing to read now: the next poll in IDLE_WAIT_MS. */
  private InputStatus idle() {
    CompletableFuture<Void> later = new CompletableFuture<>();
    available = later;
    CompletableFuture.delayedExecutor(IDLE_WAIT_MS, TimeUnit.MILLISECONDS).execute(() -> later.complete(null));
    return InputStatus.NOTHING_AVAILABLE;
  }

  /**
   * A bounded read with nothing to read: a keepalive past the stop position between transactions
   * ends it (pgjdbc takes keepalives in and moves the last received position to theirs); else the
   * server is asked for one now, as locally, and after a second of this the log nudged.
   */
  private InputStatus idleBounded() throws SQLException {
    if (!inTransaction && stream.getLastReceiveLSN().asLong() >= split.stopLsn) return finished();
    stream.forceUpdateStatus(); // asks for a reply: the server's keepalive says where its decoding stands
    nudgeLog();
    return idle();
  }

  /**
   * The end of the log a bounded read stops at may lie just past a page header that no record has
   * been decoded beyond, so keepalives would stay short of it: after a second of waiting, one tiny
   * non-transactional logical message (ignored by pgoutput) moves the log past it, as locally; a
   * user not allowed to write one waits for other writes.
   */
  private void nudgeLog() {
    long now = System.currentTimeMillis();
    if (nudged == 0) {
      nudged = now;
      return;
    }
    if (now - nudged < NUDGE_MS) return;
    nudged = now;
    try (Connection c = source.connection.open(op); java.sql.Statement st = c.createStatement()) {
      st.execute("SELECT pg_logical_emit_message(false, 'pipewright', '')");
    } catch (SQLException ignored) {
      // Not allowed, or the server away: the stream's own failure says the latter.
    }
  }

  /** The bounded read has reached its stop position: nothing of it goes into checkpoints any more. */
  private InputStatus finished() {
    closeStream();
    split = null;
    if (noMoreSplits) return InputStatus.END_OF_INPUT;
    available = new CompletableFuture<>();
    return InputStatus.NOTHING_AVAILABLE;
  }

  /** The server's current end of the log (tableSetup.ts currentLsn: the insert position, past every commit). */
  private long currentLsn() throws SQLException {
    try (Connection c = source.connection.open(op); java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT pg_current_wal_insert_lsn()::text")) {
      rs.next();
      return LogSequenceNumber.valueOf(rs.getString(1)).asLong();
    }
  }

  /** Publication if absent, a leftover slot of a fresh start that crashed dropped, the slot made, the snapshot emitted. */
  private void freshStart(ReaderOutput<String> output) throws SQLException {
    PgSourceSetup.Table table;
    try (Connection c = source.connection.open(op)) {
      PgSourceSetup.checkWalLevel(c, op);
      table = PgSourceSetup.resolveTable(c, source.table, op);
      PgSourceSetup.ensurePublication(c, split.publication, table, op);
      PgSourceSetup.dropLeftoverSlot(c, split.slot);
    }
    long point = PgSnapshot.makeSlot(source.connection, op, split.slot, source.snapshot ? table.qualified() : null,
        () -> {
          if (source.stopAtCurrent) split.stopLsn = currentLsn();
        },
        output::collect);
    split.fresh = false;
    split.schema = table.schema();
    split.name = table.name();
    split.lsn = point;
    split.changeLsn = 0;
    skipThrough = 0;
    acknowledged = point;
  }

  /** (Re)starts streaming at the last transaction not emitted whole. */
  private void connect() throws SQLException {
    if (source.stopAtCurrent && split.stopLsn == 0) split.stopLsn = currentLsn();
    if (checkPublication) {
      // The names the checkpoint recorded: the publication must still publish the table.
      try (Connection c = source.connection.open(op)) {
        PgSourceSetup.checkPublication(c, split.publication, new PgSourceSetup.Table(split.schema, split.name), op);
      }
      checkPublication = false;
    }
    long deadline = System.currentTimeMillis() + SLOT_BUSY_WAIT_MS;
    while (true) {
      Connection c = source.connection.open(op, PgSnapshot.REPLICATION);
      try {
        stream = c.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
            .withSlotName(split.slot)
            .withStartPosition(LogSequenceNumber.valueOf(split.lsn))
            .withSlotOption("proto_version", "1")
            // pgjdbc writes an option's value between single quotes as given.
            .withSlotOption("publication_names", PgSourceSetup.quoteIdent(split.publication).replace("'", "''"))
            .withStatusInterval(10, TimeUnit.SECONDS)
            // Only a completed checkpoint's position is ever told the server: pgjdbc's own
            // flushes on keepalives would move the slot past what a restore may go back to.
            .withAutomaticFlush(false)
            .start();
        streamConnection = c;
        break;
      } catch (SQLException e) {
        c.close();
        // 55006: the slot is still active for the connection of the run this one restores.
        if (!"55006".equals(e.getSQLState()) || System.currentTimeMillis() > deadline) throw e;
        try {
          Thread.sleep(500);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
    decoder = new PgOutput();
    inTransaction = false;
    skipThrough = split.changeLsn;
    acknowledge(acknowledged);
  }

  /** Standby status update: `lsn` as flushed and applied (the slot may discard the log before it). */
  private void acknowledge(long lsn) throws SQLException {
    if (stream == null || lsn == 0) return;
    stream.setFlushedLSN(LogSequenceNumber.valueOf(lsn));
    stream.setAppliedLSN(LogSequenceNumber.valueOf(lsn));
    stream.forceUpdateStatus();
  }

  @Override
  public List<PgSourceSplit> snapshotState(long checkpointId) {
    if (split == null) return List.of();
    if (!split.fresh) checkpointed.put(checkpointId, split.lsn);
    return List.of(split.copy());
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    Map.Entry<Long, Long> entry = checkpointed.floorEntry(checkpointId);
    checkpointed.headMap(checkpointId, true).clear();
    if (entry == null || entry.getValue() <= acknowledged) return;
    acknowledged = entry.getValue();
    try {
      acknowledge(acknowledged);
    } catch (SQLException e) {
      // The stream broke: the next poll fails and Flink restarts; the position is told then.
      closeStream();
    }
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    return available;
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    available.complete(null);
  }

  private void closeStream() {
    PGReplicationStream s = stream;
    Connection c = streamConnection;
    stream = null;
    streamConnection = null;
    try {
      if (s != null) s.close();
    } catch (SQLException ignored) {
      // Closing a broken stream: the connection goes below anyway.
    }
    try {
      if (c != null) c.close();
    } catch (SQLException ignored) {
      // Already gone.
    }
  }

  @Override
  public void close() {
    closeStream();
  }
}
