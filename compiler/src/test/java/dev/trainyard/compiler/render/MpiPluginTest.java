package dev.trainyard.compiler.render;

import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MPI runs from platform runtimes: the SSH key's file modes by uid, the launcher env of each MPI
 * implementation, the node job's sshd port and readiness probe, and the launcher's place in the
 * JobSet.
 */
class MpiPluginTest {
  @TempDir Path dir;

  /**
   * Compiles an MPI run of 2 nodes with runtime {@code r} (uid, implementation, launcherAsNode)
   * from a platform folder.
   */
  private CompileResult compile(long uid, String implementation, boolean launcherAsNode)
      throws IOException {
    Path folder = dir.resolve("runtimes/r/1.0.0-1");
    Files.createDirectories(folder);
    Files.writeString(
        folder.resolve("runtime.yaml"),
        "apiVersion: trainyard.dev/v1\nkind: Runtime\nname: r\nversion: 1.0.0-1\n"
            + "framework: mpi\nimage: docker.io/library/test-mpi:1\n"
            + "user: {uid: "
            + uid
            + ", home: "
            + (uid == 0 ? "/root" : "/home/u")
            + "}\n"
            + "mpi: {implementation: "
            + implementation
            + ", sshPort: 2022, launcherAsNode: "
            + launcherAsNode
            + "}\n");
    TrainProject p =
        TrainProject.create(
            dir.resolve("repo"),
            "name: mp\nruntime: r\nnodes: 2\nprocsPerNode: 3\nrun: python t.py\n");
    return CompileCall.of(p.trainYaml()).runtimes(dir.resolve("runtimes")).compile();
  }

  private static JsonNode volume(JsonNode pod, String name) {
    for (JsonNode v : pod.path("volumes")) {
      if (v.path("name").asText().equals(name)) {
        return v;
      }
    }
    throw new AssertionError("no volume " + name + " in " + pod.path("volumes"));
  }

  private static String run(CompileResult r) {
    return object(r, "JobSet").path("metadata").path("name").asText();
  }

  @Test
  @DisplayName(
      "root pods read the private key with mode 0600, both key files and authorized_keys come from the run's Secret")
  void rootKeyModes() throws IOException {
    CompileResult r = compile(0, "OpenMPI", false);
    JsonNode ssh = volume(podSpec(object(r, "JobSet"), "node"), "ssh").path("secret");
    assertEquals(run(r) + "-ssh", ssh.path("secretName").asText());
    assertEquals(0444, ssh.path("defaultMode").asInt());
    assertEquals(
        "[{\"key\":\"ssh-privatekey\",\"mode\":384,\"path\":\"id_trainyard\"},"
            + "{\"key\":\"ssh-publickey\",\"mode\":420,\"path\":\"id_trainyard.pub\"},"
            + "{\"key\":\"ssh-publickey\",\"mode\":420,\"path\":\"authorized_keys\"}]",
        ssh.path("items").toString());
  }

  @Test
  @DisplayName(
      "non-root pods read the private key with mode 0640 (group-readable through fsGroup); the same on the launcher")
  void nonRootKeyModes() throws IOException {
    CompileResult r = compile(1000, "OpenMPI", false);
    for (String rjob : new String[] {"node", "launcher"}) {
      JsonNode pod = podSpec(object(r, "JobSet"), rjob);
      assertEquals(
          0640, volume(pod, "ssh").path("secret").path("items").path(0).path("mode").asInt(), rjob);
      assertEquals(
          "{\"configMap\":{\"defaultMode\":292,\"name\":\"" + run(r) + "-mpi\"},\"name\":\"mpi\"}",
          volume(pod, "mpi").toString());
      String mounts = pod.path("containers").path(0).path("volumeMounts").toString();
      assertTrue(
          mounts.contains("{\"mountPath\":\"/etc/mpi\",\"name\":\"mpi\",\"readOnly\":true}"),
          mounts);
      assertTrue(
          mounts.contains("{\"mountPath\":\"/home/u/.ssh\",\"name\":\"ssh\",\"readOnly\":true}"),
          mounts);
    }
  }

  @Test
  @DisplayName(
      "node pods expose sshd on the runtime's port with a TCP readiness probe; the launcher waits for them to be Ready")
  void nodeSshdAndOrder() throws IOException {
    CompileResult r = compile(1000, "OpenMPI", false);
    JsonNode node = podSpec(object(r, "JobSet"), "node").path("containers").path(0);
    assertEquals("[{\"containerPort\":2022,\"name\":\"ssh\"}]", node.path("ports").toString());
    assertEquals(
        "{\"failureThreshold\":3,\"periodSeconds\":2,\"tcpSocket\":{\"port\":2022}}",
        node.path("readinessProbe").toString());
    assertEquals("[\"/bin/bash\",\"/etc/mpi/node.sh\"]", node.path("command").toString());
    JsonNode jobs = object(r, "JobSet").path("spec").path("replicatedJobs");
    assertEquals("node", jobs.path(0).path("name").asText());
    assertEquals("launcher", jobs.path(1).path("name").asText());
    assertEquals(
        "[{\"name\":\"node\",\"status\":\"Ready\"}]", jobs.path(1).path("dependsOn").toString());
    assertEquals(
        "[\"launcher\"]",
        object(r, "JobSet")
            .path("spec")
            .path("successPolicy")
            .path("targetReplicatedJobs")
            .toString());
    JsonNode launcher = podSpec(object(r, "JobSet"), "launcher").path("containers").path(0);
    assertEquals("[\"/bin/bash\",\"/etc/mpi/launch.sh\"]", launcher.path("command").toString());
  }

