package dev.pipewright.flink;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;

/**
 * The prepared transactions of one append sink operator, by their global ids, as the local
 * preparedLedger.ts names them: "pw:TAG:LINEAGE:SUBTASK:CHECKPOINT". TAG stands for the job and
 * the operator (here the job's name, as the Kafka sink's default transactional-id prefix is; two
 * runs of one job name at once would share it), LINEAGE for the run and the runs restored from
 * it (kept in the writers' state), CHECKPOINT for the checkpoint whose completion commits the
 * transaction. So a writer that starts knows what to roll back: on a fresh start everything an
 * earlier run left prepared under the tag (nothing will commit it), on a restore of checkpoint
 * N its lineage's transactions of checkpoints after N (prepared for checkpoints that never
 * completed); those of N and before are in N's committables, which Flink's committer commits.
 */
final class PgPrepared {
  /** "prepared transaction with identifier ... does not exist": finished already. */
  static final String UNDEFINED_OBJECT = "42704";

  private PgPrepared() {}

  /** sha256(job name, operator), 12 hex digits: nothing in it is special to LIKE or to a quote. */
  static String tag(String jobName, String operatorId) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest((jobName + "\u0000" + operatorId).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  static String newLineage() {
    byte[] bytes = new byte[4];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  static String gid(String tag, String lineage, int subtask, long checkpointId) {
    return "pw:" + tag + ":" + lineage + ":" + subtask + ":" + checkpointId;
  }

  /**
   * Whether the writer of `subtask` (of `parallelism`) rolls back `gid` when it starts: one of
   * its subtask's (a subtask index beyond a smaller parallelism falls to index mod parallelism),
   * and on a fresh start (`restored` empty) any, on a restore one of `lineage` prepared for a
   * checkpoint after the restored one.
   */
  static boolean rollsBack(String gid, String tag, String lineage, int subtask, int parallelism, OptionalLong restored) {
    String[] parts = gid.split(":", -1);
    if (parts.length != 5 || !parts[0].equals("pw") || !parts[1].equals(tag)) return false;
    long ownerSubtask;
    long checkpoint;
    try {
      ownerSubtask = Long.parseLong(parts[3]);
      checkpoint = Long.parseLong(parts[4]);
    } catch (NumberFormatException e) {
      return false; // The local engine's "end" transactions: not a Flink run's.
    }
    if (ownerSubtask % parallelism != subtask) return false;
    if (restored.isEmpty()) return true;
    return parts[2].equals(lineage) && checkpoint > restored.getAsLong();
  }

  /** The gids of `tag` prepared in the connection's database. */
  static List<String> preparedOf(Connection connection, String tag) throws SQLException {
    List<String> gids = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE ?")) {
      statement.setString(1, "pw:" + tag + ":%");
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) gids.add(rs.getString(1));
      }
    }
    return gids;
  }

  /** COMMIT or ROLLBACK PREPARED; false when it was no longer there (finished by an earlier attempt). */
  static boolean finish(Connection connection, String verb, String gid) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(verb + " PREPARED '" + gid + "'");
      return true;
    } catch (SQLException e) {
      if (UNDEFINED_OBJECT.equals(e.getSQLState())) return false;
      throw e;
    }
  }
}
