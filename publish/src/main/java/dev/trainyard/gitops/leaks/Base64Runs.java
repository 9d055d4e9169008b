package dev.trainyard.gitops.leaks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Cuts a text into runs of base64 as a key may be written in any file: wrapped at any width, split
 * across lines of a block scalar, a YAML comment ({@code # }), list items ({@code - }), quoted
 * pieces or a JSON string with {@code \n} escapes, or a YAML double-quoted string continued with
 * {@code \} at line ends. Characters of both alphabets (RFC 4648 §4 and §5) join a run; white
 * space, {@code #}, quotes, a backslash escape and a list dash between them are skipped; anything
 * else ({@code :}, {@code ,}, {@code =} padding) ends it. Each run keeps, for each of its
 * characters, the offset in the text it came from, so a finding names the line it starts on.
 */
final class Base64Runs {
  /**
   * Shorter runs cannot hold a key's first bytes: a PEM header or DER prefix needs about 16
   * characters.
   */
  static final int MIN_LENGTH = 16;

  /** One run: its base64 characters (padding dropped) and where each came from. */
  record Run(String chars, int[] origins) {
    /** The offset in the text of the run's {@code i}th character. */
    int origin(int i) {
      return origins[Math.min(Math.max(i, 0), origins.length - 1)];
    }
  }

  private Base64Runs() {}

  /** The runs of {@code text} of at least {@link #MIN_LENGTH} characters, in order. */
  static List<Run> of(String text) {
    List<Run> runs = new ArrayList<>();
    StringBuilder chars = new StringBuilder();
    int[] origins = new int[64];
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (isBase64(c) || c == '-' && urlSafeDash(text, i)) {
        if (chars.length() == origins.length) {
          origins = Arrays.copyOf(origins, origins.length * 2);
        }
        origins[chars.length()] = i;
        chars.append(c);
        i++;
        continue;
      }
      int skip = joiner(text, i);
      if (skip > 0) {
        i += skip;
        continue;
      }
      end(chars, origins, runs);
      i++;
    }
    end(chars, origins, runs);
    return runs;
  }

  private static void end(StringBuilder chars, int[] origins, List<Run> runs) {
    if (chars.length() >= MIN_LENGTH) {
      runs.add(new Run(chars.toString(), Arrays.copyOf(origins, chars.length())));
    }
    chars.setLength(0);
  }

  /**
   * How many characters at {@code i} only separate pieces of one run (0: none, the run ends here).
   */
  private static int joiner(String text, int i) {
    char c = text.charAt(i);
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '#' || c == '"' || c == '\'') {
      return 1;
    }
    if (c == '-'
        && i + 1 < text.length()
        && (text.charAt(i + 1) == ' ' || text.charAt(i + 1) == '\t')) {
      return 2;
    }
    if (c == '\\' && i + 1 < text.length() && "nrt\n\r".indexOf(text.charAt(i + 1)) >= 0) {
      return 2; // an escape, or a YAML double-quoted line continuation (YAML 1.2 §7.3.1: `\` before
      // a line break)
    }
    return 0;
  }

  /**
   * A {@code -} between two base64 characters is RFC 4648 §5's 62nd digit; elsewhere it is
   * punctuation.
   */
  private static boolean urlSafeDash(String text, int i) {
    return i > 0
        && i + 1 < text.length()
        && isBase64(text.charAt(i - 1))
        && isBase64(text.charAt(i + 1));
  }

  private static boolean isBase64(char c) {
    return (c >= 'A' && c <= 'Z')
        || (c >= 'a' && c <= 'z')
        || (c >= '0' && c <= '9')
        || c == '+'
        || c == '/'
        || c == '_';
  }
}
