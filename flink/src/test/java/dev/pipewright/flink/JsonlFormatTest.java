package dev.pipewright.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.local.LocalDataInputStream;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** source.jsonl's line rules (engine/operators/sourceJsonl.ts) on Flink's side. */
class JsonlFormatTest {
  @TempDir Path dir;

  private List<String> read(byte[] content) throws Exception {
    return read(content, null);
  }

  private List<String> read(byte[] content, String[] timestampPath) throws Exception {
    return read(content, timestampPath, false);
  }

  private List<String> read(byte[] content, String[] timestampPath, boolean skip) throws Exception {
    Path file = dir.resolve("in.jsonl");
    Files.write(file, content);
    List<String> lines = new ArrayList<>();
    try (StreamFormat.Reader<String> reader = new JsonlFormat("src", "in.jsonl", timestampPath, skip)
        .createReader(new Configuration(), new LocalDataInputStream(file.toFile()))) {
      for (String line; (line = reader.read()) != null; ) lines.add(line);
    }
    return lines;
  }

  private String failure(String content) {
    SuppressRestartsException e = assertThrows(SuppressRestartsException.class, () -> read(content.getBytes("UTF-8")));
    return e.getCause().getMessage();
  }

  @Test
  void blankLinesCrlfAndAByteOrderMarkAreTheLocalEngines() throws Exception {
    byte[] bom = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf};
    String rest = "{\"a\":1}\r\n\n   \n\t\r\n[2, 3]\n\"é\"\n4";
    byte[] content = new byte[3 + rest.getBytes("UTF-8").length];
    System.arraycopy(bom, 0, content, 0, 3);
    System.arraycopy(rest.getBytes("UTF-8"), 0, content, 3, content.length - 3);
    assertEquals(List.of("{\"a\":1}", "[2, 3]", "\"é\"", "4"), read(content));
  }

  @Test
  void onBadTimestampSkipLeavesOutLinesWithoutATimeButNotFractionalOnes() throws Exception {
    String[] path = {"t"};
    String content = "{\"t\":5}\n{\"t\":\"soon\"}\n{\"x\":1}\n{\"t\":null}\n{\"t\":\"2024-01-01\"}\n";
    assertEquals(List.of("{\"t\":5}", "{\"t\":\"2024-01-01\"}"), read(content.getBytes("UTF-8"), path, true));
    // Locally 1.5 is a usable time; Flink's are whole ms, so it still fails rather than vanish.
    assertThrows(SuppressRestartsException.class, () -> read("{\"t\":1.5}\n".getBytes("UTF-8"), path, true));
  }

  @Test
  void aLineWithoutATimeFailsNamingItsLineInTheLocalWords() {
    String[] path = {"at", "t"};
    SuppressRestartsException e = assertThrows(SuppressRestartsException.class,
        () -> read("{\"at\":{\"t\":5}}\n{\"at\":{\"t\":\"soon\"}}\n".getBytes("UTF-8"), path));
    assertEquals("operator \"src\": in.jsonl:2 has no timestamp in field \"at.t\" (a number of ms or an ISO date)",
        e.getCause().getMessage());
    e = assertThrows(SuppressRestartsException.class, () -> read("{\"at\":{\"t\":1.5}}\n".getBytes("UTF-8"), path));
    assertEquals("operator \"src\": in.jsonl:1 has event time 1.5 is not a whole number of ms, which Flink's times are",
        e.getCause().getMessage());
  }

  @Test
  void eventTimesAreReadAsJavaScriptReadsThem() throws Exception {
    String[] t = {"t"};
    assertEquals(1704067200000L, EventTimes.read("{\"t\":1704067200000}", t));
    assertEquals(5L, EventTimes.read("{\"a\":[1,{\"t\":2}],\"t\":5.0}", t));
    assertEquals(1704067200000L, EventTimes.read("{\"t\":\"2024-01-01\"}", t));
    assertEquals(1704067200123L, EventTimes.read("{\"t\":\"2024-01-01T00:00:00.123Z\"}", t));
    assertEquals(1704063600000L, EventTimes.read("{\"t\":\"2024-01-01T00:00:00+01:00\"}", t));
    assertEquals(1704067200000L, EventTimes.read("{\"t\":\"Mon, 1 Jan 2024 00:00:00 GMT\"}", t));
    assertEquals(EventTimes.NONE, EventTimes.read("{\"t\":true}", t));
    assertEquals(EventTimes.NONE, EventTimes.read("{\"u\":1}", t));
    assertEquals(EventTimes.NONE, EventTimes.read("[1]", t));
  }

  @Test
  void longLinesCrossTheReadBuffer() throws Exception {
    String big = "{\"s\":\"" + "x".repeat(200_000) + "\"}";
    assertEquals(List.of(big, big), read((big + "\n" + big + "\n").getBytes("UTF-8")));
  }

  @Test
  void aBadLineFailsNamingTheOperatorFileAndLine() {
    assertEquals("operator \"src\": in.jsonl:3 is not valid JSON (more than one value on the line)",
        failure("1\n\n1 2\n"));
    String m = failure("{}\n{\"a\":}\n");
    assertEquals("operator \"src\": in.jsonl:2 is not valid JSON (", m.substring(0, m.indexOf('(') + 1));
    m = failure("{}\n{}\n{\"a\":");
    assertEquals("operator \"src\": in.jsonl:3 is not valid JSON (", m.substring(0, m.indexOf('(') + 1));
  }

  @Test
  void bytesThatAreNotUtf8FailNamingTheirLine() {
    SuppressRestartsException e = assertThrows(SuppressRestartsException.class,
        () -> read(new byte[] {'1', '\n', '"', (byte) 0xff, '"', '\n'}));
    assertEquals("operator \"src\": in.jsonl:2 is not valid UTF-8 (save the file as UTF-8)", e.getCause().getMessage());
  }
}
