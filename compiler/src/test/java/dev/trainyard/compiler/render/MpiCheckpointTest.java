package dev.trainyard.compiler.render;

import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.resolve.ResolvedCheckpoint;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code checkpoint:} on MPI runtimes: every pod mounts the volume, the launcher finds the
 * checkpoint and passes the contract's variables to the ranks, node pods keep their ranks through
 * SIGTERM ({@link MpiNodeScriptTest} runs that script), and Open MPI's SIGKILL waits for the save.
 */
class MpiCheckpointTest {
  @TempDir Path dir;

  private static final String NAMESPACES =
      "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue: q,"
          + " checkpoints: {size: 100Gi, accessMode: ReadWriteMany}}]";

  private CompileResult compile(String trainYaml) {
    return TrainProject.create(dir.resolve("p"), trainYaml)
        .withPlatform(PlatformYaml.base().namespaces(NAMESPACES).text())
        .compile();
  }

  private static String configMap(CompileResult r, String key) {
    return TrainProject.tree(r).files().entrySet().stream()
        .filter(e -> e.getKey().contains("/configmap-"))
        .map(e -> TrainProject.parse("cm", e.getValue()).path("data").path(key).asText())
        .findFirst()
        .orElseThrow();
  }

  private static boolean mountsCheckpoint(JsonNode pod) {
    return pod.path("containers")
        .path(0)
        .path("volumeMounts")
        .toString()
        .contains("{\"mountPath\":\"/ck\",\"name\":\"checkpoint\"}");
  }

  @Test
  @DisplayName(
      "runtime mpi: launcher and node pods both mount the volume, get the contract's env and saveSeconds + 5 of grace; the launcher sets Open MPI's sigkill timeout to saveSeconds")
  void podsOfAnMpiRun() {
    CompileResult r =
        compile(
            "runtime: mpi\nrun: ./heat\nnodes: 2\ncheckpoint: {path: /ck, saveSeconds: 40, keep: 4}\n");
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    JsonNode js = object(r, "JobSet");
    String runId = js.path("metadata").path("name").asText().replaceFirst(".*-", "");
    for (String rjob : List.of("launcher", "node")) {
      JsonNode pod = podSpec(js, rjob);
      assertTrue(mountsCheckpoint(pod), rjob + ": " + pod.path("containers").path(0));
      assertEquals(45, pod.path("terminationGracePeriodSeconds").asInt(), rjob);
      assertEquals("/ck/" + runId, env(js, rjob, "CHECKPOINT_DIR").path("value").asText(), rjob);
      assertEquals("4", env(js, rjob, "TRAINYARD_CHECKPOINT_KEEP").path("value").asText(), rjob);
      assertFalse(env(js, rjob, "TRAINYARD_ATTEMPT").path("valueFrom").isMissingNode(), rjob);
    }
    for (String name :
        List.of("OMPI_MCA_odls_base_sigkill_timeout", "PRTE_MCA_odls_base_sigkill_timeout")) {
      assertEquals("40", env(js, "launcher", name).path("value").asText(), name);
      assertTrue(env(js, "node", name).isMissingNode(), "node pods run no mpirun: " + name);
    }
  }

  @Test
  @DisplayName("without checkpoint an MPI run keeps Open MPI's own sigkill timeout and exec'd sshd")
  void withoutCheckpoint() {
    CompileResult r = compile("runtime: mpi\nrun: ./heat\nnodes: 2\n");
    JsonNode js = object(r, "JobSet");
    assertTrue(env(js, "launcher", "OMPI_MCA_odls_base_sigkill_timeout").isMissingNode());
    assertTrue(podSpec(js, "node").path("terminationGracePeriodSeconds").isMissingNode());
    assertTrue(
        configMap(r, "node.sh").endsWith("exec /usr/sbin/sshd -De -f /etc/mpi/sshd_config\n"));
    assertFalse(configMap(r, "launch.sh").contains("RESUME_FROM"));
  }

