package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What the formatter and ArchUnit cannot see, checked on the main sources of every module: a type
 * is named by an import, not spelled out inline ({@code java.util.List<…>} in a signature). The
 * sweep that removed them ran OpenRewrite's {@code ShortenFullyQualifiedTypeReferences}; a name
 * that clashes with an import of the same simple name stays qualified and is listed in {@link
 * #CLASHES}.
 */
class SourceShapeTest {

  private static final Path ROOT = Path.of(System.getProperty("trainyard.repo.root", ".."));

  private static final List<String> MODULES =
      List.of("compiler", "publish", "controller", "cli", "cluster-it");

  /**
   * A qualified type name in code: a package of the libraries Trainyard uses, lower-case segments,
   * then a capitalised type. Not preceded by a word character, dot, quote or Javadoc tag character.
   */
  static final Pattern INLINE =
      Pattern.compile(
          "(?<![\\w.\"@{#/])(?:java|javax|dev\\.trainyard|picocli|io\\.fabric8|com\\.fasterxml"
              + "|org\\.eclipse|com\\.networknt|org\\.snakeyaml)(?:\\.[a-z0-9_]+)*\\.[A-Z]\\w*");

  /** {@code file:line} prefixes kept qualified: the simple name is taken by another import. */
  private static final List<String> CLASHES =
      List.of(
          // fabric8's kubeconfig model beside the file's own Config
          "compiler/src/main/java/dev/trainyard/compiler/cluster/ClusterDryRun.java:");

  @Test
  @DisplayName("no inline fully-qualified type names in main code (imports instead)")
  void noInlineQualifiedNames() throws IOException {
    List<String> found = new ArrayList<>();
    int files = 0;
    for (String module : MODULES) {
      Path main = ROOT.resolve(module).resolve("src/main/java");
      if (!Files.isDirectory(main)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(main)) {
        for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
          files++;
          found.addAll(inline(ROOT.relativize(file).toString(), Files.readAllLines(file)));
        }
      }
    }
    assertTrue(files > 300, "only " + files + " main source files found under " + ROOT);
    found.removeIf(hit -> CLASHES.stream().anyMatch(hit::startsWith));
    assertEquals(List.of(), found, "use an import (or list a name clash in CLASHES)");
  }

  @Test
  @DisplayName("the check finds a qualified name in code and skips imports, comments and strings")
  void detector() {
    List<String> lines =
        List.of(
            "package dev.trainyard.x;",
            "import java.util.List;",
            "/** Uses {@link java.util.Map} and java.util.Set in prose. */",
            "  // java.io.File",
            "  String s = \"java.lang.String\";",
            "  private java.util.List<dev.trainyard.compiler.Diagnostic> d;",
            "  var c = picocli.CommandLine.Model.CommandSpec.create();");
    assertEquals(
        List.of(
            "F.java:6: java.util.List",
            "F.java:6: dev.trainyard.compiler.Diagnostic",
            "F.java:7: picocli.CommandLine"),
        inline("F.java", lines));
  }

  /**
   * The inline names of {@code lines}, as {@code file:line: name}; comments and strings skipped.
   */
  static List<String> inline(String file, List<String> lines) {
    List<String> hits = new ArrayList<>();
    boolean inComment = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (inComment) {
        inComment = !line.contains("*/");
        continue;
      }
      if (line.startsWith("/*")) {
        inComment = !line.contains("*/");
        continue;
      }
      if (line.startsWith("import ") || line.startsWith("package ") || line.startsWith("//")) {
        continue;
      }
      String code = line.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"").replaceAll("//.*", "");
      var m = INLINE.matcher(code);
      while (m.find()) {
        hits.add(file + ":" + (i + 1) + ": " + m.group());
      }
    }
    return hits;
  }
}
