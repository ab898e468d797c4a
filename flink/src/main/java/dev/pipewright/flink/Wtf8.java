package dev.pipewright.flink;

import java.io.IOException;

/**
 * Strings as UTF-8 bytes that keep every Java string, lone surrogates included (the "generalized
 * UTF-8" known as WTF-8): a well-formed string gives exactly its UTF-8 bytes, and a surrogate
 * without its partner gives the three bytes UTF-8's pattern would give its code unit. Java's own
 * UTF-8 encoder turns a lone surrogate into '?', and writeUTF stops at 64 KB; a loop log must give
 * back the very text it took (JSON text from a worker may hold anything a JS string holds).
 */
final class Wtf8 {
  private Wtf8() {}

  static byte[] encode(String s) {
    int n = s.length();
    int size = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) size += 1;
      else if (c < 0x800) size += 2;
      else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        size += 4;
        i++;
      } else size += 3;
    }
    byte[] b = new byte[size];
    int p = 0;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        b[p++] = (byte) c;
      } else if (c < 0x800) {
        b[p++] = (byte) (0xC0 | (c >> 6));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint(c, s.charAt(++i));
        b[p++] = (byte) (0xF0 | (cp >> 18));
        b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
        b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (cp & 0x3F));
      } else {
        // Any other BMP unit, a lone surrogate included.
        b[p++] = (byte) (0xE0 | (c >> 12));
        b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return b;
  }

  /**
   * The string of `encode`'s bytes. A byte that cannot start a sequence, or a sequence cut short,
   * fails; overlong forms are not looked for (it reads what `encode` wrote, in a checkpoint).
   */
  static String decode(byte[] b, int off, int len) throws IOException {
    StringBuilder s = new StringBuilder(len);
    int end = off + len;
    for (int p = off; p < end; ) {
      int b0 = b[p++] & 0xFF;
      if (b0 < 0x80) {
        s.append((char) b0);
      } else if (b0 >= 0xC0 && b0 < 0xE0) {
        s.append((char) (((b0 & 0x1F) << 6) | next(b, p++, end)));
      } else if (b0 >= 0xE0 && b0 < 0xF0) {
        int c = ((b0 & 0x0F) << 12) | (next(b, p++, end) << 6);
        s.append((char) (c | next(b, p++, end)));
      } else if (b0 >= 0xF0 && b0 < 0xF8) {
        int cp = ((b0 & 0x07) << 18) | (next(b, p++, end) << 12);
        cp |= next(b, p++, end) << 6;
        cp |= next(b, p++, end);
        if (cp < 0x10000 || cp > Character.MAX_CODE_POINT) throw new IOException("not UTF-8: code point " + cp);
        s.appendCodePoint(cp);
      } else {
        throw new IOException("not UTF-8: byte 0x" + Integer.toHexString(b0) + " at " + (p - 1 - off));
      }
    }
    return s.toString();
  }

  private static int next(byte[] b, int p, int end) throws IOException {
    if (p >= end || (b[p] & 0xC0) != 0x80) throw new IOException("not UTF-8: a sequence ends early");
    return b[p] & 0x3F;
  }
}
