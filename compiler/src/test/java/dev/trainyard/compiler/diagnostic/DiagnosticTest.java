package dev.trainyard.compiler.diagnostic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The diagnostic records every stage reports through: locations, severities, sort order and stage
 * results.
 */
class DiagnosticTest {
  @Test
  @DisplayName(
      "the text form writes control characters of file names, messages, pointers and hints as \\uXXXX (no terminal escapes, no forged lines); tabs and other text as they are")
  void controlCharactersEscaped() {
    Diagnostic d =
        Diagnostic.error(
                DiagnosticCode.YAML_SYNTAX,
                new SourceLocation("a\nb.yaml", 1, 2),
                "/run\u0007",
                "`run` starts \u001B[31mred\r\nx.yaml:1:1: error[E101]: fake\u009B end\ttab é")
            .withHint("del \u007F");
    assertEquals(
        List.of(
            "a\\u000Ab.yaml:1:2: error[E101]: `run` starts \\u001B[31mred\\u000D\\u000Ax.yaml:1:1:"
                + " error[E101]: fake\\u009B end\ttab é",
            "    at /run\\u0007",
            "    hint: del \\u007F",
            "1 error, 0 warnings"),
        DiagnosticPrinter.lines(List.of(d)));
    assertEquals("plain `x` é\t", DiagnosticPrinter.printable("plain `x` é\t"));
    assertEquals(
        "\\u001F \\u007F~\\u0080\\u009F\u00A0",
        DiagnosticPrinter.printable("\u001F \u007F~\u0080\u009F\u00A0"),
        "the edges of C0, DEL and C1; a space, a tilde and a no-break space stay");
  }

  private static final SourceLocation AT = new SourceLocation("train.yaml", 4, 8);

  @Test
  @DisplayName(
      "a location prints as file:line:col, file:line without a column, and file alone without a line")
  void locationText() {
    assertEquals("train.yaml:4:8", AT.toString());
    assertEquals("train.yaml:4", new SourceLocation("train.yaml", 4, 0).toString());
    assertEquals("train.yaml", SourceLocation.ofFile("train.yaml").toString());
    assertEquals(new SourceLocation("train.yaml", 0, 0), SourceLocation.ofFile("train.yaml"));
    assertEquals(
        "train.yaml",
        new SourceLocation("train.yaml", 0, 3).toString(),
        "a column without a line is not printed");
  }

  @Test
  @DisplayName("a location refuses a negative line or column and a null file; 0 means unknown")
  void locationChecks() {
    assertEquals(
        "line and column must be >= 0",
        assertThrows(IllegalArgumentException.class, () -> new SourceLocation("f", -1, 0))
            .getMessage());
    assertEquals(
        "line and column must be >= 0",
        assertThrows(IllegalArgumentException.class, () -> new SourceLocation("f", 0, -1))
            .getMessage());
    assertThrows(NullPointerException.class, () -> new SourceLocation(null, 1, 1));
    assertEquals(0, new SourceLocation("f", 0, 0).line());
  }

  @Test
  @DisplayName("locations sort by file, then line, then column (numerically, not as text)")
  void locationOrder() {
    List<SourceLocation> sorted =
        new ArrayList<>(
            List.of(
                new SourceLocation("b", 1, 1),
                new SourceLocation("a", 10, 1),
                new SourceLocation("a", 2, 7),
                new SourceLocation("a", 2, 3),
                SourceLocation.ofFile("a")));
    sorted.sort(null);
    assertEquals(
        List.of(
            SourceLocation.ofFile("a"),
            new SourceLocation("a", 2, 3),
            new SourceLocation("a", 2, 7),
            new SourceLocation("a", 10, 1),
            new SourceLocation("b", 1, 1)),
        sorted);
    assertEquals(0, AT.compareTo(new SourceLocation("train.yaml", 4, 8)));
    assertTrue(AT.compareTo(new SourceLocation("train.yaml", 4, 9)) < 0);
    assertTrue(new SourceLocation("train.yaml", 5, 1).compareTo(AT) > 0);
  }

