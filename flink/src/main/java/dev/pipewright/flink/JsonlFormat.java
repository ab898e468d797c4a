package dev.pipewright.flink;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.SimpleStreamFormat;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParseException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

/**
 * source.jsonl's lines for Flink's FileSource: what TextLineInputFormat does, plus what the local
 * engine's reader (engine/operators/sourceJsonl.ts) does with a line: lines end at '\n' (a '\r'
 * before it is dropped), a UTF-8 byte order mark on the first line is skipped, blank lines are
 * skipped, and a line that is not UTF-8 or not one JSON value fails the job, without restarts,
 * naming the operator, the file and the line: `operator "lines": lines.jsonl:17 is not valid
 * JSON (...)`.
 *
 * <p>Line numbers hold after a restore too: the format is not splittable and never reports an
 * offset, so FileSource restores it by reading the file again from its start and skipping the
 * records it had emitted; this reader counts every line it passes on the way.
 *
 * <p>A line goes on as its text, checked but not rewritten.
 */
public final class JsonlFormat extends SimpleStreamFormat<String> {
  private static final long serialVersionUID = 1L;

  private final String operatorId;
  /** The file's name, for messages (the local engine names it by its base name). */
  private final String fileName;
  /** `timestampField` split at its dots, or null: each line's time is checked here, with its line. */
  private final String[] timestampPath;

  /** `onBadTimestamp: "skip"`: a line without a time is left out, as locally, instead of failing. */
  private final boolean skipBadTimestamps;

  public JsonlFormat(String operatorId, String fileName, String[] timestampPath) {
    this(operatorId, fileName, timestampPath, false);
  }

  public JsonlFormat(String operatorId, String fileName, String[] timestampPath, boolean skipBadTimestamps) {
    this.operatorId = operatorId;
    this.fileName = fileName;
    this.timestampPath = timestampPath;
    this.skipBadTimestamps = skipBadTimestamps;
  }

  /** Whether the source's params say `onBadTimestamp: "skip"`. */
  static boolean skipsBadTimestamps(Plan.Operator op) throws IOException {
    return "skip".equals(Json.MAPPER.readTree(op.json).path("params").path("onBadTimestamp").asText());
  }

  @Override
  public StreamFormat.Reader<String> createReader(Configuration config, FSDataInputStream stream) {
    return new LineReader(stream);
  }

  @Override
  public TypeInformation<String> getProducedType() {
    return Types.STRING;
  }

  private final class LineReader implements StreamFormat.Reader<String> {
    private final FSDataInputStream in;
    private final byte[] buffer = new byte[1 << 16];
    private int position;
    private int limit;
    private boolean eof;
    /** The current line's bytes. */
    private byte[] line = new byte[1 << 10];
    private int lineLength;
    private long lineNumber;
    private CharsetDecoder decoder;

    LineReader(FSDataInputStream in) {
      this.in = in;
    }

    @Override
    public String read() throws IOException {
      while (nextLine()) {
        int start = 0;
        int end = lineLength;
        if (end > 0 && line[end - 1] == '\r') end--;
        if (lineNumber == 1 && end >= 3 && (line[0] & 0xff) == 0xef && (line[1] & 0xff) == 0xbb
            && (line[2] & 0xff) == 0xbf) {
          start = 3;
        }
        boolean blank = true;
        boolean ascii = true;
        for (int i = start; i < end; i++) {
          byte b = line[i];
          if (b < 0) {
            ascii = false;
            blank = false;
          } else if (b > ' ') {
            blank = false;
          }
        }
        if (blank) continue;
        String text = ascii
            ? new String(line, start, end - start, StandardCharsets.ISO_8859_1)
            : decode(start, end);
        check(text);
        if (timestampPath != null && !hasTime(text)) continue;
        return text;
      }
      return null;
    }

    /** Reads the next line (up to '\n' or the end) into `line`; false at the end of the file. */
    private boolean nextLine() throws IOException {
      lineLength = 0;
      boolean any = false;
      for (;;) {
        if (position == limit) {
          if (eof || !fill()) return any;
        }
        any = true;
        int i = position;
        while (i < limit && buffer[i] != '\n') i++;
        append(position, i);
        if (i < limit) {
          position = i + 1;
          lineNumber++;
          return true;
        }
        position = limit;
      }
    }

    private boolean fill() throws IOException {
      int n = in.read(buffer, 0, buffer.length);
      if (n <= 0) {
        eof = true;
        if (lineLength > 0) lineNumber++; // a last line without '\n'
        return false;
      }
      position = 0;
      limit = n;
      return true;
    }

    private void append(int from, int to) {
      int n = to - from;
      if (lineLength + n > line.length) {
        byte[] bigger = new byte[Math.max(line.length * 2, lineLength + n)];
        System.arraycopy(line, 0, bigger, 0, lineLength);
        line = bigger;
      }
      System.arraycopy(buffer, from, line, lineLength, n);
      lineLength += n;
    }

    private String decode(int start, int end) {
      if (decoder == null) {
        decoder = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
      }
      try {
        return decoder.decode(ByteBuffer.wrap(line, start, end - start)).toString();
      } catch (CharacterCodingException e) {
        throw UserError.fail(where() + " is not valid UTF-8 (save the file as UTF-8)");
      }
    }

    /** One JSON value and nothing after it, as JSON.parse accepts; streaming, no tree. */
    private void check(String text) {
      try (JsonParser p = Json.FACTORY.createParser(text)) {
        JsonToken t = p.nextToken();
        if (t == null) throw new JsonParseException(p, "no value");
        p.skipChildren();
        if (p.nextToken() != null) throw new JsonParseException(p, "more than one value on the line");
      } catch (JsonProcessingException e) {
        throw UserError.fail(where() + " is not valid JSON (" + e.getOriginalMessage() + ")");
      } catch (IOException e) {
        throw UserError.fail(where() + " is not valid JSON (" + e.getMessage() + ")");
      }
    }

    /**
     * The line has a time the source's timestamp assigner can read (EventTimes); without one it is
     * skipped (false) when the params say so, else the job fails here, where the line is known, in
     * the local engine's words. A fractional time fails either way: locally it is a usable time.
     */
    private boolean hasTime(String text) throws IOException {
      long time;
      try {
        time = EventTimes.read(text, timestampPath);
      } catch (EventTimes.FractionalTime e) {
        throw UserError.fail(where() + " has " + e.getMessage());
      }
      if (time == EventTimes.NONE) {
        if (skipBadTimestamps) return false;
        throw UserError.fail(where() + " has no timestamp in field \"" + String.join(".", timestampPath)
            + "\" (a number of ms or an ISO date)");
      }
      return true;
    }

    private String where() {
      return "operator \"" + operatorId + "\": " + fileName + ":" + lineNumber;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
