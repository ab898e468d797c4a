package dev.pipewright.flink;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * A record's text as sink.kafka's message, the bytes the local engine writes
 * (engine/operators/kafka/sink/kafkaRecordEncoder.ts): the value as JSON text (format "json") or,
 * for format "string", a string as it is and anything else as JSON text; the key from keyField, a
 * string as it is and anything else as JSON text, none when the field is missing or null.
 *
 * <p>Records come from workers as JSON.stringify's text, so a part of it is JSON.stringify's text
 * of that part: a key that is not a string is cut out of the record's text as it stands, never
 * rewritten (Jackson would write numbers as Java does, `1.0E21` for `1e+21`).
 */
final class KafkaMessages implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final byte[] REPLACEMENT = {(byte) 0xef, (byte) 0xbf, (byte) 0xbd};

  private final boolean valueAsString;
  /** keyField split at its dots; null: no key. */
  private final List<String> keyPath;

  KafkaMessages(boolean valueAsString, List<String> keyPath) {
    this.valueAsString = valueAsString;
    this.keyPath = keyPath;
  }

  byte[] value(String text) {
    if (valueAsString && firstChar(text) == '"') {
      try (JsonParser p = Json.FACTORY.createParser(text)) {
        p.nextToken();
        return utf8(p.getText());
      } catch (IOException e) {
        throw new UncheckedIOException("sink.kafka was given a record that is not JSON", e);
      }
    }
    return utf8(text);
  }

  /** The key's bytes, or null for a message without a key. */
  byte[] key(String text) {
    if (keyPath == null) return null;
    try (JsonParser p = Json.FACTORY.createParser(text)) {
      JsonToken t = p.nextToken();
      for (int depth = 0; depth < keyPath.size(); depth++) {
        String field = keyPath.get(depth);
        if (t == JsonToken.START_ARRAY && field.equals("length")) {
          // An array's length is a number: a path that goes on past it reads nothing.
          int count = 0;
          while ((t = p.nextToken()) != JsonToken.END_ARRAY && t != null) {
            p.skipChildren();
            count++;
          }
          return depth == keyPath.size() - 1 ? utf8(String.valueOf(count)) : null;
        }
        t = step(p, t, field);
        if (t == null) return null;
      }
      if (t == JsonToken.VALUE_NULL) return null;
      if (t == JsonToken.VALUE_STRING) return utf8(p.getText());
      int from = (int) p.currentTokenLocation().getCharOffset();
      p.skipChildren();
      int to = (int) p.currentLocation().getCharOffset();
      return utf8(text.substring(from, to));
    } catch (IOException e) {
      throw new UncheckedIOException("sink.kafka was given a record that is not JSON", e);
    }
  }

  /**
   * Moves into `field` of the value at token `t` as JavaScript's record[field] reads it: an
   * object's field (the first of its name: JSON.stringify never writes one twice) or an array's
   * element by its index; null when there is none (a string, number or boolean has no fields a
   * key could come from).
   */
  private static JsonToken step(JsonParser p, JsonToken t, String field) throws IOException {
    if (t == JsonToken.START_OBJECT) {
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        boolean match = field.equals(p.currentName());
        t = p.nextToken();
        if (match) return t;
        p.skipChildren();
      }
      return null;
    }
    long index = t == JsonToken.START_ARRAY ? arrayIndex(field) : -1;
    if (index < 0) return null;
    for (long i = 0; (t = p.nextToken()) != JsonToken.END_ARRAY && t != null; i++) {
      if (i == index) return t;
      p.skipChildren();
    }
    return null;
  }

  private static long arrayIndex(String field) {
    int n = field.length();
    if (n == 0 || n > 10 || (n > 1 && field.charAt(0) == '0')) return -1;
    for (int i = 0; i < n; i++) if (field.charAt(i) < '0' || field.charAt(i) > '9') return -1;
    long index = Long.parseLong(field);
    return index < 4294967295L ? index : -1;
  }

  private static char firstChar(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
    }
    return 0;
  }

  /**
   * UTF-8 as Node's Buffer.from(text) writes it: a lone surrogate (JSON.stringify escapes one, so
   * it survives into a parsed string) becomes U+FFFD, where String.getBytes would write '?'.
   */
  static byte[] utf8(String text) {
    boolean surrogates = false;
    for (int i = 0; i < text.length() && !surrogates; i++) surrogates = Character.isSurrogate(text.charAt(i));
    if (!surrogates) return text.getBytes(StandardCharsets.UTF_8);
    CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPLACE)
        .onUnmappableCharacter(CodingErrorAction.REPLACE)
        .replaceWith(REPLACEMENT);
    try {
      ByteBuffer bytes = encoder.encode(CharBuffer.wrap(text));
      byte[] out = new byte[bytes.remaining()];
      bytes.get(out);
      return out;
    } catch (CharacterCodingException e) {
      throw new IllegalStateException(e); // REPLACE never reports
    }
  }
}
