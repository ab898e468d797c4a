package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * sink.redis's pure parts on Flink's side: how the writer numbers its commits (the marker's
 * values), what checkpoints keep of them, and the server as messages name it.
 */
class RedisSinkTest {
  @Test
  void theWriterNumbersEachCommitWithRecordsAndAlwaysCommitsTheEnd() throws Exception {
    RedisSinkWriter writer = new RedisSinkWriter("L", 4);
    assertTrue(writer.prepareCommit().isEmpty(), "a checkpoint without records commits nothing");
    writer.write("{\"a\":1}", null);
    writer.write("{\"a\":2}", null);
    List<RedisCommittable> first = new ArrayList<>(writer.prepareCommit());
    assertEquals(1, first.size());
    assertEquals(5, first.get(0).number);
    assertEquals(List.of("{\"a\":1}", "{\"a\":2}"), first.get(0).entries);
    // The state a restore goes on from: the number of the last commit handed over.
    assertEquals(5, writer.snapshotState(9).get(0).number);
    assertEquals("L", writer.snapshotState(9).get(0).lineage);
    writer.flush(true);
    Collection<RedisCommittable> end = writer.prepareCommit();
    RedisCommittable last = end.iterator().next();
    assertEquals(List.of(6L, true, List.of()), List.of(last.number, last.end, last.entries));
  }

  @Test
  void committablesAndWriterStatesSurviveACheckpoint() throws Exception {
    RedisCommittable.Serializer serializer = new RedisCommittable.Serializer();
    RedisCommittable c = new RedisCommittable("lineage", 12, false, List.of("{\"k\":\"é\"}", "[]"));
    RedisCommittable back = serializer.deserialize(1, serializer.serialize(c));
    assertEquals(List.of("lineage", 12L, false, List.of("{\"k\":\"é\"}", "[]")),
        List.of(back.lineage, back.number, back.end, back.entries));
    RedisCommittable.WriterStateSerializer states = new RedisCommittable.WriterStateSerializer();
    RedisCommittable.WriterState state = states.deserialize(1, states.serialize(new RedisCommittable.WriterState("L", 3)));
    assertEquals(List.of("L", 3L), List.of(state.lineage, state.number));
  }

  @Test
  void theMarkerIsTheLocalOneAndEndIsPastEveryCommit() {
    assertEquals("pipewright:commits:{out}", RedisCommitter.markerKey("out"));
    assertEquals(0, RedisCommitter.markerValue(null));
    assertEquals(7, RedisCommitter.markerValue("7"));
    assertEquals(Long.MAX_VALUE, RedisCommitter.markerValue("end"));
  }

  @Test
  void theServerIsNamedByHostAndPortOnlyAsLocally() {
    assertEquals("Redis at 127.0.0.1:6379", RedisConnection.describe("redis://127.0.0.1:6379"));
    assertEquals("Redis at cache:6379", RedisConnection.describe("redis://user:p@ss@cache/2"));
    assertEquals("Redis at [::1]:7000", RedisConnection.describe("rediss://[::1]:7000"));
    assertEquals("Redis", RedisConnection.describe("redis://:secret@/0"));
    assertEquals("Redis", RedisConnection.describe("redis://host:port"));
    assertEquals("250 ms", RedisConnection.seconds(250));
    assertEquals("1.5 s", RedisConnection.seconds(1_490));
    assertEquals("60 s", RedisConnection.seconds(60_020));
  }
}
