package dev.trainyard.compiler.cases;

import static dev.trainyard.compiler.cases.CaseCompile.mpirunArgv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Defect 2 of issue #10: sshd starts the ranks it launches with a fresh environment, so a rank on a
 * node pod sees only what mpirun exports by name (trainer#3427; reproduced with OpenSSH 9.2 and
 * Open MPI 4.1.4 in the manifest review). launch.sh must export PATH, the user's env, every env
 * name of the runtime's template, and, whenever set in the launcher's container, {@code
 * LD_LIBRARY_PATH} and every {@code NCCL_*} name. The run-time part is checked by running the
 * emitted launch.sh with real bash and a stand-in mpirun that records its argv; ClusterMpiIT checks
 * it with the real mpirun over ssh.
 */
class MpiEnvForwardingTest {
  @TempDir Path dir;

  private static final String TEMPLATE_ENV_RUNTIME =
      "apiVersion: trainyard.dev/v1\nkind: Runtime\n"
          + "name: mpienv\nversion: 1.0.0-1\ndescription: test runtime with template env\nframework: mpi\n"
          + "image: docker.io/library/test-mpienv:1\n"
          + "resources:\n  gpus: 0\n  cpu: \"2\"\n  memory: 4Gi\n  launcherCpu: \"1\"\n  launcherMemory: 1Gi\n"
          + "user:\n  uid: 1000\n  home: /home/mpiuser\n"
          + "mpi:\n  implementation: OpenMPI\n  sshPort: 2222\n  launcherAsNode: false\n"
          + "jobset:\n  spec:\n    replicatedJobs:\n"
          + "      - name: node\n        template:\n          spec:\n            template:\n              spec:\n"
          + "                containers:\n                  - name: node\n                    env:\n"
          + "                      - {name: OMP_NUM_THREADS, value: \"1\"}\n"
          + "                      - {name: NCCL_SOCKET_IFNAME, value: eth0}\n"
          + "      - name: launcher\n        template:\n          spec:\n            template:\n              spec:\n"
          + "                containers:\n                  - name: node\n                    env:\n"
          + "                      - {name: UCX_TLS, value: tcp}\n";

  private CompileResult compileWithTemplateEnv() throws IOException {
    return compileWithTemplateEnv("OpenMPI");
  }

  private CompileResult compileWithTemplateEnv(String implementation) throws IOException {
    Path runtimes = dir.resolve("runtimes/mpienv/1.0.0-1");
    Files.createDirectories(runtimes);
    Files.writeString(
        runtimes.resolve("runtime.yaml"),
        TEMPLATE_ENV_RUNTIME.replace(
            "implementation: OpenMPI", "implementation: " + implementation));
    TrainProject project =
        TrainProject.create(
            dir.resolve("repo"),
            "runtime: mpienv\nnodes: 2\nrun: python train.py\nenv:\n  HF_MODEL: t5-small\n");
    return CaseCompile.compile(project, Optional.of(dir.resolve("runtimes")));
  }

  private static boolean forwards(List<String> argv, String name) {
    for (int i = 0; i + 1 < argv.size(); i++) {
      if (argv.get(i).equals("-x") && argv.get(i + 1).equals(name)) {
        return true;
      }
    }
    return false;
  }

  @Test
  @DisplayName(
      "mpirun exports PATH, the user's env and every env name the runtime template sets on any of its containers")
  void templateAndUserNamesAreExported() throws IOException {
    CompileResult r = compileWithTemplateEnv();
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    List<String> argv = mpirunArgv(r);
    for (String name :
        List.of("PATH", "HF_MODEL", "OMP_NUM_THREADS", "UCX_TLS", "NNODES", "MASTER_ADDR")) {
      assertTrue(forwards(argv, name), "mpirun does not export " + name + ": " + argv);
    }
    assertEquals("PATH", argv.get(argv.indexOf("-x") + 1), "PATH is exported first: " + argv);
    assertFalse(
        argv.stream().anyMatch(w -> w.startsWith("TRAINYARD_")),
        "Trainyard's own script variables are not exported: " + argv);
    assertFalse(
        forwards(argv, "NCCL_SOCKET_IFNAME"),
        "NCCL_* are exported at run time, when set, not by a fixed -x: " + argv);
  }

