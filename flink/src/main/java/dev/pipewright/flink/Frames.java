package dev.pipewright.flink;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The worker pipe's framing (PROTOCOL.md): a 4-byte big-endian length, then that many bytes of
 * UTF-8 JSON. Both directions use it.
 */
public final class Frames {
  /** A frame larger than this is taken for a broken pipe, not allocated. */
  static final int MAX_FRAME = 1 << 30;

  private Frames() {}

  /** Writes one frame (not flushed: the caller flushes once the frame is whole). */
  public static void write(OutputStream out, byte[] json) throws IOException {
    int n = json.length;
    out.write(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
    out.write(json);
  }

  public static void write(OutputStream out, CharSequence json) throws IOException {
    write(out, json.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** The next frame's bytes, or null when the stream ends cleanly between frames. */
  public static byte[] read(DataInputStream in) throws IOException {
    int b0 = in.read();
    if (b0 < 0) return null;
    int n = (b0 << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
    if (n < 0 || n > MAX_FRAME) throw new IOException("a frame of " + (n & 0xffffffffL) + " bytes");
    byte[] json = new byte[n];
    try {
      in.readFully(json);
    } catch (EOFException e) {
      throw new EOFException("the stream ended inside a frame of " + n + " bytes");
    }
    return json;
  }
}
