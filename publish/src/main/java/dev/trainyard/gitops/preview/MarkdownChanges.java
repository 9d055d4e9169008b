package dev.trainyard.gitops.preview;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The "Changes" section: per run a heading, then one collapsible {@code <details>} per object; then
 * the other changed files by name, followed by a {@code <details>} per changed object among them
 * (queues, Secrets). A changed object shows its changed fields by path ({@code @@
 * spec.replicatedJobs[node].replicas @@}, then {@code -} old / {@code +} new; multi-line values as
 * a line diff); an added object shows its YAML; Secret values show only {@code *** (before)} /
 * {@code *** (after)}. Lines longer than {@link #WRAP} characters are wrapped so no single line can
 * outgrow a comment.
 */
final class MarkdownChanges {
  static final int WRAP = 1_000;

  private MarkdownChanges() {}

  static List<Block> of(Preview p) {
    List<Block> blocks = new ArrayList<>();
    if (p.runs().isEmpty() && p.otherFiles().isEmpty()) {
      return blocks;
    }
    blocks.add(Block.text(List.of("### Changes", "")));
    for (RunChange r : p.runs()) {
      blocks.add(
          Block.text(
              List.of(
                  "#### "
                      + r.status().name().toLowerCase(Locale.ROOT)
                      + " "
                      + Md.code(r.folder().run()),
                  "",
                  context(r),
                  "")));
      blocks.addAll(objects(r.objects()));
    }
    if (!p.otherFiles().isEmpty()) {
      List<String> lines = new ArrayList<>(List.of("#### Other files", ""));
      p.otherFiles().forEach(f -> lines.add("- " + Md.code(f)));
      lines.add("");
      blocks.add(Block.text(lines));
      blocks.addAll(objects(p.otherObjects()));
    }
    return blocks;
  }

  /**
   * One block per object, removed ones listed together by name after them (their content is gone).
   */
  private static List<Block> objects(List<ObjectChange> objects) {
    List<Block> blocks = new ArrayList<>();
    List<String> removed = new ArrayList<>();
    for (ObjectChange o : objects) {
      if (o.status() == ObjectChange.Status.REMOVED && !o.unreadable()) {
        removed.add("- removed " + Md.code(o.title()));
      } else {
        blocks.add(object(o));
      }
    }
    if (!removed.isEmpty()) {
      removed.add("");
      blocks.add(Block.text(removed));
    }
    return blocks;
  }

  private static String context(RunChange r) {
    String where = Md.code(r.folder().path() + "/");
    return switch (r.status()) {
      case REMOVED -> "Removed from " + where + ": Argo CD / Flux (with prune) delete its objects.";
      case CHANGED -> "Files in " + where + " change in place.";
      case ADDED ->
          r.previous()
              .map(
                  prev ->
                      "New run in "
                          + where
                          + ", compared with "
                          + Md.code(prev.folder().run())
                          + ", the latest earlier run of "
                          + Md.code(prev.sourcePath())
                          + " (its run name, source commit and creation time read as this run's).")
              .orElse(
                  "New run in "
                      + where
                      + ": the first of "
                      + Md.code(
                          r.shown().sourcePath().isEmpty()
                              ? "its train.yaml"
                              : r.shown().sourcePath())
                      + ".");
    };
  }

  private static Block object(ObjectChange o) {
    if (o.unreadable()) {
      return Block.text(
          List.of(
              "- "
                  + Md.code(o.file())
                  + " "
                  + o.status().name().toLowerCase(Locale.ROOT)
                  + ": not a readable YAML object, so its content is not shown (it may hold Secret data)",
              ""));
    }
    String masked = o.secret() == ObjectChange.SecretForm.NONE ? "" : ", Secret data masked";
    if (o.status() == ObjectChange.Status.ADDED) {
      List<String> yaml = wrap(o.yaml().orElse("").lines().toList(), "");
      return MarkdownPreview.fenced(yaml, "yaml", Optional.of(o.title() + ": new" + masked));
    }
    List<String> lines = new ArrayList<>();
    for (FieldChange f : o.fields()) {
      lines.addAll(field(f));
    }
    String count = o.fields().size() + " field" + (o.fields().size() == 1 ? "" : "s") + " changed";
    return MarkdownPreview.fenced(lines, "diff", Optional.of(o.title() + ": " + count + masked));
  }

  /** {@code @@ path @@} then the old and new value; multi-line strings as a line diff. */
  static List<String> field(FieldChange f) {
    List<String> out = new ArrayList<>();
    out.add("@@ " + f.path() + (f.secret() ? " (Secret data, changed)" : "") + " @@");
    boolean multi =
        f.before().map(v -> v.contains("\n")).orElse(false)
            || f.after().map(v -> v.contains("\n")).orElse(false);
    if (multi) {
      List<String> a = f.before().map(v -> v.lines().toList()).orElse(List.of());
      List<String> b = f.after().map(v -> v.lines().toList()).orElse(List.of());
      for (String l : LineDiff.of(a, b)) {
        out.addAll(wrap(List.of(l.substring(1)), l.substring(0, 1) + " "));
      }
      return out;
    }
    f.before().ifPresent(v -> out.addAll(wrap(List.of(v), "- ")));
    f.after().ifPresent(v -> out.addAll(wrap(List.of(v), "+ ")));
    return out;
  }

  /**
   * Each line prefixed, and cut into pieces of at most {@link #WRAP} characters (nothing dropped).
   */
  static List<String> wrap(List<String> lines, String prefix) {
    List<String> out = new ArrayList<>();
    for (String l : lines) {
      if (l.length() <= WRAP) {
        out.add(prefix + l);
        continue;
      }
      for (int i = 0; i < l.length(); i += WRAP) {
        out.add(prefix + l.substring(i, Math.min(l.length(), i + WRAP)));
      }
    }
    return out;
  }
}