  @Test
  @DisplayName(
      "launch.sh finds the checkpoint before setup and mpirun, and mpirun passes CHECKPOINT_DIR, RESUME_FROM and TRAINYARD_ATTEMPT (not the script's own TRAINYARD_CHECKPOINT_*) to the ranks")
  void launchScript() {
    CompileResult r = compile("runtime: mpi\nrun: ./heat\nnodes: 2\nsetup: make\ncheckpoint: {}\n");
    String launch = configMap(r, "launch.sh");
    int script = launch.indexOf(CheckpointParts.SCRIPT);
    assertTrue(script > 0, launch);
    assertTrue(script < launch.indexOf("set -eo pipefail"), "a failing date -r ends nothing");
    assertTrue(script < launch.indexOf("TRAINYARD_SETUP"), launch);
    String mpirun = launch.lines().filter(l -> l.startsWith("mpirun ")).findFirst().orElseThrow();
    for (String name : List.of("CHECKPOINT_DIR", "RESUME_FROM", "TRAINYARD_ATTEMPT")) {
      assertTrue(mpirun.contains(" -x " + name + " "), mpirun);
    }
    assertFalse(mpirun.contains("TRAINYARD_CHECKPOINT_"), mpirun);
    assertFalse(mpirun.contains("-x TRAINYARD_RUN"), mpirun);
    assertTrue(
        configMap(r, "node.sh")
            .endsWith(
                CheckpointParts.sshdUntilRanksEnd(
                    "/usr/sbin/sshd -De -f /etc/mpi/sshd_config", checkpoint(60))),
        configMap(r, "node.sh"));
  }

  @Test
  @DisplayName(
      "deepspeed (launcher runs ranks) with nodes: 1 is one pod, so ReadWriteOnce serves it; its launcher mounts the volume")
  void launcherAsNode() {
    CompileResult r =
        TrainProject.create(
                dir.resolve("p"), "runtime: deepspeed\nrun: ./heat\ncheckpoint: {path: /ck}\n")
            .withPlatform(
                PlatformYaml.base()
                    .namespaces(NAMESPACES.replace("ReadWriteMany", "ReadWriteOnce"))
                    .text())
            .compile();
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    JsonNode js = object(r, "JobSet");
    assertEquals(1, js.path("spec").path("replicatedJobs").size(), "one pod, no node job");
    assertTrue(mountsCheckpoint(podSpec(js, "launcher")));
  }

  @Test
  @DisplayName(
      "Intel MPI: the contract's names reach the ranks through -genvlist; no Open MPI timeout names")
  void intelForwards() throws IOException {
    Path folder = dir.resolve("runtimes/r/1.0.0-1");
    Files.createDirectories(folder);
    Files.writeString(
        folder.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: r\nversion: 1.0.0-1\n"
            + "framework: mpi\nimage: docker.io/library/test-mpi:1\nuser: {uid: 1000, home: /home/u}\n"
            + "mpi: {implementation: Intel, sshPort: 2022, launcherAsNode: false}\n");
    TrainProject p =
        TrainProject.create(
            dir.resolve("repo"), "runtime: r\nnodes: 2\nrun: ./heat\ncheckpoint: {}\n");
    CompileResult r =
        CompileCall.of(p.trainYaml())
            .runtimes(dir.resolve("runtimes"))
            .platformText(
                dir.resolve("platform"), PlatformYaml.base().namespaces(NAMESPACES).text())
            .compile();
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    String mpirun =
        configMap(r, "launch.sh")
            .lines()
            .filter(l -> l.startsWith("mpirun "))
            .findFirst()
            .orElseThrow();
    assertTrue(mpirun.contains("-genvlist PATH,CHECKPOINT_DIR,"), mpirun);
    assertTrue(mpirun.contains(",RESUME_FROM,TRAINYARD_ATTEMPT\""), mpirun);
    assertTrue(
        env(object(r, "JobSet"), "launcher", "OMPI_MCA_odls_base_sigkill_timeout").isMissingNode());
  }

  static ResolvedCheckpoint checkpoint(int saveSeconds) {
    return new ResolvedCheckpoint(
        "k",
        "k",
        true,
        Optional.empty(),
        "1Gi",
        "ReadWriteMany",
        "/ck",
        "/ck/r",
        false,
        3,
        saveSeconds,
        List.of(),
        false);
  }
}
