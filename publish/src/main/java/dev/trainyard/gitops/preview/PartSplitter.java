package dev.trainyard.gitops.preview;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Packs Markdown blocks into numbered parts that each fit one forge comment: GitHub refuses a body
 * over 65,536 characters ("Body is too long (maximum is 65536 characters)", argocd-diff-action#193;
 * Atlantis {@code maxCommentLength = 65536}). Sizes are counted in UTF-8 bytes, never fewer than
 * characters, so a part fits however the forge counts; a part is never over the limit, a line too
 * long for one is cut ({@link #cut}). Whole blocks are packed greedily; a block too big for a part
 * is split between body lines, closed at the end of one part and reopened at the start of the next,
 * so every part is valid Markdown alone (no {@code <details>} or fence left open) and every line of
 * the whole is in exactly one part, in order.
 *
 * <p>Each part's first line is {@code <!-- trainyard-preview part N/M -->}; its second line holds
 * {@code <!-- trainyard-preview part N -->} and, in part 1, {@code <!-- trainyard-preview -->}: the
 * CI files update comments in place by these markers.
 */
final class PartSplitter {
  /** GitHub's limit for one issue or pull-request comment body. */
  static final int GITHUB_LIMIT = 65_536;

  /**
   * Smallest part size accepted (a part must hold its markers, a reopened block and a few lines).
   */
  static final int MIN_PART = 2_000;

  /** Room kept in each part for its markers, the continuation heading and the footer. */
  private static final int RESERVED = 400;

  /** Fewest bytes a cut piece of a long line gets (a part always has room for that much). */
  private static final int MIN_PIECE = 64;

  private final int budget;
  private final List<List<String>> parts = new ArrayList<>();
  private List<String> current = new ArrayList<>();
  private int used;

  private PartSplitter(int limit) {
    if (limit < MIN_PART) {
      throw new IllegalArgumentException(
          "a part must be at least " + MIN_PART + " bytes, got " + limit);
    }
    this.budget = limit - RESERVED;
  }

  /**
   * The parts of {@code blocks}, each at most {@code limit} UTF-8 bytes, with their markers: one
   * part whenever the whole fits in {@code limit} (only longer output is split).
   */
  static List<String> split(List<Block> blocks, int limit) {
    PartSplitter s = new PartSplitter(limit);
    List<String> all = new ArrayList<>();
    blocks.forEach(b -> all.addAll(b.lines()));
    List<String> one = render(List.of(all));
    if (one.get(0).getBytes(StandardCharsets.UTF_8).length <= limit) {
      return one;
    }
    blocks.forEach(s::add);
    s.flush();
    return render(s.parts);
  }

  private void add(Block b) {
    int whole = size(b.lines());
    if (used + whole <= budget) {
      append(b.lines());
      return;
    }
    if (!current.isEmpty() && whole <= budget) {
      flush();
      append(b.lines());
      return;
    }
    int tail = size(b.tail());
    if (!current.isEmpty() && used + size(b.head()) + tail + first(b) > budget) {
      flush();
    }
    append(b.head());
    int sinceOpen = 0;
    for (String line : cut(b.body(), budget - Math.max(size(b.head()), size(b.reopen())) - tail)) {
      if (sinceOpen > 0 && used + size(List.of(line)) + tail > budget) {
        append(b.tail());
        flush();
        append(b.reopen());
        sinceOpen = 0;
      }
      append(List.of(line));
      sinceOpen++;
    }
    append(b.tail());
  }

  /**
   * {@code lines} with each line over {@code max} UTF-8 bytes (newline included) cut into pieces
   * that fit, on code point boundaries: a part can only hold whole lines, and one line of multibyte
   * text can outgrow any part. The pieces stay inside the block (in a fence they are code;
   * elsewhere plain text), so Markdown stays valid.
   */
  static List<String> cut(List<String> lines, int max) {
    int room = Math.max(MIN_PIECE, max - 1);
    List<String> out = new ArrayList<>();
    for (String line : lines) {
      if (size(List.of(line)) <= room + 1) {
        out.add(line);
        continue;
      }
      int start = 0;
      int bytes = 0;
      for (int i = 0; i < line.length(); ) {
        int cp = line.codePointAt(i);
        int n = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
        if (bytes + n > room) {
          out.add(line.substring(start, i));
          start = i;
          bytes = 0;
        }
        bytes += n;
        i += Character.charCount(cp);
      }
      out.add(line.substring(start));
    }
    return out;
  }

  private static int first(Block b) {
    return b.body().isEmpty() ? 0 : size(List.of(b.body().get(0)));
  }

  private void append(List<String> lines) {
    current.addAll(lines);
    used += size(lines);
  }

  private void flush() {
    if (!current.isEmpty()) {
      parts.add(current);
    }
    current = new ArrayList<>();
    used = 0;
  }

  /** {@code parts} (at least one) with their markers, headings and footers. */
  private static List<String> render(List<List<String>> parts) {
    int m = parts.size();
    List<String> out = new ArrayList<>();
    for (int n = 1; n <= m; n++) {
      StringBuilder part = new StringBuilder();
      part.append("<!-- trainyard-preview part ").append(n).append('/').append(m).append(" -->\n");
      part.append("<!-- trainyard-preview part ")
          .append(n)
          .append(" -->")
          .append(n == 1 ? "<!-- trainyard-preview -->" : "")
          .append('\n');
      if (n > 1) {
        part.append("## Trainyard preview (part ")
            .append(n)
            .append(" of ")
            .append(m)
            .append(", continued)\n\n");
      }
      for (String line : parts.get(n - 1)) {
        part.append(line).append('\n');
      }
      if (n < m) {
        part.append("\n_Continued in part ").append(n + 1).append(" of ").append(m).append("._\n");
      }
      out.add(part.toString());
    }
    return out;
  }

  /** Bytes of {@code lines} in UTF-8, one newline each. */
  static int size(List<String> lines) {
    int n = 0;
    for (String l : lines) {
      n += l.getBytes(StandardCharsets.UTF_8).length + 1;
    }
    return n;
  }
}
