package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * source.redis's pure parts on Flink's side: entry ids (engine/operators/redis/streamIds.ts), an
 * entry's record text (sourceRedis.ts: a `json` entry is its value, any other the object of its
 * fields as JavaScript orders it), and the split as checkpoints keep it.
 */
class RedisStreamsTest {
  @Test
  void idsAreWhatAReadCanStartAfterAndCompareAsUnsigned64BitPairs() {
    assertTrue(StreamIds.isStreamId("0"));
    assertTrue(StreamIds.isStreamId("1700000000000-3"));
    assertFalse(StreamIds.isStreamId("$"));
    assertFalse(StreamIds.isStreamId("1-2-3"));
    assertFalse(StreamIds.isStreamId("-1"));
    assertEquals(0, StreamIds.compare("5", "5-0"));
    assertTrue(StreamIds.compare("5-9", "5-10") < 0);
    assertTrue(StreamIds.compare("10-0", "9-99") > 0);
    // Beyond a long: a plain Long.parseLong would fail or wrap.
    assertTrue(StreamIds.compare("18446744073709551615-0", "9223372036854775807-0") > 0);
  }

  private static String text(String... pairs) throws RedisRecordText.BadJson {
    JsObjects.Builder fields = new JsObjects.Builder();
    for (int i = 0; i < pairs.length; i += 2) fields.put(pairs[i], pairs[i + 1]);
    return RedisRecordText.text(fields);
  }

  @Test
  void anEntryWhoseOneFieldIsJsonIsThatValueCompacted() throws Exception {
    assertEquals("{\"a\":[1,2.50]}", text("json", "{ \"a\": [1, 2.50] }\n"));
    assertEquals("\"x y\"", text("json", "\"x y\""));
    // A field given twice is one field, with its last value, as the local object has it.
    assertEquals("7", text("json", "{", "json", "7"));
  }

  @Test
  void anyOtherEntryIsTheObjectOfItsFieldsInJavaScriptsOrder() throws Exception {
    assertEquals("{\"user\":\"ada\",\"action\":\"login\"}", text("user", "ada", "action", "login"));
    // Index names first, in numeric order; __proto__ left out; a repeated name keeps its place.
    assertEquals("{\"1\":\"one\",\"10\":\"ten\",\"b\":\"3\",\"a\":\"\\\"q\\\"\"}",
        text("b", "1", "10", "ten", "a", "\"q\"", "__proto__", "x", "1", "one", "b", "3"));
    assertEquals("{\"json\":\"1\",\"more\":\"2\"}", text("json", "1", "more", "2"));
  }

  @Test
  void aJsonFieldThatIsNotJsonSaysWhy() {
    RedisRecordText.BadJson bad = assertThrows(RedisRecordText.BadJson.class, () -> text("json", "{\"k\":"));
    assertFalse(bad.getMessage().isBlank());
    assertThrows(RedisRecordText.BadJson.class, () -> text("json", "1 2"));
  }

  @Test
  void aSplitAndTheEnumeratorsStateSurviveACheckpoint() throws Exception {
    RedisSplit split = new RedisSplit("s-é", "1700000000000-4", "1700000000009-0", false);
    RedisSplit back = new RedisSplit.Serializer().deserialize(1, new RedisSplit.Serializer().serialize(split));
    assertEquals(List.of("s-é", "1700000000000-4", "1700000000009-0", false),
        List.of(back.stream, back.lastId, back.stopId, back.mayBeMissing));
    RedisSplit unbounded = new RedisSplit("s", "$", null, true);
    RedisEnumerator.StateSerializer state = new RedisEnumerator.StateSerializer();
    List<RedisSplit> pending = state.deserialize(1, state.serialize(List.of(unbounded)));
    assertEquals(1, pending.size());
    assertEquals("$", pending.get(0).lastId);
    assertEquals(null, pending.get(0).stopId);
    assertTrue(pending.get(0).mayBeMissing);
  }
}
