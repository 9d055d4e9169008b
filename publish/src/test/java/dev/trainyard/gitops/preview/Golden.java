package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Golden preview outputs under {@code publish/src/test/resources/preview-golden/<case>/}: the
 * Markdown parts ({@code preview-1.md}, …) and {@code preview.json}, compared byte for byte. {@code
 * -Dgolden.update=true} rewrites them: read every changed file before committing it.
 */
final class Golden {
  static final Path DIR = PreviewRepos.ROOT.resolve("publish/src/test/resources/preview-golden");
  static final boolean UPDATE = Boolean.getBoolean("golden.update");

  private Golden() {}

  /**
   * Checks (or with the update flag, writes) {@code name}'s expected files; returns the Markdown
   * parts.
   */
  static List<String> check(String name, Preview preview, int partSize) {
    List<String> parts =
        MarkdownPreview.parts(preview, partSize).stream().map(Golden::normalized).toList();
    List<String> files = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      files.add("preview-" + (i + 1) + ".md");
      texts.add(parts.get(i));
    }
    files.add("preview.json");
    texts.add(normalized(JsonPreview.render(preview)));
    Path dir = DIR.resolve(name);
    if (UPDATE) {
      write(dir, files, texts);
    }
    assertEquals(
        expectedFiles(dir),
        files.stream().sorted().toList(),
        name + ": the parts differ (re-approve with -Dgolden.update=true after review)");
    for (int i = 0; i < files.size(); i++) {
      assertEquals(
          read(dir.resolve(files.get(i))),
          texts.get(i),
          name
              + "/"
              + files.get(i)
              + " differs (re-approve with -Dgolden.update=true after review)");
    }
    return parts;
  }

  /**
   * Commit ids in labels ({@code HEAD @ 1a2b3c4d5e6f}) read {@code HEAD @ <commit>}: a commit
   * holding a Secret or SealedSecret differs on every run (fresh key material, masked in the
   * preview but part of the tree id). {@code GitOpsPreviewTest} checks the labels' commits.
   */
  static String normalized(String text) {
    return text.replaceAll("( @ )[0-9a-f]{12}\\b", "$1<commit>");
  }

  private static List<String> expectedFiles(Path dir) {
    assertTrue(
        Files.isDirectory(dir),
        dir + " is missing; run with -Dgolden.update=true to create it, then review it");
    try (Stream<Path> list = Files.list(dir)) {
      return list.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path dir, List<String> files, List<String> texts) {
    try {
      Files.createDirectories(dir);
      try (Stream<Path> old = Files.list(dir)) {
        for (Path p : old.toList()) {
          Files.delete(p);
        }
      }
      for (int i = 0; i < files.size(); i++) {
        Files.writeString(dir.resolve(files.get(i)), texts.get(i), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
