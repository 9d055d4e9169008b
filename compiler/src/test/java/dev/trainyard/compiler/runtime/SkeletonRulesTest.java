package dev.trainyard.compiler.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runtime's skeleton may only hold the replicated jobs its framework renders; anything else is
 * refused at its line.
 */
class SkeletonRulesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  static final Path ROOT =
      Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
  @TempDir Path temp;

  private CompileResult compile(String runtime, String folder, String trainYaml) throws Exception {
    Path file = temp.resolve("runtimes").resolve(folder).resolve("runtime.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, runtime);
    TrainProject p = TrainProject.create(temp, trainYaml);
    return new Compiler(SshSecretProvider.system())
        .compile(
            CompileRequest.builder(p.trainYaml())
                .displayPath("train.yaml")
                .runtimesDir(temp.resolve("runtimes"))
                .build());
  }

  private static String torch(String extraJobs) throws Exception {
    String text = Files.readString(ROOT.resolve("runtimes/torch/2.13.0-2/runtime.yaml"));
    return text.replace("version: 2.13.0-2", "version: 9.0.0-1")
        .replace("    replicatedJobs:\n", "    replicatedJobs:\n" + extraJobs);
  }

  @Test
  @DisplayName(
      "a torch runtime with an `evaluator` replicated job is E303 at that job's name line, naming what torch renders")
  void extraJobRefused() throws Exception {
    String runtime = torch("      - name: evaluator\n        template: {spec: {parallelism: 1}}\n");
    CompileResult r =
        compile(runtime, "torch/9.0.0-1", "run: torchrun t.py\nruntime: torch@9.0.0-1\n");
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.INVALID_RUNTIME);
    assertEquals(1, d.size(), r.diagnostics().toString());
    int line = runtime.lines().toList().indexOf("      - name: evaluator") + 1;
    assertEquals(line, d.get(0).location().line());
    assertTrue(d.get(0).location().file().endsWith("runtime.yaml"), d.get(0).location().toString());
    WORDING.approve(d.get(0).message());
    assertFalse(r.tree().isPresent());
  }

  @Test
  @DisplayName(
      "an MPI runtime may shape node and launcher; a worker, a nameless job or a job named twice is refused")
  void mpiNamesAndDuplicates() throws Exception {
    String mpi =
        Files.readString(ROOT.resolve("runtimes/mpi/0.6.0-2/runtime.yaml"))
            .replace("version: 0.6.0-2", "version: 9.0.0-1");
    assertFalse(compile(mpi, "mpi/9.0.0-1", "run: ./a.out\nruntime: mpi@9.0.0-1\n").hasErrors());
    String worker =
        mpi.replace(
            "    replicatedJobs:\n",
            "    replicatedJobs:\n      - name: worker\n      - {template: {}}\n      - name: launcher\n");
    CompileResult r = compile(worker, "mpi/9.0.0-1", "run: ./a.out\nruntime: mpi@9.0.0-1\n");
    List<String> messages =
        TrainProject.withCode(r, DiagnosticCode.INVALID_RUNTIME).stream()
            .map(Diagnostic::message)
            .toList();
    assertEquals(
        List.of(
            "replicated job `worker` is not one the mpi framework renders (node, launcher), so it would be dropped from every run",
            "a replicated job without a `name` is not one the mpi framework renders (node, launcher), so it would be dropped from every run",
            "replicated job `launcher` appears twice in the skeleton; only the first would be used"),
        messages);
  }
}
