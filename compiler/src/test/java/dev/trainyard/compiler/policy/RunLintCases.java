package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the {@code run} lint tests share: a train.yaml around a run line, the lint's diagnostics of
 * a real compile, and the check that a hint's command is itself accepted (valid bash, and a compile
 * of the hinted command, with the hint's {@code mpi} field, has no diagnostic at all).
 */
final class RunLintCases {
  /**
   * The codes of the {@code run} lint; W410 (plain SSH Secret of MPI runs under the embedded
   * platform) is not one.
   */
  static final List<DiagnosticCode> RUN_CODES =
      List.of(
          DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
          DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS,
          DiagnosticCode.POD_VARIABLE_IN_FLAG,
          DiagnosticCode.UNDEFINED_VARIABLE_IN_FLAG,
          DiagnosticCode.UNDEFINED_VARIABLE_IN_TOPOLOGY,
          DiagnosticCode.NODES_TRAIN_ALONE,
          DiagnosticCode.NESTED_LAUNCHER,
          DiagnosticCode.INVALID_MPI_SETTINGS,
          DiagnosticCode.NO_PYTHON_IN_IMAGE,
          DiagnosticCode.SHELL_SYNTAX);

  private static final Pattern HINT_RUN = Pattern.compile("`run: (.*)`");
  private static final Pattern HINT_MPI =
      Pattern.compile("`(mpi: \\{.*?\\}\\})`|`(mpi: \\{[^}]*\\})`");

  private RunLintCases() {}

  /**
   * An image with Python built from the mpi runtime's, pinned by digest: the MPI rows run Python
   * programs, which the mpi runtime's own image lacks (W431). Rows that write {@code mpi@0.6.0-2}
   * get the runtime's image.
   */
  static final String MPI_PYTHON_IMAGE =
      "registry.example/openmpi-python@sha256:" + "ab".repeat(32);

  /**
   * A train.yaml: runtime, nodes, {@code extra} lines (each ending in a newline, may be ""), then
   * run single-quoted (line {@code 3 + extra lines}); for runtime {@code mpi}, {@link
   * #MPI_PYTHON_IMAGE} after it.
   */
  static String yaml(String runtime, int nodes, String extra, String run) {
    return "runtime: "
        + runtime
        + "\nnodes: "
        + nodes
        + "\n"
        + extra
        + "run: '"
        + run.replace("'", "''")
        + "'\n"
        + (runtime.equals("mpi") ? "image: " + MPI_PYTHON_IMAGE + "\n" : "");
  }

  static String yaml(String runtime, int nodes, String run) {
    return yaml(runtime, nodes, "", run);
  }

  /**
   * A CSV cell of extra train.yaml lines, {@code \n} written as backslash-n; "" when the cell is
   * empty.
   */
  static String extra(String cell) {
    return cell == null ? "" : cell.replace("\\n", "\n");
  }

  /** The run-lint diagnostics of compiling {@code yaml} in a fresh project at {@code where}. */
  static List<Diagnostic> lint(Path where, String yaml) {
    CompileResult result = TrainProject.create(where, yaml).compile();
    return result.diagnostics().stream().filter(d -> RUN_CODES.contains(d.code())).toList();
  }

  /** The command of a hint's {@code `run: …`}. */
  static Optional<String> hintedRun(Diagnostic d) {
    Matcher m = HINT_RUN.matcher(d.hint());
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  /** The command of a hint's {@code `run: …`}, failing the test when the hint gives none. */
  static String requireHintedRun(Diagnostic d) {
    return hintedRun(d)
        .orElseThrow(() -> new AssertionError("hint has no `run: ...` command: " + d.hint()));
  }

  /**
   * Asserts that the command {@code d}'s hint gives is valid bash and compiles with no diagnostic
   * at all (besides W410), with the same runtime, nodes and {@code extra} lines plus the hint's
   * {@code mpi} field.
   */
  static void assertHintAccepted(Path dir, String runtime, int nodes, String extra, Diagnostic d) {
    String fixed = requireHintedRun(d);
    assertValidBash(fixed);
    Matcher mpi = HINT_MPI.matcher(d.hint());
    String mpiField = mpi.find() ? (mpi.group(1) != null ? mpi.group(1) : mpi.group(2)) + "\n" : "";
    Path again = dir.resolve("fixed-" + Integer.toHexString((fixed + extra).hashCode()));
    CompileResult result =
        TrainProject.create(again, yaml(runtime, nodes, extra, fixed) + mpiField).compile();
    List<Diagnostic> left =
        result.diagnostics().stream()
            .filter(x -> x.code() != DiagnosticCode.PLAIN_SECRET_IN_GIT)
            .toList();
    assertEquals(List.of(), left, "hinted `" + fixed + "` " + mpiField + "for " + d);
    assertTrue(result.tree().isPresent());
  }

  /** {@code bash -n}: the hinted command parses as bash. */
  static void assertValidBash(String command) {
    try {
      Process bash =
          new ProcessBuilder("bash", "-n", "-c", command).redirectErrorStream(true).start();
      String complaint = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(bash.waitFor(10, TimeUnit.SECONDS), "bash -n did not finish");
      assertEquals(0, bash.exitValue(), "hinted `" + command + "` is not valid bash: " + complaint);
    } catch (IOException e) {
      throw new AssertionError("bash could not be started", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