  @Test
  @DisplayName(
      "launch.sh run by bash exports LD_LIBRARY_PATH and every NCCL_* name set in the launcher's environment, and none that is unset")
  void setLibraryPathAndNcclNamesAreExportedAtRunTime() throws IOException {
    CompileResult r = compileWithTemplateEnv();
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "LD_LIBRARY_PATH",
                "/usr/local/nvidia/lib64",
                "NCCL_SOCKET_IFNAME",
                "eth0",
                "NCCL_IB_HCA",
                "mlx5_0",
                "NCCLX_NOT_NCCL",
                "1"));
    List<String> argv = runLaunchScript(r, env);
    for (String name :
        List.of("LD_LIBRARY_PATH", "NCCL_SOCKET_IFNAME", "NCCL_IB_HCA", "PATH", "HF_MODEL")) {
      assertTrue(
          forwards(argv, name), "the real mpirun call does not export " + name + ": " + argv);
    }
    assertFalse(forwards(argv, "NCCLX_NOT_NCCL"), "only the NCCL_ prefix is exported: " + argv);
    assertEquals(
        List.of("/bin/bash", "-eo", "pipefail", "-c", "true"),
        argv.subList(argv.size() - 5, argv.size()));

    List<String> bare = runLaunchScript(r, Map.of());
    assertFalse(
        forwards(bare, "LD_LIBRARY_PATH"),
        "an unset LD_LIBRARY_PATH is not named (Open MPI would warn): " + bare);
    assertFalse(bare.stream().anyMatch(w -> w.startsWith("NCCL_")), bare.toString());
    assertTrue(forwards(bare, "HF_MODEL"), bare.toString());
  }

  @Test
  @DisplayName(
      "MPICH (Hydra): launch.sh passes one -genvlist with PATH, the user's and template names, then the set LD_LIBRARY_PATH and NCCL_* names")
  void hydraGetsOneNameList() throws IOException {
    CompileResult r = compileWithTemplateEnv("MPICH");
    assertFalse(r.hasErrors(), r.diagnostics().toString());
    List<String> argv =
        runLaunchScript(
            r, Map.of("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64", "NCCL_IB_HCA", "mlx5_0"));
    int flag = argv.indexOf("-genvlist");
    assertTrue(flag > 0 && !argv.contains("-x"), "Hydra takes -genvlist, not -x: " + argv);
    List<String> names = Arrays.asList(argv.get(flag + 1).split(","));
    assertEquals("PATH", names.get(0), argv.toString());
    assertTrue(
        names.containsAll(
            List.of("HF_MODEL", "OMP_NUM_THREADS", "UCX_TLS", "LD_LIBRARY_PATH", "NCCL_IB_HCA")),
        names.toString());
    assertEquals(
        List.of("LD_LIBRARY_PATH", "NCCL_IB_HCA"),
        names.subList(names.size() - 2, names.size()).stream().sorted().toList(),
        "the run-time names come last: " + names);

    List<String> bare = runLaunchScript(r, Map.of());
    String list = bare.get(bare.indexOf("-genvlist") + 1);
    assertFalse(
        list.endsWith(",") || list.contains(",,"),
        "no empty name when nothing is set at run time: " + list);
  }

  /**
   * Runs the emitted launch.sh with bash, every hostfile name resolvable and mpirun recording its
   * argv.
   */
  private List<String> runLaunchScript(CompileResult r, Map<String, String> extraEnv)
      throws IOException {
    ToolRun.require("bash", "bash");
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path args = dir.resolve("mpirun-args");
    executable(bin.resolve("getent"), "#!/bin/bash\nexit 0\n");
    executable(bin.resolve("mpirun"), "#!/bin/bash\nprintf '%s\\n' \"$@\" > " + args + "\n");
    Path hostfile = Files.writeString(dir.resolve("hostfile"), CaseCompile.mpiFile(r, "hostfile"));
    Path script =
        Files.writeString(
            dir.resolve("launch.sh"),
            CaseCompile.mpiFile(r, "launch.sh").replace("/etc/mpi/hostfile", hostfile.toString()));
    Map<String, String> env = new HashMap<>(extraEnv);
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("TRAINYARD_RUN", "true");
    // The test JVM's own LD_LIBRARY_PATH, if any, is dropped unless the case sets one.
    List<String> argv =
        extraEnv.containsKey("LD_LIBRARY_PATH")
            ? List.of("bash", script.toString())
            : List.of("env", "-u", "LD_LIBRARY_PATH", "bash", script.toString());
    ToolRun run = ToolRun.run(argv, dir, env);
    assertEquals(0, run.exitCode(), run.output());
    return Arrays.asList(Files.readString(args).split("\n"));
  }

  private static void executable(Path file, String text) throws IOException {
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
