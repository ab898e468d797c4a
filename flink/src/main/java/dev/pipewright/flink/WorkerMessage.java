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
  /** `out`'s texts, in order. */
  final ArrayList<String> out = new ArrayList<>();
  /** `out`'s ports, parallel to `out`: null for the default port. */
  final ArrayList<String> outPorts = new ArrayList<>();
  /** `writes`, each an array of Integer, String and null. */
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
          case "out" -> m.readOut(p, v);
          case "writes" -> m.readWrites(p, v);
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
      } else if (t == JsonToken.START_ARRAY) {
        p.nextToken();
        String port = p.getValueAsString();
        p.nextToken();
        String text = p.getValueAsString();
        if (p.nextToken() != JsonToken.END_ARRAY || port == null || text == null) {
          throw new IOException("an \"out\" pair is not [port, text]");
        }
        out.add(text);
        outPorts.add(port);
      } else {
        throw new IOException("an \"out\" element is neither a text nor a [port, text] pair");
      }
    }
  }

  private void readWrites(JsonParser p, JsonToken start) throws IOException {
    if (start != JsonToken.START_ARRAY) throw new IOException("\"writes\" is not an array");
    ArrayList<Object> w = new ArrayList<>(5);
    for (JsonToken t; (t = p.nextToken()) != JsonToken.END_ARRAY; ) {
      if (t != JsonToken.START_ARRAY) throw new IOException("a write is not an array");
      w.clear();
      for (JsonToken e; (e = p.nextToken()) != JsonToken.END_ARRAY; ) {
        switch (e) {
          case VALUE_NUMBER_INT -> w.add(p.getIntValue());
          case VALUE_STRING -> w.add(p.getText());
          case VALUE_NULL -> w.add(null);
          default -> throw new IOException("a write holds " + e);
        }
      }
      writes.add(w.toArray());
    }
  }
}
