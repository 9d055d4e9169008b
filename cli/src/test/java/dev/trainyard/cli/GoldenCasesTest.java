package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Golden tests: every folder under {@code golden/} is compiled and its whole output tree and
 * printed diagnostics are compared byte for byte. {@code -Dgolden.update=true} rewrites the
 * expected files (review the diff before committing); CI fails on any difference.
 */
class GoldenCasesTest {
  static final Path ROOT =
      Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("golden");
  static final boolean UPDATE = Boolean.getBoolean("golden.update");

  @TempDir Path temp;

  @TestFactory
  @DisplayName("every golden case produces exactly its expected tree and diagnostics")
  Stream<DynamicTest> goldenCases() throws IOException {
    return GoldenCase.all(ROOT).map(c -> DynamicTest.dynamicTest(c.name(), () -> check(c)));
  }

  private void check(GoldenCase c) throws Exception {
    Path work = Files.createTempDirectory(temp, c.name());
    CompileResult result = compiler().compile(c.prepare(work));
    String output = "exit " + (result.hasErrors() ? 1 : 0) + "\n" + printed(result);
    SortedMap<String, String> actual =
        result.tree().map(t -> new TreeMap<>(t.files())).orElse(new TreeMap<>());
    if (UPDATE) {
      approve(c, output, actual);
      return;
    }
    assertEquals(
        read(c.expectedOutput()),
        output,
        c.name() + ": diagnostics differ (re-approve with -Dgolden.update=true after review)");
    SortedMap<String, String> expected = readTree(c.expectedTree());
    assertEquals(expected.keySet(), actual.keySet(), c.name() + ": the set of files differs");
    for (Map.Entry<String, String> e : expected.entrySet()) {
      assertEquals(
          ageFilesMasked(e.getValue()),
          ageFilesMasked(actual.get(e.getKey())),
          c.name() + ": " + e.getKey() + " differs");
    }
  }

  /**
   * An armored age file ({@code sops.age[].enc}) with its body masked: Jagged draws age's file key,
   * ephemeral share and nonce itself, so it differs on every compile; {@code SopsAgeSealerTest}
   * opens it with the real {@code age} and {@code sops}.
   */
  static String ageFilesMasked(String text) {
    return text == null
        ? null
        : text.replaceAll(
            "(?s)(-----BEGIN AGE ENCRYPTED FILE-----\\n).*?(-----END AGE ENCRYPTED FILE-----)",
            "$1<age file>$2");
  }

  /**
   * The compiler as the CLI builds it, but with seeded keys and a fixed clock for reproducible
   * Secrets.
   */
  static Compiler compiler() {
    return new Compiler(
        new SshSecretProvider(
            TrainProject.seeded(),
            Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)));
  }

  static String printed(CompileResult result) {
    StringWriter text = new StringWriter();
    DiagnosticPrinter.printText(result.diagnostics(), new PrintWriter(text));
    return text.toString();
  }

  private static void approve(GoldenCase c, String output, SortedMap<String, String> tree)
      throws IOException {
    Files.writeString(c.expectedOutput(), output, StandardCharsets.UTF_8);
    deleteTree(c.expectedTree());
    for (Map.Entry<String, String> e : tree.entrySet()) {
      Path file = c.expectedTree().resolve(e.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
    }
  }

  static SortedMap<String, String> readTree(Path dir) throws IOException {
    SortedMap<String, String> files = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path f : walk.filter(Files::isRegularFile).toList()) {
        files.put(
            dir.relativize(f).toString().replace('\\', '/'),
            Files.readString(f, StandardCharsets.UTF_8));
      }
    }
    return files;
  }

  private static String read(Path file) throws IOException {
    assertTrue(
        Files.exists(file),
        file + " is missing; run with -Dgolden.update=true to create it, then review it");
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
