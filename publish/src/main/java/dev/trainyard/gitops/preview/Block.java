package dev.trainyard.gitops.preview;

import java.util.ArrayList;
import java.util.List;

/**
 * A piece of Markdown that {@link PartSplitter} keeps whole when it can, and otherwise splits
 * between body lines: the part that ends mid-block gets {@code tail} (closing the fence and {@code
 * </details>}), the next part starts with {@code reopen} (the {@code <details>}, summary and fence
 * again; a table's header rows).
 *
 * @param head lines before the body (opening {@code <details>}, the fence)
 * @param body the lines that may be split between parts
 * @param tail lines closing what {@code head} opened
 * @param reopen lines that reopen the block in the next part
 */
record Block(List<String> head, List<String> body, List<String> tail, List<String> reopen) {
  Block {
    head = List.copyOf(head);
    body = List.copyOf(body);
    tail = List.copyOf(tail);
    reopen = List.copyOf(reopen);
  }

  /** Plain lines (paragraphs, headings, lists): split anywhere, nothing to reopen. */
  static Block text(List<String> lines) {
    return new Block(List.of(), lines, List.of(), List.of());
  }

  /** Every line of the block, unsplit. */
  List<String> lines() {
    List<String> all = new ArrayList<>(head);
    all.addAll(body);
    all.addAll(tail);
    return all;
  }
}