  @Test
  @DisplayName(
      "an error stops the pipeline and a warning does not; each keeps its code, message, location and pointer")
  void severities() {
    Diagnostic error = Diagnostic.error(DiagnosticCode.NAME_TOO_LONG, AT, "/name", "too long");
    Diagnostic warning =
        Diagnostic.warning(DiagnosticCode.IMAGE_NOT_PINNED, AT, "/image", "not pinned");
    assertEquals(
        new Diagnostic(Severity.ERROR, DiagnosticCode.NAME_TOO_LONG, "too long", AT, "/name", ""),
        error);
    assertEquals(
        new Diagnostic(
            Severity.WARNING, DiagnosticCode.IMAGE_NOT_PINNED, "not pinned", AT, "/image", ""),
        warning);
    assertTrue(error.isError());
    assertFalse(warning.isError());
    assertFalse(
        new Diagnostic(Severity.INFO, DiagnosticCode.IMAGE_NOT_PINNED, "m", AT, "", "").isError());
    assertEquals("E402", error.code().id());
    assertEquals("W412", warning.code().id());
  }

  @Test
  @DisplayName("severities print in lower case, as in `train.yaml:4:8: error[E402]: …`")
  void severityLabels() {
    assertEquals("error", Severity.ERROR.label());
    assertEquals("warning", Severity.WARNING.label());
    assertEquals("info", Severity.INFO.label());
  }

  @Test
  @DisplayName(
      "a hint is added without changing the rest; a null pointer or hint reads as empty; a null message is refused")
  void hintsAndNulls() {
    Diagnostic d =
        Diagnostic.error(DiagnosticCode.NAME_TOO_LONG, AT, "/name", "too long")
            .withHint("shorten it");
    assertEquals(
        new Diagnostic(
            Severity.ERROR, DiagnosticCode.NAME_TOO_LONG, "too long", AT, "/name", "shorten it"),
        d);
    Diagnostic bare =
        new Diagnostic(Severity.WARNING, DiagnosticCode.IMAGE_NOT_PINNED, "m", AT, null, null);
    assertEquals("", bare.pointer());
    assertEquals("", bare.hint());
    assertThrows(
        NullPointerException.class,
        () -> new Diagnostic(Severity.ERROR, DiagnosticCode.NAME_TOO_LONG, null, AT, "", ""));
    assertThrows(
        NullPointerException.class,
        () -> new Diagnostic(null, DiagnosticCode.NAME_TOO_LONG, "m", AT, "", ""));
    assertThrows(
        NullPointerException.class, () -> new Diagnostic(Severity.ERROR, null, "m", AT, "", ""));
    assertThrows(
        NullPointerException.class,
        () -> new Diagnostic(Severity.ERROR, DiagnosticCode.NAME_TOO_LONG, "m", null, "", ""));
  }

  @Test
  @DisplayName("reports sort by location, then code, then message")
  void reportOrder() {
    Diagnostic late =
        Diagnostic.error(
            DiagnosticCode.INVALID_NAME, new SourceLocation("train.yaml", 9, 1), "", "a");
    Diagnostic e402b = Diagnostic.error(DiagnosticCode.NAME_TOO_LONG, AT, "", "b");
    Diagnostic e402a = Diagnostic.error(DiagnosticCode.NAME_TOO_LONG, AT, "", "a");
    Diagnostic e401 = Diagnostic.error(DiagnosticCode.INVALID_NAME, AT, "", "z");
    List<Diagnostic> sorted = new ArrayList<>(List.of(late, e402b, e402a, e401));
    sorted.sort(Diagnostic.ORDER);
    assertEquals(List.of(e401, e402a, e402b, late), sorted);
  }

  @Test
  @DisplayName(
      "a stage fails when it has no value or any error; warnings alone pass, and its diagnostics are a fixed copy")
  void stageResults() {
    Diagnostic warning = Diagnostic.warning(DiagnosticCode.IMAGE_NOT_PINNED, AT, "", "w");
    Diagnostic error = Diagnostic.error(DiagnosticCode.NAME_TOO_LONG, AT, "", "e");
    assertFalse(StageResult.of("v", List.of()).failed());
    assertFalse(StageResult.of("v", List.of(warning)).failed());
    assertTrue(StageResult.of("v", List.of(warning, error)).failed());
    assertTrue(StageResult.failed(List.of()).failed());
    assertTrue(StageResult.failed(List.of(warning)).failed());
    assertEquals(Optional.of("v"), StageResult.of("v", List.of(warning)).value());
    assertEquals(Optional.empty(), StageResult.<String>failed(List.of(error)).value());
    List<Diagnostic> source = new ArrayList<>(List.of(warning));
    StageResult<String> r = StageResult.of("v", source);
    source.add(error);
    assertEquals(List.of(warning), r.diagnostics());
    assertThrows(UnsupportedOperationException.class, () -> r.diagnostics().add(error));
  }
}
