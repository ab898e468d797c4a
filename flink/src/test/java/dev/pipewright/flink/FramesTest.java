package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FramesTest {
  @Test
  void aFrameIsABigEndianLengthThenUtf8() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Frames.write(out, "{\"t\":\"é\"}");
    byte[] bytes = out.toByteArray();
    byte[] body = "{\"t\":\"é\"}".getBytes(StandardCharsets.UTF_8);
    assertEquals(4 + body.length, bytes.length);
    assertArrayEquals(new byte[] {0, 0, 0, (byte) body.length}, Arrays.copyOf(bytes, 4));
    assertArrayEquals(body, Arrays.copyOfRange(bytes, 4, bytes.length));
  }

  @Test
  void framesReadBackInOrderThenNullAtTheEnd() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String big = "x".repeat(70_000); // a length whose bytes are not all zero but the last
    Frames.write(out, "{\"t\":\"ready\"}");
    Frames.write(out, "\"" + big + "\"");
    Frames.write(out, "");
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(out.toByteArray()));
    assertEquals("{\"t\":\"ready\"}", new String(Frames.read(in), StandardCharsets.UTF_8));
    assertEquals("\"" + big + "\"", new String(Frames.read(in), StandardCharsets.UTF_8));
    assertEquals("", new String(Frames.read(in), StandardCharsets.UTF_8));
    assertNull(Frames.read(in));
  }

  @Test
  void aStreamEndingInsideAFrameIsAnError() {
    byte[] cut = {0, 0, 0, 10, '{', '"'};
    assertThrows(EOFException.class, () -> Frames.read(new DataInputStream(new ByteArrayInputStream(cut))));
    byte[] cutLength = {0, 0};
    assertThrows(EOFException.class, () -> Frames.read(new DataInputStream(new ByteArrayInputStream(cutLength))));
  }

  @Test
  void stringsAreEscapedAsJsonStringifyDoes() {
    assertEquals("\"a\\\"b\\\\c\\n\\u0001\\u001f\"", Json.quote("a\"b\\c\n\u0001\u001f"));
    assertEquals("\"é😀\"", Json.quote("é😀"));
    assertEquals("\"\\ud800x\"", Json.quote("\ud800x")); // a lone surrogate
    assertEquals("null", Json.quote(null));
  }

  @Test
  void workerFramesParse() throws Exception {
    WorkerMessage m = WorkerMessage.parse(("{\"out\":[\"{\\\"a\\\":1}\",[\"late\",\"2\"]],\"t\":\"done\","
        + "\"writes\":[[0,\"v\",\"count\",\"42\"],[2,\"m\",\"m\",\"k\",null],[3,\"mc\",\"m\"]]}")
        .getBytes(StandardCharsets.UTF_8));
    assertEquals("done", m.t);
    assertEquals(Arrays.asList("{\"a\":1}", "2"), m.out);
    assertEquals(Arrays.asList(null, "late"), m.outPorts);
    assertArrayEquals(new Object[] {0, "v", "count", "42"}, m.writes.get(0));
    assertArrayEquals(new Object[] {2, "m", "m", "k", null}, m.writes.get(1));
    assertArrayEquals(new Object[] {3, "mc", "m"}, m.writes.get(2));
    WorkerMessage r = WorkerMessage.parse(
        "{\"t\":\"read\",\"i\":3,\"what\":\"map\",\"name\":\"m\",\"mk\":\"s:x\"}".getBytes(StandardCharsets.UTF_8));
    assertEquals(3, r.i);
    assertEquals("map", r.what);
    assertEquals("s:x", r.mk);
  }
}
