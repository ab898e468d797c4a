package dev.pipewright.flink;

import java.io.IOException;
import java.util.ArrayList;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * A frame from the worker (PROTOCOL.md: `ready`, `error`, `read`, `done`), parsed with Jackson's
 * streaming parser into plain fields: a `done` carries every output of a batch, so no tree is
 * built for it. Fields a frame does not have stay null (or -1).
 */
final class WorkerMessage {
  String t;
  String message;
  int i = -1;
  String what;
  String name;
  String mk;
  /** `ready`: the code has an onTimer (a process operator's). */
  boolean onTimer;
  /** `out`'s texts, in order. */
  final ArrayList<String> out = new ArrayList<>();
  /** `out`'s ports, parallel to `out`: null for the default port. */
  final ArrayList<String> outPorts = new ArrayList<>();
  /** `out`'s event times, parallel to `out`; null until a record has one, then NO_TIME where one has none. */
  long[] outTimes;
  /** `writes`, each an array of Integer, Long, String and null. */
  final ArrayList<Object[]> writes = new ArrayList<>();

  static WorkerMessage parse(byte[] json) throws IOException {
    WorkerMessage m = new WorkerMessage();
    try (JsonParser p = Json.FACTORY.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) throw new IOException("a worker frame is not an object");
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        switch (field) {
          case "t" -> m.t = p.getValueAsString();
          case "message" -> m.message = p.getValueAsString();
          case "i" -> m.i = p.getValueAsInt(-1);
          case "what" -> m.what = p.getValueAsString();
          case "name" -> m.name = p.getValueAsString();
          case "mk" -> m.mk = p.getValueAsString();
          case "onTimer" -> m.onTimer = p.getValueAsBoolean();
          case "out" -> m.readOut(p, v);
          case "writes" -> m.readWrites(p, v);
          case "records" -> m.readRecords(p, v);
          case "times" -> m.readTimes(p, v);
          default -> p.skipChildren();
        }
      }
    }
    if (m.t == null) throw new IOException("a worker frame has no \"t\"");
    return m;
  }

  private void readOut(JsonParser p, JsonToken start) throws IOException {
    if (start != JsonToken.START_ARRAY) throw new IOException("\"out\" is not an array");
    for (JsonToken t; (t = p.nextToken()) != JsonToken.END_ARRAY; ) {
      if (t == JsonToken.VALUE_STRING) {
        out.add(p.getText());
        outPorts.add(null);
      } else if (t == JsonToken.VALUE_NULL) {
        // A watermark's place (PROTOCOL.md, "Watermarks among the records").
        out.add(null);
        outPorts.add(null);
      } else if (t == JsonToken.START_ARRAY) {
        p.nextToken();
        String port = p.getValueAsString();
        p.nextToken();
        String text = p.getValueAsString();
        JsonToken after = p.nextToken();
        if (after == JsonToken.VALUE_NUMBER_INT) {
          time(out.size(), p.getLongValue());
          after = p.nextToken();
        }
        if (after != JsonToken.END_ARRAY || port == null || text == null) {
          throw new IOException("an \"out\" element is not [port, text] or [port, text, ts]");
        }
        out.add(text);
        outPorts.add("out".equals(port) ? null : port);
      } else {
        throw new IOException("an \"out\" element is neither a text nor a [port, text] pair");
      }
    }
  }

  /** `made`'s records: texts, into `out` (on the default port). */
  private void readRecords(JsonParser p, JsonToken start) throws IOException {
    if (start != JsonToken.START_ARRAY) throw new IOException("\"records\" is not an array");
    for (JsonToken t; (t = p.nextToken()) != JsonToken.END_ARRAY; ) {
      if (t != JsonToken.VALUE_STRING) throw new IOException("a made record is not a text");
      out.add(p.getText());
      outPorts.add(null);
    }
  }

  /** `made`'s times, parallel to its records. */
  private void readTimes(JsonParser p, JsonToken start) throws IOException {
    if (start != JsonToken.START_ARRAY) throw new IOException("\"times\" is not an array");
    int index = 0;
    for (JsonToken t; (t = p.nextToken()) != JsonToken.END_ARRAY; index++) {
      if (t == JsonToken.VALUE_NULL) continue; // a record without a time (source.generator)
      if (t != JsonToken.VALUE_NUMBER_INT) throw new IOException("a made time is not whole ms");
      time(index, p.getLongValue());
    }
  }

  /** Output `index` has event time `ts`; those before it without one keep NO_TIME. */
  private void time(int index, long ts) {
    if (outTimes == null) {
      outTimes = new long[Math.max(16, index + 1)];
      java.util.Arrays.fill(outTimes, NO_TIME);
    } else if (index >= outTimes.length) {
      int from = outTimes.length;
      outTimes = java.util.Arrays.copyOf(outTimes, Math.max(from * 2, index + 1));
      java.util.Arrays.fill(outTimes, from, outTimes.length, NO_TIME);
    }
    outTimes[index] = ts;
  }

  /** An output without event time. */
  static final long NO_TIME = Long.MIN_VALUE;

  /** Output `j`'s event time, or NO_TIME. */
  long outTime(int j) {
    return outTimes == null || j >= outTimes.length ? NO_TIME : outTimes[j];
  }

  private void readWrites(JsonParser p, JsonToken start) throws IOException {
    if (start != JsonToken.START_ARRAY) throw new IOException("\"writes\" is not an array");
    ArrayList<Object> w = new ArrayList<>(5);
    for (JsonToken t; (t = p.nextToken()) != JsonToken.END_ARRAY; ) {
      if (t != JsonToken.START_ARRAY) throw new IOException("a write is not an array");
      w.clear();
      for (JsonToken e; (e = p.nextToken()) != JsonToken.END_ARRAY; ) {
        switch (e) {
          // A record index fits an int; a timer's time is epoch ms.
          case VALUE_NUMBER_INT -> w.add(p.getNumberType() == JsonParser.NumberType.INT ? (Object) p.getIntValue() : (Object) p.getLongValue());
          case VALUE_NUMBER_FLOAT -> w.add(p.getDoubleValue());
          case VALUE_STRING -> w.add(p.getText());
          case VALUE_NULL -> w.add(null);
          default -> throw new IOException("a write holds " + e);
        }
      }
      writes.add(w.toArray());
    }
  }
}
