package dev.pipewright.flink;

import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParseException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.kafka.common.header.Header;

/**
 * A Kafka record as source.kafka's record text, as the local engine shapes it
 * (engine/operators/kafka/source/kafkaRecordShape.ts): the value (JSON, or with format "string" a
 * string), or with includeMetadata `{topic, partition, offset, timestamp, key, value, headers}`
 * (the key a string, or JSON with keyFormat "json"; headers an object of strings). Bytes are read
 * as UTF-8 the way Node's Buffer.toString does (a bad sequence becomes U+FFFD, no failure).
 *
 * <p>A JSON value goes on as its text, checked and without the whitespace between its tokens
 * (a value may be pretty-printed over lines, and a record must fit on a sink.jsonl line); its
 * numbers and strings are not rewritten, so a value read by a worker is the one JSON.parse reads.
 */
final class KafkaRecordText implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Why a record cannot be read, in the local engine's words (after "cannot be read: "). */
  static final class BadRecord extends Exception {
    private static final long serialVersionUID = 1L;

    BadRecord(String why) {
      super(why, null, false, false);
    }
  }

  private final boolean valueJson;
  private final boolean keyJson;
  private final boolean metadata;

  KafkaRecordText(boolean valueJson, boolean keyJson, boolean metadata) {
    this.valueJson = valueJson;
    this.keyJson = keyJson;
    this.metadata = metadata;
  }

  /** The record's text; a value or key that cannot be read throws the reason. */
  String text(String topic, int partition, long offset, long timestamp, byte[] key, byte[] value,
      Iterable<Header> headers) throws BadRecord {
    String v = part(value, valueJson, "value");
    if (!metadata) {
      // A record without a value (a tombstone) has nothing to hand on alone; nor has the JSON
      // value null, which JSON.parse makes the same null.
      if (v == null || (valueJson && v.equals("null"))) throw new BadRecord("it has no value (a tombstone)");
      return v;
    }
    String k = part(key, keyJson, "key");
    StringBuilder out = new StringBuilder(64 + (v == null ? 0 : v.length()));
    out.append("{\"topic\":");
    Json.appendString(out, topic);
    out.append(",\"partition\":").append(partition)
        .append(",\"offset\":").append(offset)
        .append(",\"timestamp\":").append(timestamp)
        .append(",\"key\":").append(k == null ? "null" : k)
        .append(",\"value\":").append(v == null ? "null" : v)
        .append(",\"headers\":{");
    boolean first = true;
    for (Map.Entry<String, String> h : headerObject(headers).entrySet()) {
      if (!first) out.append(',');
      first = false;
      Json.appendString(out, h.getKey());
      out.append(':');
      Json.appendString(out, h.getValue());
    }
    return out.append("}}").toString();
  }

  /** A value or key as JSON text, or null for none. */
  private static String part(byte[] bytes, boolean json, String what) throws BadRecord {
    if (bytes == null) return null;
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (!json) return Json.quote(text);
    try {
      return compactJson(text);
    } catch (JsonProcessingException e) {
      throw new BadRecord("its " + what + " is not JSON (" + e.getOriginalMessage() + ")");
    } catch (IOException e) {
      throw new BadRecord("its " + what + " is not JSON (" + e.getMessage() + ")");
    }
  }

  /** The headers as the local engine's object of them (JsObjects' rules); a missing value is ''. */
  static Map<String, String> headerObject(Iterable<Header> headers) {
    JsObjects.Builder object = new JsObjects.Builder();
    for (Header h : headers) object.put(h.key(), h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
    return object.build();
  }

  /** `text` if it is one JSON value (JSON.parse's rule: whitespace around it only), compacted. */
  static String compactJson(String text) throws IOException {
    try (JsonParser p = Json.FACTORY.createParser(text)) {
      if (p.nextToken() == null) throw new JsonParseException(p, "no value");
      p.skipChildren();
      if (p.nextToken() != null) throw new JsonParseException(p, "more than one value");
    }
    return compact(text);
  }

  /** Valid JSON text without the whitespace outside its strings (the text itself when it has none). */
  static String compact(String text) {
    StringBuilder out = null;
    boolean inString = false;
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (inString) {
        if (c == '\\') {
          // The escaped character cannot end the string.
          if (out != null) out.append(c);
          c = text.charAt(++i);
        } else if (c == '"') {
          inString = false;
        }
      } else if (c == '"') {
        inString = true;
      } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
        if (out == null) out = new StringBuilder(n).append(text, 0, i);
        continue;
      }
      if (out != null) out.append(c);
    }
    return out == null ? text : out.toString();
  }
}
