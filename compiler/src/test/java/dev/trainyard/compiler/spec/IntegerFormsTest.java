package dev.trainyard.compiler.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link IntegerForms}: integers YAML 1.1 and YAML 1.2 read differently are refused (E205). */
class IntegerFormsTest {
  @TempDir Path dir;

  private List<String> e205(String nodes) {
    return TrainProject.create(dir, "run: torchrun train.py\nnodes: " + nodes + "\n")
        .compile()
        .diagnostics()
        .stream()
        .filter(d -> d.code() == DiagnosticCode.INVALID_VALUE)
        .map(d -> d.location() + " " + d.message() + " | " + d.hint())
        .toList();
  }

  @ParameterizedTest(name = "nodes: {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "010|`010` is 8 to YAML 1.1 (Trainyard, Kubernetes) but 10 to YAML 1.2 (editors using"
            + " train.yaml's schema line)|8",
        "0b11|`0b11` is 3 to YAML 1.1 (Trainyard, Kubernetes) but the text \"0b11\" to YAML 1.2"
            + " (editors using train.yaml's schema line)|3",
        "1_0|`1_0` is 10 to YAML 1.1 (Trainyard, Kubernetes) but the text \"1_0\" to YAML 1.2"
            + " (editors using train.yaml's schema line)|10",
      })
  @DisplayName("a leading zero, 0b or an underscore: E205 at the value, both readings named")
  void refused(String written, String message, String decimal) {
    assertEquals(
        List.of("train.yaml:2:8 " + message + " | write it in decimal: `nodes: " + decimal + "`"),
        e205(written));
  }

  @Test
  @DisplayName(
      "decimal, 0x hexadecimal and a leading zero that keeps the value (02) mean the same to both versions: no E205")
  void accepted() {
    assertEquals(List.of(), e205("2"));
    assertEquals(List.of(), e205("02"));
    assertEquals(List.of(), e205("07"));
    assertEquals(List.of(), e205("0x2"));
    assertEquals(List.of(), e205("+2"));
  }

  @Test
  @DisplayName("what YAML 1.2 reads: the digits without leading zeros (sign kept), else the text")
  void yaml12() {
    assertEquals("10", IntegerForms.yaml12("010"));
    assertEquals("-7", IntegerForms.yaml12("-0007"));
    assertEquals("0", IntegerForms.yaml12("00"));
    assertEquals("the text \"1:30\"", IntegerForms.yaml12("1:30"));
  }

  @Test
  @DisplayName("integers in lists and nested mappings are checked too, each at its own place")
  void nested() {
    List<Diagnostic> found =
        TrainProject.create(
                dir,
                "run: torchrun train.py\ncheckpoint:\n  path: /ckpt\n  recoverOnExitCodes: [1, 011]\n")
            .compile()
            .diagnostics()
            .stream()
            .filter(d -> d.code() == DiagnosticCode.INVALID_VALUE)
            .toList();
    assertEquals(1, found.size(), found.toString());
    assertEquals("/checkpoint/recoverOnExitCodes/1", found.get(0).pointer());
    assertEquals("write it in decimal: 9", found.get(0).hint(), "a list item: the number alone");
  }

  @Test
  @DisplayName("the hint's line names the field as written (a JSON Pointer's ~1 and ~0 undone)")
  void writtenLine() {
    assertEquals("`nodes: 8`", IntegerForms.written("/nodes", "8"));
    assertEquals("`a/b~c: 8`", IntegerForms.written("/x/a~1b~0c", "8"));
    assertEquals("8", IntegerForms.written("/list/12", "8"));
  }

  @Test
  @DisplayName(
      "values taken as written (env, mpi.mca, resources.cpu) keep their text and are not checked")
  void asWritten() {
    List<Diagnostic> found =
        TrainProject.create(
                dir,
                "run: torchrun train.py\nenv: {MODE: 0755}\nresources: {cpu: 010}\n"
                    + "mpi: {mca: {pml_ob1_x: 010}}\n")
            .compile()
            .diagnostics()
            .stream()
            .filter(d -> d.code() == DiagnosticCode.INVALID_VALUE)
            .toList();
    assertEquals(List.of(), found);
  }
}
