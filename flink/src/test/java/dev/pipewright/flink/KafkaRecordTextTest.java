package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/** source.kafka's records (engine/operators/kafka/source/kafkaRecordShape.ts) on Flink's side. */
class KafkaRecordTextTest {
  private static byte[] b(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(KafkaRecordText shape, String key, String value, List<Header> headers)
      throws KafkaRecordText.BadRecord {
    return shape.text("t", 2, 17, 1700000000000L, b(key), b(value), headers);
  }

  private static final KafkaRecordText JSON = new KafkaRecordText(true, false, false);

  @Test
  void aJsonValueGoesOnAsItsTextWithoutTheWhitespaceBetweenTokens() throws Exception {
    assertEquals("{\"a\":1}", text(JSON, null, "{\"a\":1}", List.of()));
    // Pretty-printed over lines (a sink.jsonl line must hold it); strings keep their spaces.
    assertEquals("{\"a\":[1,2.50,1e3],\"s\":\"x y\\n \\\" z\"}",
        text(JSON, null, "{\n  \"a\": [1, 2.50, 1e3],\r\n\t\"s\": \"x y\\n \\\" z\"\n}\n", List.of()));
    assertEquals("\"é\"", text(JSON, "k", " \"é\" ", List.of()));
  }

  @Test
  void aStringValueIsAJsonString() throws Exception {
    KafkaRecordText string = new KafkaRecordText(false, false, false);
    assertEquals("\"not {json\\n\"", text(string, null, "not {json\n", List.of()));
    assertEquals("\"null\"", text(string, null, "null", List.of()));
    // Bytes that are not UTF-8 are read as Node reads them: U+FFFD, no failure.
    assertEquals("\"a\uFFFDb\"", string.text("t", 0, 0, 0, null, new byte[] {'a', (byte) 0xff, 'b'}, List.of()));
  }

  @Test
  void aBadValueOrATombstoneSaysWhyInTheLocalEnginesWords() {
    assertEquals("it has no value (a tombstone)",
        assertThrows(KafkaRecordText.BadRecord.class, () -> text(JSON, "k", null, List.of())).getMessage());
    // JSON.parse("null") is the same null.
    assertEquals("it has no value (a tombstone)",
        assertThrows(KafkaRecordText.BadRecord.class, () -> text(JSON, null, " null ", List.of())).getMessage());
    String m = assertThrows(KafkaRecordText.BadRecord.class, () -> text(JSON, null, "{\"a\":", List.of()))
        .getMessage();
    assertEquals("its value is not JSON (", m.substring(0, m.indexOf('(') + 1));
    m = assertThrows(KafkaRecordText.BadRecord.class, () -> text(JSON, null, "1 2", List.of())).getMessage();
    assertEquals("its value is not JSON (more than one value)", m);
    m = assertThrows(KafkaRecordText.BadRecord.class, () -> text(JSON, null, "", List.of())).getMessage();
    assertEquals("its value is not JSON (no value)", m);
  }

  @Test
  void withMetadataARecordIsTheLocalEnginesObject() throws Exception {
    KafkaRecordText meta = new KafkaRecordText(true, false, true);
    List<Header> headers = List.of(
        new RecordHeader("b", b("1")),
        new RecordHeader("10", b("ten")),
        new RecordHeader("a", null),
        new RecordHeader("b", b("2")),
        new RecordHeader("__proto__", b("x")),
        new RecordHeader("2", b("two")),
        new RecordHeader("01", b("not an index")));
    assertEquals("{\"topic\":\"t\",\"partition\":2,\"offset\":17,\"timestamp\":1700000000000,\"key\":\"k\\\"1\","
        + "\"value\":{\"v\":1},\"headers\":{\"2\":\"two\",\"10\":\"ten\",\"b\":\"2\",\"a\":\"\",\"01\":\"not an index\"}}",
        text(meta, "k\"1", "{ \"v\": 1 }", headers));
    // A tombstone has a null value here; a missing key is null.
    assertEquals("{\"topic\":\"t\",\"partition\":2,\"offset\":17,\"timestamp\":1700000000000,\"key\":null,"
        + "\"value\":null,\"headers\":{}}", text(meta, null, null, List.of()));
  }

  @Test
  void aJsonKeyIsCheckedToo() throws Exception {
    KafkaRecordText meta = new KafkaRecordText(false, true, true);
    assertEquals("{\"topic\":\"t\",\"partition\":2,\"offset\":17,\"timestamp\":1700000000000,\"key\":[1,\"a\"],"
        + "\"value\":\"v\",\"headers\":{}}", text(meta, "[1, \"a\"]", "v", List.of()));
    String m = assertThrows(KafkaRecordText.BadRecord.class, () -> text(meta, "nope", "v", List.of())).getMessage();
    assertEquals("its key is not JSON (", m.substring(0, m.indexOf('(') + 1));
  }
}