  @Test
  @DisplayName(
      "a separate launcher carries runs-ranks \"false\"; node pods and a launcher that trains carry none")
  void runsRanksAnnotation() throws IOException {
    CompileResult r = compile(1000, "OpenMPI", false);
    JsonNode launcherMeta =
        object(r, "JobSet")
            .path("spec")
            .path("replicatedJobs")
            .path(1)
            .path("template")
            .path("spec")
            .path("template")
            .path("metadata");
    assertEquals("false", launcherMeta.path("annotations").path(Provenance.RUNS_RANKS).asText());
    JsonNode nodeMeta =
        object(r, "JobSet")
            .path("spec")
            .path("replicatedJobs")
            .path(0)
            .path("template")
            .path("spec")
            .path("template")
            .path("metadata");
    assertTrue(
        nodeMeta.path("annotations").path(Provenance.RUNS_RANKS).isMissingNode(),
        nodeMeta.toString());
  }

  @Test
  @DisplayName(
      "Open MPI launchers get the ORTE and PRTE hostfile, slots (procsPerNode) and ssh args; PRTE keeps FQDNs off")
  void openMpiEnv() throws IOException {
    JsonNode js = object(compile(1000, "OpenMPI", false), "JobSet");
    assertEquals(
        MpiFiles.HOSTFILE,
        env(js, "launcher", "OMPI_MCA_orte_default_hostfile").path("value").asText());
    assertEquals(
        "true", env(js, "launcher", "OMPI_MCA_orte_keep_fqdn_hostnames").path("value").asText());
    assertEquals(
        "3", env(js, "launcher", "OMPI_MCA_orte_set_default_slots").path("value").asText());
    assertEquals(
        MpiFiles.HOSTFILE,
        env(js, "launcher", "PRTE_MCA_prte_default_hostfile").path("value").asText());
    assertEquals(
        "false", env(js, "launcher", "PRTE_MCA_prte_keep_fqdn_hostnames").path("value").asText());
    assertEquals(
        "3", env(js, "launcher", "PRTE_MCA_prte_set_default_slots").path("value").asText());
    String ssh = env(js, "launcher", "OMPI_MCA_plm_rsh_args").path("value").asText();
    assertTrue(ssh.startsWith("-p 2022 -i /home/u/.ssh/id_trainyard "), ssh);
    assertEquals(ssh, env(js, "launcher", "PRTE_MCA_plm_ssh_args").path("value").asText());
    assertTrue(
        env(js, "node", "OMPI_MCA_orte_default_hostfile").isMissingNode(),
        "node pods get no launcher env");
  }

  @Test
  @DisplayName(
      "Intel MPI launchers get the Hydra hostfile, bootstrap ssh args and I_MPI_PERHOST = procsPerNode")
  void intelEnv() throws IOException {
    JsonNode js = object(compile(1000, "Intel", false), "JobSet");
    assertEquals(
        MpiFiles.HOSTFILE, env(js, "launcher", "I_MPI_HYDRA_HOST_FILE").path("value").asText());
    assertTrue(
        env(js, "launcher", "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS")
            .path("value")
            .asText()
            .startsWith("-p 2022 "));
    assertEquals("3", env(js, "launcher", "I_MPI_PERHOST").path("value").asText());
    assertTrue(
        env(js, "launcher", "OMPI_MCA_orte_default_hostfile").isMissingNode(),
        "no Open MPI names for Intel MPI");
  }

  @Test
  @DisplayName("MPICH launchers get HYDRA_HOST_FILE and HYDRA_LAUNCH_EXTRA_ARGS")
  void mpichEnv() throws IOException {
    JsonNode js = object(compile(1000, "MPICH", false), "JobSet");
    assertEquals(MpiFiles.HOSTFILE, env(js, "launcher", "HYDRA_HOST_FILE").path("value").asText());
    assertTrue(
        env(js, "launcher", "HYDRA_LAUNCH_EXTRA_ARGS")
            .path("value")
            .asText()
            .startsWith("-p 2022 "));
    assertTrue(
        env(js, "launcher", "I_MPI_HYDRA_HOST_FILE").isMissingNode(), "no Intel names for MPICH");
  }

  @Test
  @DisplayName(
      "both MPI pods share the neutral env: NNODES, GPUS_PER_NODE, MASTER_ADDR (first host), MASTER_PORT, HOSTFILE")
  void sharedEnv() throws IOException {
    CompileResult r = compile(1000, "OpenMPI", false);
    JsonNode js = object(r, "JobSet");
    for (String rjob : new String[] {"node", "launcher"}) {
      assertEquals("2", env(js, rjob, "NNODES").path("value").asText(), rjob);
      assertEquals("0", env(js, rjob, "GPUS_PER_NODE").path("value").asText(), rjob);
      assertEquals(
          Hostnames.first(run(r), "node"),
          env(js, rjob, "MASTER_ADDR").path("value").asText(),
          rjob);
      assertEquals("29500", env(js, rjob, "MASTER_PORT").path("value").asText(), rjob);
      assertEquals(MpiFiles.HOSTFILE, env(js, rjob, "HOSTFILE").path("value").asText(), rjob);
      assertEquals("python t.py", env(js, rjob, "TRAINYARD_RUN").path("value").asText(), rjob);
      assertTrue(env(js, rjob, "TRAINYARD_SETUP").isMissingNode(), "no setup, no TRAINYARD_SETUP");
    }
  }
}
