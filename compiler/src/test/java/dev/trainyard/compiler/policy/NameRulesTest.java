package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Job names: RFC 1035 labels, and the JobSet pod-name budget with the 7-character run id. */
class NameRulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  private int projects;

  private CompileResult compile(String name, int nodes) {
    return TrainProject.create(
            temp.resolve("p" + projects++),
            "name: " + name + "\nnodes: " + nodes + "\nrun: torchrun x.py\n")
        .compile();
  }

  @ParameterizedTest(name = "{1} nodes: {0} characters fit")
  @CsvSource({"41, 2", "41, 10", "40, 11"})
  @DisplayName(
      "the longest name that fits compiles: 54 - len(node) - 2 digits - 7 (run id), one less from 11 pods on")
  void longestFits(int length, int nodes) {
    CompileResult r = compile("j".repeat(length), nodes);
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.NAME_TOO_LONG));
    assertTrue(r.tree().isPresent(), r.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "one character more is E402 at the name line, naming the longest pod name and the longest name that fits")
  void oneTooLong() {
    String name = "j".repeat(41);
    CompileResult r = compile(name, 11);
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.NAME_TOO_LONG);
    assertEquals(1, d.size(), r.diagnostics().toString());
    String runName = d.get(0).message().replaceAll(".*gives JobSet \"([^\"]+)\".*", "$1");
    assertTrue(runName.startsWith(name + "-") && runName.length() == 48, runName);
    assertEquals(
        "`name` is too long for this job: \""
            + name
            + "\" (41 characters) gives JobSet \""
            + runName
            + "\", and its longest pod name `"
            + runName
            + "-node-0-10-xxxxx` exceeds 63 characters",
        d.get(0).message());
    assertEquals("/name", d.get(0).pointer());
    assertEquals(1, d.get(0).location().line());
    assertEquals(
        "the longest name that fits 11 node(s) of runtime torch is 40 characters, e.g. `name: "
            + "j".repeat(40)
            + "` (JobSet limit: len(jobset)+len(rjob)+digits(replicas-1)+digits(completions-1) <= 54, jobset#408)",
        d.get(0).hint());
    assertFalse(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "a name that is no RFC 1035 label is E401 with a sanitised spelling that fits the budget")
  void notALabel() {
    CompileResult r = compile("My.Job", 2);
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.INVALID_NAME);
    assertEquals(1, d.size(), r.diagnostics().toString());
    WORDING.approve(d.get(0).message());
    assertEquals("/name", d.get(0).pointer());
    WORDING.approve(d.get(0).hint());
  }
}
