package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** sink.kafka's messages (engine/operators/kafka/sink/kafkaRecordEncoder.ts) on Flink's side. */
class KafkaMessagesTest {
  private static String s(byte[] bytes) {
    return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
  }

  private static KafkaMessages keyed(String field) {
    return new KafkaMessages(false, List.of(field.split("\\.", -1)));
  }

  @Test
  void aValueIsTheRecordsJsonTextOrWithFormatStringAStringAsItIs() {
    KafkaMessages json = new KafkaMessages(false, null);
    assertEquals("{\"a\":1}", s(json.value("{\"a\":1}")));
    assertEquals("\"x\"", s(json.value("\"x\"")));
    KafkaMessages string = new KafkaMessages(true, null);
    assertEquals("x \"y\"\n", s(string.value("\"x \\\"y\\\"\\n\"")));
    assertEquals("{\"a\":1}", s(string.value("{\"a\":1}")));
    assertEquals("12", s(string.value("12")));
    assertNull(json.key("{\"a\":1}"));
  }

  @Test
  void aKeyIsAStringAsItIsAnythingElseItsJsonTextNoneWhenMissingOrNull() {
    String record = "{\"owner\":\"o7\",\"n\":1e+21,\"f\":-0.5,\"b\":true,\"o\":{\"x\":[1,{\"y\":null}]},"
        + "\"a\":[\"p\",\"q\"],\"z\":null}";
    assertEquals("o7", s(keyed("owner").key(record)));
    // Cut out of JSON.stringify's text as it stands: 1e+21, not Java's 1.0E21.
    assertEquals("1e+21", s(keyed("n").key(record)));
    assertEquals("-0.5", s(keyed("f").key(record)));
    assertEquals("true", s(keyed("b").key(record)));
    assertEquals("{\"x\":[1,{\"y\":null}]}", s(keyed("o").key(record)));
    assertEquals("[1,{\"y\":null}]", s(keyed("o.x").key(record)));
    assertEquals("1", s(keyed("o.x.0").key(record)));
    assertEquals("q", s(keyed("a.1").key(record)));
    assertEquals("2", s(keyed("a.length").key(record)));
    assertNull(keyed("a.2").key(record));
    assertNull(keyed("a.length.x").key(record));
    assertNull(keyed("o.x.1.y").key(record));
    assertNull(keyed("z").key(record));
    assertNull(keyed("missing").key(record));
    assertNull(keyed("owner.length").key(record));
    assertNull(keyed("x").key("[1]"));
  }

  @Test
  void aLoneSurrogateIsWrittenAsNodeWritesIt() {
    // JSON.stringify escapes a lone surrogate; Buffer.from writes it as U+FFFD (Java: '?').
    assertArrayEquals(new byte[] {'a', (byte) 0xef, (byte) 0xbf, (byte) 0xbd, 'b'},
        new KafkaMessages(true, null).value("\"a\\ud800b\""));
    assertEquals("😀", s(keyed("k").key("{\"k\":\"😀\"}")));
  }

  @Test
  void theDefaultTransactionalIdPrefixIsTheLocalEnginesRunFolderAndOperator() {
    assertEquals("word-count-out", KafkaSinks.defaultPrefix("word-count", "out"));
    assertEquals("my_job_2_-out", KafkaSinks.defaultPrefix("my job/2?", "out"));
    assertEquals("__-out", KafkaSinks.defaultPrefix("..", "out"));
    assertEquals("a__-out", KafkaSinks.defaultPrefix("a😀", "out"));
  }
}
