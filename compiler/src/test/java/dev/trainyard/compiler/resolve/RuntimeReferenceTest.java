package dev.trainyard.compiler.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import dev.trainyard.compiler.units.Durations;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * References to runtimes that are not installed: the platform's default (its mistake) and
 * train.yaml's (the user's).
 */
class RuntimeReferenceTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  private CompileResult compile(String trainYaml, String defaultRuntime) {
    TrainProject p = TrainProject.create(temp, trainYaml);
    String platform =
        PlatformYaml.base()
            .text()
            .replace("defaultRuntime: torch\n", "defaultRuntime: " + defaultRuntime + "\n");
    return CompileCall.of(p.trainYaml()).platformText(temp, platform).compile();
  }

  private static Diagnostic only(CompileResult r, DiagnosticCode code) {
    List<Diagnostic> found = TrainProject.withCode(r, code);
    assertEquals(1, found.size(), r.diagnostics().toString());
    assertFalse(r.tree().isPresent());
    return found.get(0);
  }

  @Test
  @DisplayName(
      "a misspelt defaultRuntime is E304 at its line in platform.yaml, suggesting the installed name")
  void unknownDefaultRuntime() {
    Diagnostic d =
        only(compile("run: torchrun train.py\n", "troch"), DiagnosticCode.INVALID_PLATFORM);
    WORDING.approve(d.message());
    assertEquals("/defaultRuntime", d.pointer());
    assertEquals(3, d.location().line());
    assertEquals(17, d.location().column());
    assertTrue(d.location().file().endsWith("platform.yaml"), d.location().toString());
    WORDING.approve(d.hint());
    assertTrue(d.hint().contains("deepspeed") && d.hint().contains("jax"), d.hint());
  }

  @Test
  @DisplayName(
      "a defaultRuntime name@version of a version that is not installed is E304 whose hint names the runtime itself")
  void unknownDefaultVersion() {
    Diagnostic d =
        only(compile("run: torchrun train.py\n", "torch@0.0"), DiagnosticCode.INVALID_PLATFORM);
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "an installed name with a version that is not installed is E302 at the runtime line, listing the installed versions")
  void unknownVersion() {
    CompileResult r = compile("run: torchrun train.py\nruntime: torch@0.0\n", "torch");
    Diagnostic d = only(r, DiagnosticCode.UNKNOWN_RUNTIME_VERSION);
    WORDING.approve(d.message());
    assertEquals("/runtime", d.pointer());
    assertEquals(2, d.location().line());
    WORDING.approve(d.hint());
    WORDING.approve(d.hint());
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.UNKNOWN_RUNTIME));
  }

  @Test
  @DisplayName("a name that is not installed, with a version, is E301 naming only the name")
  void unknownNameWithVersion() {
    Diagnostic d =
        only(
            compile("run: torchrun train.py\nruntime: troch@2.5\n", "torch"),
            DiagnosticCode.UNKNOWN_RUNTIME);
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "a part of exactly 12 digits is read (003153600000s is the maximum); 13 digits count as over it")
  void twelveDigits() {
    assertEquals(OptionalLong.of(Durations.MAX_SECONDS), Durations.seconds("003153600000s"));
    assertEquals(OptionalLong.empty(), Durations.seconds("0000000000001s"));
  }
}
