package dev.trainyard.compiler.cases;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Compiles a {@link TrainProject} with an optional platform folder of runtimes (overrides and
 * additions to the built-ins, as a platform team would ship them) and reads the MPI parts of the
 * output: the ConfigMap {@code <run>-mpi} keys and the argv of the launcher's {@code mpirun} line.
 *
 * <pre>
 * Path runtimes = CaseCompile.runtime(dir, new RuntimeText("mpi-root", "mpi", 0, "/root", 0, true));
 * CompileResult r = CaseCompile.compile(project, Optional.of(runtimes));
 * List&lt;String&gt; argv = CaseCompile.mpirunArgv(r);
 * </pre>
 */
final class CaseCompile {
  private CaseCompile() {}

  /**
   * Compiles {@code project} (embedded platform) with {@code runtimes} as the platform runtimes
   * folder.
   */
  static CompileResult compile(TrainProject project, Optional<Path> runtimes) {
    return compile(project, Optional.empty(), runtimes);
  }

  /** Compiles with a platform file and a runtimes folder, seeded keys and a fixed clock. */
  static CompileResult compile(
      TrainProject project, Optional<Path> platform, Optional<Path> runtimes) {
    CompileRequest request =
        CompileRequest.builder(project.trainYaml())
            .displayPath("train.yaml")
            .platformFile(platform)
            .runtimesDir(runtimes)
            .build();
    Clock clock = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    return new Compiler(new SshSecretProvider(TrainProject.seeded(), clock)).compile(request);
  }

  /**
   * Writes {@code <dir>/runtimes/<name>/1.0.0-1/runtime.yaml} from {@code text}; returns the
   * runtimes folder.
   */
  static Path runtime(Path dir, RuntimeText text) {
    try {
      Path folder = dir.resolve("runtimes").resolve(text.name()).resolve("1.0.0-1");
      Files.createDirectories(folder);
      Files.writeString(folder.resolve("runtime.yaml"), text.yaml(), StandardCharsets.UTF_8);
      return dir.resolve("runtimes");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A platform runtime definition.
   *
   * @param name runtime name (a label)
   * @param framework torch, mpi, deepspeed, mlx, jax or plain
   * @param uid the uid pods run as (0 = root)
   * @param home that user's home folder
   * @param gpus default GPUs per node
   * @param mpi whether to add Open MPI settings (ssh port 2222, a separate launcher)
   */
  record RuntimeText(String name, String framework, long uid, String home, int gpus, boolean mpi) {
    String yaml() {
      return "apiVersion: trainyard.dev/v1\nkind: Runtime\n"
          + "name: "
          + name
          + "\nversion: 1.0.0-1\n"
          + "description: test runtime "
          + name
          + "\n"
          + "framework: "
          + framework
          + "\n"
          + "image: docker.io/library/test-"
          + name
          + ":1\n"
          + "resources:\n  gpus: "
          + gpus
          + "\n  cpu: \"4\"\n  memory: 16Gi\n  launcherCpu: \"1\"\n  launcherMemory: 1Gi\n"
          + "user:\n  uid: "
          + uid
          + "\n  home: "
          + home
          + "\n"
          + (mpi
              ? "mpi:\n  implementation: OpenMPI\n  sshPort: 2222\n  launcherAsNode: false\n"
              : "");
    }
  }

  /** A file next to the project holding {@code text} (e.g. a platform.yaml). */
  static Path file(Path dir, String name, String text) {
    try {
      Path file = dir.resolve(name);
      Files.writeString(file, text, StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The value of key {@code key} of the run's ConfigMap {@code <run>-mpi}. */
  static String mpiFile(CompileResult result, String key) {
    JsonNode cm = TrainProject.object(result, "ConfigMap");
    JsonNode value = cm.path("data").path(key);
    if (!value.isTextual()) {
      throw new AssertionError(
          "ConfigMap " + cm.path("metadata").path("name").asText() + " has no key " + key);
    }
    return value.asText();
  }

  /**
   * The run's launch.sh written to {@code dir}, pointed at a copy of its hostfile in {@code dir},
   * so real bash can run it outside a pod.
   */
  static Path launchScript(CompileResult result, Path dir) throws IOException {
    Path hostfile = Files.writeString(dir.resolve("hostfile"), mpiFile(result, "hostfile"));
    return Files.writeString(
        dir.resolve("launch.sh"),
        mpiFile(result, "launch.sh").replace("/etc/mpi/hostfile", hostfile.toString()));
  }

  /** The hostfile's non-empty lines. */
  static List<String> hostfileLines(CompileResult result) {
    return mpiFile(result, "hostfile").lines().filter(l -> !l.isBlank()).toList();
  }

  /**
   * The argv of the {@code mpirun ... &} line of launch.sh, split on spaces, up to the program
   * ({@code /bin/bash}); Trainyard only writes its own tokens there, never user text.
   */
  static List<String> mpirunArgv(CompileResult result) {
    String line =
        mpiFile(result, "launch.sh")
            .lines()
            .filter(l -> l.startsWith("mpirun "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("launch.sh has no `mpirun` line"));
    List<String> words = new ArrayList<>(Arrays.asList(line.split(" ")));
    int program = words.indexOf("/bin/bash");
    return List.copyOf(program < 0 ? words : words.subList(0, program));
  }

  /** The value following {@code flag} in {@code argv}, or "" when absent. */
  static String flagValue(List<String> argv, String flag) {
    int i = argv.indexOf(flag);
    return i < 0 || i + 1 >= argv.size() ? "" : argv.get(i + 1);
  }

  /** Total pods of the JobSet: the sum over replicated jobs of {@code replicas × parallelism}. */
  static int podCount(JsonNode jobSet) {
    int pods = 0;
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      pods +=
          rj.path("replicas").asInt(1)
              * rj.path("template").path("spec").path("parallelism").asInt(1);
    }
    return pods;
  }

  /** Names of the replicated jobs, in JobSet order. */
  static List<String> replicatedJobNames(JsonNode jobSet) {
    List<String> names = new ArrayList<>();
    jobSet.path("spec").path("replicatedJobs").forEach(rj -> names.add(rj.path("name").asText()));
    return names;
  }

  /** The replicated job named {@code name}. */
  static JsonNode replicatedJob(JsonNode jobSet, String name) {
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      if (rj.path("name").asText().equals(name)) {
        return rj;
      }
    }
    throw new AssertionError("no replicated job " + name + " in " + replicatedJobNames(jobSet));
  }

  /** Env var names of the first container of {@code rjob}. */
  static List<String> envNames(JsonNode jobSet, String rjob) {
    List<String> names = new ArrayList<>();
    TrainProject.podSpec(jobSet, rjob)
        .path("containers")
        .path(0)
        .path("env")
        .forEach(e -> names.add(e.path("name").asText()));
    return names;
  }
}
