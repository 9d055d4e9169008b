package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The preview as Markdown for a pull-request comment, in the order a reviewer reads it: a summary
 * table (runs added / changed / removed with runtime, image, nodes × processes, GPUs, queue,
 * cluster; GPUs per queue beside the quota), call-outs, every diagnostic exactly as {@code
 * validate} prints it, then one collapsible diff per object ({@link MarkdownChanges}). {@link
 * #parts} splits it into comments.
 *
 * <pre>
 * List&lt;String&gt; comments = MarkdownPreview.parts(preview, 65_536);   // preview-1.md, preview-2.md, …
 * </pre>
 */
public final class MarkdownPreview {
  /** GitHub's comment limit, the default part size. */
  public static final int GITHUB_LIMIT = PartSplitter.GITHUB_LIMIT;

  /** The smallest accepted part size. */
  public static final int MIN_PART = PartSplitter.MIN_PART;

  private MarkdownPreview() {}

  /**
   * The preview in parts of at most {@code limit} UTF-8 bytes each (one part when it fits).
   *
   * @throws IllegalArgumentException when {@code limit} is below {@link #MIN_PART}
   */
  public static List<String> parts(Preview preview, int limit) {
    return PartSplitter.split(blocks(preview), limit);
  }

  /** The whole preview as one text, without part markers (what the parts hold between them). */
  public static String whole(Preview preview) {
    StringBuilder out = new StringBuilder();
    blocks(preview).forEach(b -> b.lines().forEach(l -> out.append(l).append('\n')));
    return out.toString();
  }

  static List<Block> blocks(Preview p) {
    List<Block> blocks = new ArrayList<>();
    blocks.add(Block.text(List.of("## Trainyard preview: " + counts(p), "", intro(p), "")));
    if (!p.note().isEmpty()) {
      blocks.add(Block.text(List.of(p.note(), "")));
    }
    if (!p.runs().isEmpty()) {
      blocks.add(SummaryTables.runs(p));
    }
    SummaryTables.checkpoints(p).ifPresent(blocks::add);
    if (!p.queues().isEmpty()) {
      blocks.add(
          Block.text(
              List.of(
                  "**GPUs per queue** (added and changed runs; nominal quota from platform.yaml)",
                  "")));
      blocks.add(SummaryTables.queues(p));
    }
    p.platform().ifPresent(change -> blocks.addAll(SummaryTables.platform(change)));
    blocks.add(callOuts(p));
    blocks.addAll(diagnostics(p.diagnostics()));
    blocks.addAll(MarkdownChanges.of(p));
    return blocks;
  }

  private static String counts(Preview p) {
    int added = p.runs(RunChange.Status.ADDED).size();
    return added
        + (added == 1 ? " run" : " runs")
        + " added, "
        + p.runs(RunChange.Status.CHANGED).size()
        + " changed, "
        + p.runs(RunChange.Status.REMOVED).size()
        + " removed";
  }

  private static String intro(Preview p) {
    String what =
        p.mode() == Preview.Mode.SOURCE
            ? "the runs merging would start in the GitOps repo"
            : "the GitOps repo change, run by run";
    long refused =
        p.callOuts().stream().filter(c -> c.severity() == CallOut.Severity.REFUSED).count();
    long errors = p.diagnostics().stream().filter(Diagnostic::isError).count();
    String verdict =
        p.refused()
            ? "**Would be refused:** "
                + errors
                + " error"
                + (errors == 1 ? "" : "s")
                + ", "
                + refused
                + " refused call-out"
                + (refused == 1 ? "" : "s")
                + "."
            : "**No errors.**";
    return Md.code(p.base()) + " → " + Md.code(p.head()) + " (" + what + "). " + verdict;
  }

  private static Block callOuts(Preview p) {
    List<String> lines = new ArrayList<>(List.of("### Call-outs", ""));
    if (p.callOuts().isEmpty()) {
      lines.add("None.");
    }
    for (CallOut c : p.callOuts()) {
      lines.add(
          "- **"
              + c.severity().label()
              + "**"
              + (c.run().isEmpty() ? "" : " " + Md.code(c.run()))
              + ": "
              + c.message());
    }
    lines.add("");
    return Block.text(lines);
  }

  private static List<Block> diagnostics(List<Diagnostic> diagnostics) {
    String counts = DiagnosticPrinter.counts(diagnostics);
    Block heading = Block.text(List.of("### Diagnostics (" + counts + ")", ""));
    if (diagnostics.isEmpty()) {
      return List.of(heading, Block.text(List.of("None: every train.yaml compiles cleanly.", "")));
    }
    return List.of(heading, fenced(DiagnosticPrinter.lines(diagnostics), "text", Optional.empty()));
  }

  /**
   * A fenced code block, optionally inside {@code <details>} with {@code summary}; reopened whole
   * when split.
   */
  static Block fenced(List<String> body, String language, Optional<String> summary) {
    String fence = Md.fence(body);
    List<String> head = new ArrayList<>();
    List<String> reopen = new ArrayList<>();
    summary.ifPresent(
        s -> {
          head.addAll(List.of("<details><summary>" + Md.html(s) + "</summary>", ""));
          reopen.addAll(List.of("<details><summary>" + Md.html(s) + " (continued)</summary>", ""));
        });
    head.add(fence + language);
    reopen.add(fence + language);
    List<String> tail = new ArrayList<>(List.of(fence));
    if (summary.isPresent()) {
      tail.addAll(List.of("", "</details>"));
    }
    tail.add("");
    return new Block(head, body, tail, reopen);
  }
}
