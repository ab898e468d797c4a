package dev.pipewright.flink;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * A record's event time read from its `timestampField` (engine/operators/recordTimestamp.ts):
 * epoch ms as a number, or a date as a string, as JavaScript's Date.parse reads the forms people
 * write: ISO 8601 with a zone or an offset, a date alone (midnight UTC), a date and time without a
 * zone (local time), and RFC 1123 (`Tue, 01 Jan 2024 00:00:00 GMT`). Flink's times are whole
 * milliseconds: a fraction is refused rather than cut.
 */
final class EventTimes {
  /** What {@link #read} says of a record without a time it can use. */
  static final long NONE = Long.MIN_VALUE;

  private EventTimes() {}

  /** The time at `path` in the record's JSON text; {@link #NONE} when there is none to read. */
  static long read(String text, String[] path) throws IOException {
    try (JsonParser p = Json.FACTORY.createParser(text)) {
      JsonToken t = p.nextToken();
      for (String field : path) {
        if (t != JsonToken.START_OBJECT) return NONE;
        t = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          JsonToken value = p.nextToken();
          if (name.equals(field)) {
            t = value;
            break;
          }
          p.skipChildren();
        }
        if (t == null) return NONE;
      }
      if (t == JsonToken.VALUE_NUMBER_INT) return p.getLongValue();
      if (t == JsonToken.VALUE_NUMBER_FLOAT) {
        double ms = p.getDoubleValue();
        if (!Double.isFinite(ms)) return NONE;
        if (ms != Math.rint(ms)) throw new FractionalTime(ms);
        return (long) ms;
      }
      if (t == JsonToken.VALUE_STRING) return parseDate(p.getText());
      return NONE;
    }
  }

  /** A time in ms with a fraction: Flink's record times are whole milliseconds. */
  static final class FractionalTime extends IOException {
    private static final long serialVersionUID = 1L;

    FractionalTime(double ms) {
      super("event time " + ms + " is not a whole number of ms, which Flink's times are");
    }
  }

  private static long parseDate(String s) {
    String text = s.trim();
    try {
      if (text.length() == 10) return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
      if (text.endsWith("Z") || text.endsWith("z")) return Instant.parse(text.toUpperCase()).toEpochMilli();
      try {
        return OffsetDateTime.parse(text).toInstant().toEpochMilli();
      } catch (DateTimeParseException withoutOffset) {
        try {
          return LocalDateTime.parse(text).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
        } catch (DateTimeParseException notIso) {
          return ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
        }
      }
    } catch (DateTimeParseException e) {
      return NONE;
    }
  }
}
