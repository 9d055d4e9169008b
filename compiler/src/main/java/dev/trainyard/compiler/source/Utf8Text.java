package dev.trainyard.compiler.source;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Strict UTF-8 decoding that says where the first bad byte is, instead of replacing it with U+FFFD.
 */
final class Utf8Text {
  private Utf8Text() {}

  /** Where a decode failed: the byte offset, and its 1-based line and byte column. */
  record BadByte(int offset, int line, int column, int value) {}

  /** The first byte that is not part of a valid UTF-8 sequence, if any. */
  static Optional<BadByte> firstBadByte(byte[] bytes) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length + 1);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      return Optional.empty();
    }
    return Optional.of(positionOf(bytes, in.position()));
  }

  private static BadByte positionOf(byte[] bytes, int offset) {
    // Bytes before the bad one, one char per byte: lines and byte columns count the same in both.
    String before = new String(bytes, 0, offset, StandardCharsets.ISO_8859_1);
    int line = 1 + (int) before.chars().filter(c -> c == '\n').count();
    return new BadByte(offset, line, offset - before.lastIndexOf('\n'), bytes[offset] & 0xFF);
  }
}
