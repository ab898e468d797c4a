package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** sink.postgres's connection string read for JDBC, and which prepared transactions a writer rolls back. */
class PgConnectionTest {
  @Test
  void aPostgresUrlBecomesAJdbcUrlWithoutItsUserAndPassword() {
    PgConnection c = PgConnection.parse("postgres://pipe%40wright:p%2Fw+d@db.example:6543/app?sslmode=require", "out");
    assertEquals("jdbc:postgresql://db.example:6543/app", c.jdbcUrl);
    assertEquals("PostgreSQL at db.example:6543/app", c.server);
    PgConnection plain = PgConnection.parse("postgresql://u@127.0.0.1/db", "out");
    assertEquals("jdbc:postgresql://127.0.0.1:5432/db", plain.jdbcUrl);
    assertEquals("PostgreSQL at 127.0.0.1:5432/db", plain.server);
  }

  @Test
  void anythingElseIsOneLineNamingTheOperator() {
    UserError e = assertThrows(UserError.class, () -> PgConnection.parse("host=db dbname=x", "out"));
    assertEquals("operator \"out\": params.connection is not a postgres:// URL (postgres://user:password@host:port/db), "
        + "the only form the Flink runner reads", e.getMessage());
  }

  @Test
  void aFreshStartRollsBackItsSubtasksAndARestoreOnlyItsLineagesLaterOnes() {
    String tag = PgPrepared.tag("job", "out");
    assertEquals(12, tag.length());
    String gid = PgPrepared.gid(tag, "ab12", 3, 7);
    assertEquals("pw:" + tag + ":ab12:3:7", gid);
    // Fresh: any lineage's, by subtask (3 of an earlier parallelism 4 falls to subtask 1 of 2).
    assertTrue(PgPrepared.rollsBack(gid, tag, "ffff", 1, 2, OptionalLong.empty()));
    assertFalse(PgPrepared.rollsBack(gid, tag, "ffff", 0, 2, OptionalLong.empty()));
    assertFalse(PgPrepared.rollsBack(gid, PgPrepared.tag("job", "other"), "ab12", 1, 2, OptionalLong.empty()));
    // Restore of checkpoint 6: its lineage's checkpoint-7 transaction never completed.
    assertTrue(PgPrepared.rollsBack(gid, tag, "ab12", 3, 4, OptionalLong.of(6)));
    // Restore of checkpoint 7: the committer commits it.
    assertFalse(PgPrepared.rollsBack(gid, tag, "ab12", 3, 4, OptionalLong.of(7)));
    assertFalse(PgPrepared.rollsBack(gid, tag, "cd34", 3, 4, OptionalLong.of(6)));
    // The local engine's end-of-run ids are not a Flink run's.
    assertFalse(PgPrepared.rollsBack("pw:" + tag + ":ab12:3:end", tag, "ab12", 3, 4, OptionalLong.empty()));
  }
}
