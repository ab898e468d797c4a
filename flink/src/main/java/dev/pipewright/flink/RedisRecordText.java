package dev.pipewright.flink;

import java.io.IOException;
import java.util.Map;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;

/**
 * A Redis stream entry as source.redis's record text, by the local engine's contract
 * (engine/operators/redis/sourceRedis.ts): an entry whose one field is `json` is that JSON value
 * (its text checked and without whitespace between its tokens, as KafkaRecordText hands a value
 * on), any other entry the object of its fields, string values, in the order JavaScript gives
 * them (JsObjects).
 */
final class RedisRecordText {
  /** Why an entry's `json` field cannot be read: the parser's words. */
  static final class BadJson extends Exception {
    private static final long serialVersionUID = 1L;

    BadJson(String why) {
      super(why, null, false, false);
    }
  }

  private RedisRecordText() {}

  /** The record's text of an entry whose fields, in the entry's order, are `fields`. */
  static String text(JsObjects.Builder fields) throws BadJson {
    Map<String, String> object = fields.build();
    if (object.size() == 1 && object.containsKey("json")) {
      try {
        return KafkaRecordText.compactJson(object.get("json"));
      } catch (JsonProcessingException e) {
        throw new BadJson(e.getOriginalMessage());
      } catch (IOException e) {
        throw new BadJson(e.getMessage());
      }
    }
    StringBuilder out = new StringBuilder(64);
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> field : object.entrySet()) {
      if (!first) out.append(',');
      first = false;
      Json.appendString(out, field.getKey()).append(':');
      Json.appendString(out, field.getValue());
    }
    return out.append('}').toString();
  }
}
