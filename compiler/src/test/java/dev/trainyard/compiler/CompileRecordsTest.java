package dev.trainyard.compiler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.manifest.OutputTree;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What a compile is asked and what it hands back. */
class CompileRecordsTest {
  private static final OutputTree TREE =
      new OutputTree(new TreeMap<>(Map.of("a.yaml", "x: 1\n")), List.of());

  @Test
  @DisplayName(
      "a request defaults to the embedded platform, the built-in runtimes, HEAD and the first run; attempts count from 1")
  void requestDefaults() {
    CompileRequest r = CompileRequest.of(Path.of("jobs/train.yaml"));
    assertEquals("jobs/train.yaml", r.displayPath());
    assertEquals(1, r.attempt());
    assertEquals(Optional.empty(), r.platformFile());
    assertEquals(Optional.empty(), r.createdAt());
    assertEquals(
        "attempt must be >= 1",
        assertThrows(IllegalArgumentException.class, () -> r.withAttempt(0)).getMessage());
    CompileRequest third = r.withAttempt(3);
    assertEquals(3, third.attempt());
    assertEquals(r.trainYaml(), third.trainYaml());
    Instant at = Instant.parse("2026-12-01T10:00:00Z");
    CompileRequest stamped = third.withCreatedAt(at);
    assertEquals(Optional.of(at), stamped.createdAt());
    assertEquals(3, stamped.attempt());
    assertEquals(
        CompileRequest.builder(Path.of("jobs/train.yaml"))
            .displayPath("jobs/train.yaml")
            .attempt(3)
            .createdAt(at)
            .build(),
        stamped);
  }

  @Test
  @DisplayName("the builder sets each component by name, and toBuilder() gives every value back")
  void builderNamesEachComponent() {
    Instant at = Instant.parse("2026-12-01T10:00:00Z");
    CompileRequest r =
        CompileRequest.builder(Path.of("a/train.yaml"))
            .displayPath("shown.yaml")
            .platformFile(Path.of("p.yaml"))
            .runtimesDir(Path.of("rt"))
            .sourceRepo("https://git.example/r.git")
            .sourceCommit("c".repeat(40))
            .cluster("prod")
            .namespace("team-a")
            .attempt(2)
            .existingTree(Path.of("gitops"))
            .createdAt(at)
            .platformDisplay("platform.yaml (gitops main)")
            .platformProvenance(Optional.of("platform.yaml (GitOps repo)"))
            .sourceBranch(Optional.of("main"))
            .fresh(true)
            .workingTree(true)
            .build();
    assertEquals(
        new CompileRequest(
            Path.of("a/train.yaml"),
            "shown.yaml",
            Optional.of(Path.of("p.yaml")),
            Optional.of(Path.of("rt")),
            Optional.of("https://git.example/r.git"),
            Optional.of("c".repeat(40)),
            Optional.of("prod"),
            Optional.of("team-a"),
            2,
            Optional.of(Path.of("gitops")),
            Optional.of(at),
            Optional.of("platform.yaml (gitops main)"),
            Optional.of("platform.yaml (GitOps repo)"),
            Optional.of("main"),
            true,
            true,
            Path.of("")),
        r);
    assertEquals(r, r.toBuilder().build());
    assertEquals(Optional.empty(), r.toBuilder().cluster(Optional.empty()).build().cluster());
    assertThrows(
        IllegalArgumentException.class,
        () -> CompileRequest.builder(Path.of("t")).attempt(0).build());
  }

  @Test
  @DisplayName("a result's diagnostics are sorted by file, line and column, duplicates once")
  void resultSorted() {
    Diagnostic late =
        Diagnostic.warning(
            DiagnosticCode.IMAGE_NOT_PINNED, new SourceLocation("train.yaml", 9, 1), "", "w");
    Diagnostic early =
        Diagnostic.warning(
            DiagnosticCode.IMAGE_NOT_PINNED, new SourceLocation("train.yaml", 2, 1), "", "w");
    CompileResult r =
        new CompileResult(Optional.of(TREE), Optional.empty(), List.of(late, early, late));
    assertEquals(List.of(early, late), r.diagnostics());
  }

  @Test
  @DisplayName(
      "a result has errors when it has no tree or any error; warnings with a tree are success")
  void resultErrors() {
    Diagnostic warning =
        Diagnostic.warning(
            DiagnosticCode.IMAGE_NOT_PINNED, SourceLocation.ofFile("train.yaml"), "", "w");
    Diagnostic error =
        Diagnostic.error(
            DiagnosticCode.NAME_TOO_LONG, SourceLocation.ofFile("train.yaml"), "", "e");
    assertFalse(
        new CompileResult(Optional.of(TREE), Optional.empty(), List.of(warning)).hasErrors());
    assertFalse(new CompileResult(Optional.of(TREE), Optional.empty(), List.of()).hasErrors());
    assertTrue(
        new CompileResult(Optional.of(TREE), Optional.empty(), List.of(warning, error))
            .hasErrors());
    assertTrue(new CompileResult(Optional.empty(), Optional.empty(), List.of()).hasErrors());
  }
}
