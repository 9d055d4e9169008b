package dev.trainyard.compiler.cases;

import static dev.trainyard.compiler.cases.CaseCompile.flagValue;
import static dev.trainyard.compiler.cases.CaseCompile.hostfileLines;
import static dev.trainyard.compiler.cases.CaseCompile.mpiFile;
import static dev.trainyard.compiler.cases.CaseCompile.mpirunArgv;
import static dev.trainyard.compiler.cases.CaseCompile.podCount;
import static dev.trainyard.compiler.cases.CaseCompile.replicatedJob;
import static dev.trainyard.compiler.cases.CaseCompile.replicatedJobNames;
import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static dev.trainyard.compiler.testing.TrainProject.withCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.cases.CaseCompile.RuntimeText;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The 20 cases of {@code shared/cases/bug-reports.md}: each compiles a real repo with the real
 * compiler and asserts the property the bug report requires on the parsed output (or on the
 * diagnostics), for the case's whole kind (every MPI runtime, both sides of a limit), not just the
 * example.
 */
class BugReportCasesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  static final String COMPLETION_INDEX =
      "metadata.annotations['batch.kubernetes.io/job-completion-index']";
  private static final Pattern SUGGESTED_NAME = Pattern.compile("`name: ([a-z0-9-]+)`");

  @TempDir Path dir;

  static String letters(int n) {
    StringBuilder s = new StringBuilder("a");
    for (int i = 1; i < n; i++) {
      s.append((char) ('a' + i % 26));
    }
    return s.toString();
  }

  static CompileResult compile(Path dir, String yaml) {
    return TrainProject.create(dir, yaml).compile();
  }

  /**
   * JobSet webhook budget (jobset#408): len(js)+len(rjob)+digits(replicas-1)+digits(completions-1)
   * ≤ 54.
   */
  static void assertPodNamesFit(JsonNode jobSet) {
    String js = jobSet.path("metadata").path("name").asText();
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      int replicas = rj.path("replicas").asInt();
      int completions = rj.path("template").path("spec").path("completions").asInt();
      int used =
          js.length()
              + rj.path("name").asText().length()
              + JobLayout.digits(replicas - 1)
              + JobLayout.digits(completions - 1);
      assertTrue(used <= 54, "pod names of " + rj.path("name").asText() + " use " + used + " > 54");
    }
  }

  @Test
  @DisplayName(
      "C01 jobset#408: a 46-character name on 16 torch nodes fails at the `name` line with the limit and the longest name that fits")
  void c01_nameBudgetExceeded() {
    CompileResult r =
        compile(
            dir, "name: " + letters(46) + "\nruntime: torch\nnodes: 16\nrun: torchrun train.py\n");
    List<Diagnostic> d = withCode(r, DiagnosticCode.NAME_TOO_LONG);
    assertTrue(r.tree().isEmpty());
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(1, d.get(0).location().line());
    assertEquals("/name", d.get(0).pointer());
    String text = d.get(0).message() + " " + d.get(0).hint();
    assertTrue(text.contains("54") && text.contains("63"), text);
    WORDING.approve(d.get(0).hint());
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"torch", "mpi", "deepspeed"})
  @DisplayName(
      "C01 jobset#408: at the boundary the longest name fits and every pod name fits; one more character fails naming that length, and the suggested name compiles")
  void c01_nameBudgetBoundary(String runtime) {
    String tail = "\nruntime: " + runtime + "\nnodes: 16\nrun: python train.py\n";
    CompileResult tooLong = compile(dir.resolve("probe"), "name: " + letters(60) + tail);
    Diagnostic d = withCode(tooLong, DiagnosticCode.NAME_TOO_LONG).get(0);
    Matcher m = Pattern.compile("is (\\d+) characters").matcher(d.hint());
    assertTrue(m.find(), d.hint());
    int longest = Integer.parseInt(m.group(1));

    CompileResult fits = compile(dir.resolve("fits"), "name: " + letters(longest) + tail);
    JsonNode jobSet = object(fits, "JobSet");
    assertPodNamesFit(jobSet);
    int slack = 54 - jobSet.path("metadata").path("name").asText().length();
    boolean tight = false;
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      int pods = rj.path("template").path("spec").path("completions").asInt();
      tight |= rj.path("name").asText().length() + 1 + JobLayout.digits(pods - 1) == slack;
    }
    assertTrue(tight, "a name of " + longest + " characters is not the longest that fits");

    CompileResult oneMore = compile(dir.resolve("more"), "name: " + letters(longest + 1) + tail);
    Diagnostic over = withCode(oneMore, DiagnosticCode.NAME_TOO_LONG).get(0);
    assertTrue(oneMore.tree().isEmpty());
    assertEquals(1, over.location().line());
    assertTrue(over.hint().contains("is " + longest + " characters"), over.hint());
    Matcher suggested = SUGGESTED_NAME.matcher(over.hint());
    assertTrue(suggested.find(), over.hint());
    assertEquals(longest, suggested.group(1).length());
    assertPodNamesFit(
        object(compile(dir.resolve("suggested"), "name: " + suggested.group(1) + tail), "JobSet"));
  }

  @Test
  @DisplayName(
      "C01 jobset#408: a long folder name (no `name:`) is shortened to fit the budget instead of failing")
  void c01_nameBudgetDefaultName() {
    TrainProject p =
        TrainProject.create(
            dir, "jobs/" + letters(60), "run: torchrun train.py\nnodes: 16\n", Map.of());
    assertPodNamesFit(object(p.compile(), "JobSet"));
  }

  @ParameterizedTest(name = "name: {0}, runtime {1}, nodes {2}")
  @CsvSource({
    "myjob.1,torch,1",
    "MyJob,torch,1",
    "my_job,mpi,2",
    "my.very.long.dotted.experiment.name.for.t5.small,mpi,16"
  })
  @DisplayName(
      "C02 mpi-operator#733: a name that is not an RFC 1035 label fails at the `name` line, and the hint's spelling compiles (within the name budget too)")
  void c02_nameRfc1035(String name, String runtime, int nodes) {
    String tail = "\nruntime: " + runtime + "\nnodes: " + nodes + "\nrun: python train.py\n";
    CompileResult r = compile(dir.resolve("bad"), "name: " + name + tail);
    assertTrue(r.tree().isEmpty());
    Diagnostic d = r.diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow();
    assertEquals(1, d.location().line(), d.toString());
    assertEquals("/name", d.pointer());
    assertTrue(d.message().contains(name), d.message());
    Matcher suggested = SUGGESTED_NAME.matcher(d.hint());
    assertTrue(suggested.find(), "hint gives no valid spelling: " + d.hint());
    JsonNode jobSet =
        object(compile(dir.resolve("good"), "name: " + suggested.group(1) + tail), "JobSet");
    assertTrue(jobSet.path("metadata").path("name").asText().startsWith(suggested.group(1) + "-"));
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"deepspeed", "mpi", "mlx"})
  @DisplayName(
      "C03 trainer#4028, mpi-operator#842: mpirun gets an explicit --hostfile, and the launcher env has the ORTE and PRTE hostfile names with PRTE keep-FQDN false")
  void c03_explicitHostfile(String runtime) {
    CompileResult r = compile(dir, "runtime: " + runtime + "\nnodes: 3\nrun: python train.py\n");
    List<String> argv = mpirunArgv(r);
    assertEquals("mpirun", argv.get(0));
    assertEquals("/etc/mpi/hostfile", flagValue(argv, "--hostfile"));
    JsonNode jobSet = object(r, "JobSet");
    assertEquals(
        "/etc/mpi/hostfile",
        env(jobSet, "launcher", "OMPI_MCA_orte_default_hostfile").path("value").asText());
    assertEquals(
        "/etc/mpi/hostfile",
        env(jobSet, "launcher", "PRTE_MCA_prte_default_hostfile").path("value").asText());
    assertEquals(
        "false",
        env(jobSet, "launcher", "PRTE_MCA_prte_keep_fqdn_hostnames").path("value").asText());
    JsonNode mount = mountAt(podSpec(jobSet, "launcher"), "/etc/mpi");
    assertEquals(
        TrainProject.object(r, "ConfigMap").path("metadata").path("name").asText(),
        volume(podSpec(jobSet, "launcher"), mount.path("name").asText())
            .path("configMap")
            .path("name")
            .asText());
    assertEquals(3, hostfileLines(r).size());
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"mpi", "deepspeed", "mlx"})
  @DisplayName(
      "C04 trainer#3262: a non-root MPI runtime (uid 1000) mounts the private key 0640 with fsGroup 1000 on every pod")
  void c04_keyModeNonRoot(String runtime) {
    JsonNode jobSet =
        object(
            compile(dir, "runtime: " + runtime + "\nnodes: 2\nrun: python train.py\n"), "JobSet");
    for (String rjob : replicatedJobNames(jobSet)) {
      JsonNode pod = podSpec(jobSet, rjob);
      assertEquals(1000, pod.path("securityContext").path("runAsUser").asInt());
      assertEquals(1000, pod.path("securityContext").path("fsGroup").asInt(), rjob);
      assertEquals(0640, privateKeyMode(pod), rjob);
      assertTrue(mountAt(pod, "/home/mpiuser/.ssh").path("readOnly").asBoolean());
    }
  }

  @Test
  @DisplayName(
      "C04 mpi-operator#429: a root MPI runtime mounts the private key 0600 (ssh refuses a group-readable root key) and mpirun may run as root")
  void c04_keyModeRoot() {
    Path runtimes =
        CaseCompile.runtime(dir, new RuntimeText("mpi-root", "mpi", 0, "/root", 0, true));
    TrainProject p =
        TrainProject.create(
            dir.resolve("repo"), "runtime: mpi-root\nnodes: 2\nrun: python train.py\n");
    CompileResult r = CaseCompile.compile(p, Optional.of(runtimes));
    JsonNode jobSet = object(r, "JobSet");
    for (String rjob : List.of("node", "launcher")) {
      JsonNode pod = podSpec(jobSet, rjob);
      assertEquals(0, pod.path("securityContext").path("runAsUser").asInt());
      assertEquals(0600, privateKeyMode(pod), rjob);
      assertTrue(mountAt(pod, "/root/.ssh").isObject(), rjob);
    }
    assertTrue(mpirunArgv(r).contains("--allow-run-as-root"));
  }

  @Test
  @DisplayName(
      "C05 trainer#2751, #3748: the node job is first with a TCP probe on the sshd port and the launcher dependsOn it Ready")
  void c05_launcherWaitsForNodes() {
    CompileResult r = compile(dir, "runtime: mlx\nnodes: 2\nrun: python train.py\n");
    JsonNode jobSet = object(r, "JobSet");
    assertEquals(List.of("node", "launcher"), replicatedJobNames(jobSet));
    JsonNode node = podSpec(jobSet, "node").path("containers").path(0);
    int sshPort = 0;
    for (JsonNode port : node.path("ports")) {
      if (port.path("name").asText().equals("ssh")) {
        sshPort = port.path("containerPort").asInt();
      }
    }
    assertEquals(2222, sshPort);
    assertEquals(sshPort, node.path("readinessProbe").path("tcpSocket").path("port").asInt());
    assertTrue(mpiFile(r, "sshd_config").lines().anyMatch(l -> l.equals("Port " + 2222)));
    JsonNode dependsOn = replicatedJob(jobSet, "launcher").path("dependsOn");
    assertEquals(1, dependsOn.size());
    assertEquals("node", dependsOn.path(0).path("name").asText());
    assertEquals("Ready", dependsOn.path(0).path("status").asText());
  }

  @ParameterizedTest(name = "runtime {0}, nodes {1}")
  @CsvSource({"deepspeed,1", "mlx,1", "deepspeed,3", "mpi,1", "mpi,3"})
  @DisplayName(
      "C06 trainer#3954: launcher-as-node with nodes 1 makes exactly one pod; every layout has pods = nodes (+1 launcher when it runs no ranks) and one hostfile line per node")
  void c06_podCount(String runtime, int nodes) {
    CompileResult r =
        compile(dir, "runtime: " + runtime + "\nnodes: " + nodes + "\nrun: python train.py\n");
    JsonNode jobSet = object(r, "JobSet");
    boolean launcherIsNode = !runtime.equals("mpi");
    assertEquals(launcherIsNode ? nodes : nodes + 1, podCount(jobSet));
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      assertTrue(
          rj.path("replicas").asInt() >= 1
              && rj.path("template").path("spec").path("parallelism").asInt() >= 1,
          "replicated job " + rj.path("name").asText() + " has zero replicas or parallelism");
    }
    assertEquals(nodes, hostfileLines(r).size());
    int slots = Integer.parseInt(hostfileLines(r).get(0).replaceFirst(".* slots=", ""));
    assertEquals(Integer.toString(nodes * slots), flagValue(mpirunArgv(r), "-np"));
  }

  @Test
  @DisplayName(
      "C06 trainer#3954: deepspeed nodes 1 has no node job at all and the launcher runs the ranks")
  void c06_singlePodDeepspeed() {
    CompileResult r = compile(dir, "runtime: deepspeed\nnodes: 1\nrun: python train.py\n");
    JsonNode jobSet = object(r, "JobSet");
    assertEquals(1, podCount(jobSet));
    assertEquals(List.of("launcher"), replicatedJobNames(jobSet));
    assertEquals(1, hostfileLines(r).size());
    assertTrue(
        hostfileLines(r)
            .get(0)
            .startsWith(jobSet.path("metadata").path("name").asText() + "-launcher-0-0."));
    assertTrue(replicatedJob(jobSet, "launcher").path("dependsOn").isMissingNode());
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"mpi", "deepspeed"})
  @DisplayName(
      "C07 trainer#3427: user env and Secret env are forwarded by mpirun with -x NAME and set on node and launcher containers")
  void c07_envForwarded(String runtime) {
    CompileResult r =
        compile(
            dir,
            "runtime: "
                + runtime
                + "\nnodes: 2\nrun: python train.py\nenv:\n  HF_MODEL: t5-small\n  SEED: 7\n"
                + "secrets:\n  - {name: hf-token, key: token, env: HF_TOKEN}\n");
    List<String> argv = mpirunArgv(r);
    JsonNode jobSet = object(r, "JobSet");
    for (String name : List.of("HF_MODEL", "SEED", "HF_TOKEN")) {
      assertTrue(forwards(argv, name), "mpirun does not forward " + name + ": " + argv);
      for (String rjob : replicatedJobNames(jobSet)) {
        assertFalse(env(jobSet, rjob, name).isMissingNode(), rjob + " lacks " + name);
      }
    }
    assertEquals(
        "t5-small",
        env(jobSet, replicatedJobNames(jobSet).get(0), "HF_MODEL").path("value").asText());
  }

  @Test
  @DisplayName(
      "C08 trainer#4030: an image override goes to launcher and node, and the node command stays the sshd command")
  void c08_imageOverride() {
    CompileResult r =
        compile(
            dir,
            "runtime: mpi\nnodes: 2\nimage: registry.example.com/team/train:1.2\nrun: python train.py\n");
    JsonNode jobSet = object(r, "JobSet");
    for (String rjob : List.of("node", "launcher")) {
      assertEquals(
          "registry.example.com/team/train:1.2",
          podSpec(jobSet, rjob).path("containers").path(0).path("image").asText());
    }
    JsonNode command = podSpec(jobSet, "node").path("containers").path(0).path("command");
    assertEquals("/etc/mpi/node.sh", command.path(command.size() - 1).asText());
    List<String> nodeScript = mpiFile(r, "node.sh").lines().toList();
    assertEquals(
        "exec /usr/sbin/sshd -De -f /etc/mpi/sshd_config", nodeScript.get(nodeScript.size() - 1));
    assertFalse(
        mpiFile(r, "node.sh").contains("TRAINYARD_RUN"),
        "the node script must not run the user's command");
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"mpi", "deepspeed"})
  @DisplayName(
      "C09 mpi-operator#680: with 2 GPUs per node every hostfile line has slots=2 and -np is nodes × 2")
  void c09_slotsFromGpus(String runtime) {
    CompileResult r =
        compile(
            dir,
            "runtime: " + runtime + "\nnodes: 2\nresources:\n  gpus: 2\nrun: python train.py\n");
    List<String> lines = hostfileLines(r);
    assertEquals(2, lines.size());
    lines.forEach(l -> assertTrue(l.matches("[a-z0-9.-]+ slots=2"), l));
    assertEquals("4", flagValue(mpirunArgv(r), "-np"));
  }

  @Test
  @DisplayName(
      "C10 trainer#3974: a runtime default of 4 GPUs with only memory overridden gives PET_NPROC_PER_NODE=4")
  void c10_procsFromMergedResources() {
    Path runtimes =
        CaseCompile.runtime(dir, new RuntimeText("torch-4gpu", "torch", 0, "/root", 4, false));
    TrainProject p =
        TrainProject.create(
            dir.resolve("repo"),
            "runtime: torch-4gpu\nnodes: 2\nresources:\n  memory: 64Gi\nrun: torchrun train.py\n");
    JsonNode jobSet = object(CaseCompile.compile(p, Optional.of(runtimes)), "JobSet");
    assertEquals("4", env(jobSet, "node", "PET_NPROC_PER_NODE").path("value").asText());
    assertEquals("4", env(jobSet, "node", "GPUS_PER_NODE").path("value").asText());
    JsonNode resources = podSpec(jobSet, "node").path("containers").path(0).path("resources");
    assertEquals("4", resources.path("limits").path("nvidia.com/gpu").asText());
    assertEquals("64Gi", resources.path("requests").path("memory").asText());
  }

  @Test
  @DisplayName(
      "C10 trainer#3974: MPI slots and -np also come from the merged resources (runtime default 4 GPUs, memory overridden)")
  void c10_slotsFromMergedResources() {
    Path runtimes =
        CaseCompile.runtime(
            dir, new RuntimeText("mpi-4gpu", "mpi", 1000, "/home/mpiuser", 4, true));
    TrainProject p =
        TrainProject.create(
            dir.resolve("repo"),
            "runtime: mpi-4gpu\nnodes: 2\nresources:\n  memory: 64Gi\nrun: python train.py\n");
    CompileResult r = CaseCompile.compile(p, Optional.of(runtimes));
    hostfileLines(r).forEach(l -> assertTrue(l.endsWith(" slots=4"), l));
    assertEquals("8", flagValue(mpirunArgv(r), "-np"));
  }

  @ParameterizedTest(name = "cpu {0}, procsPerNode {1} -> {2}")
  @CsvSource({"4,,4", "4,auto,4", "4500m,,4", "500m,auto,1"})
  @DisplayName(
      "C11 trainer#2407: without GPUs PET_NPROC_PER_NODE is the whole CPU count (at least 1), never auto")
  void c11_procsWithoutGpus(String cpu, String procsPerNode, String expected) {
    String yaml =
        "runtime: torch\nnodes: 2\nresources:\n  gpus: 0\n  cpu: \""
            + cpu
            + "\"\n"
            + (procsPerNode == null ? "" : "procsPerNode: " + procsPerNode + "\n")
            + "run: torchrun train.py\n";
    JsonNode jobSet = object(compile(dir, yaml), "JobSet");
    assertEquals(expected, env(jobSet, "node", "PET_NPROC_PER_NODE").path("value").asText());
  }

  @Test
  @DisplayName(
      "C12 trainer#3809: nodes 0 and procsPerNode -5 each fail at their own line:column, and nothing is written")
  void c12_nonPositiveCounts() {
    CompileResult r = compile(dir, "run: torchrun train.py\nnodes: 0\nprocsPerNode: -5\n");
    assertTrue(r.tree().isEmpty());
    List<Diagnostic> errors = r.diagnostics().stream().filter(Diagnostic::isError).toList();
    assertEquals(2, errors.size(), errors.toString());
    assertEquals("/nodes", errors.get(0).pointer());
    assertEquals(
        List.of(2, 8), List.of(errors.get(0).location().line(), errors.get(0).location().column()));
    assertTrue(errors.get(0).message().contains("0"), errors.get(0).message());
    assertEquals("/procsPerNode", errors.get(1).pointer());
    assertEquals(
        List.of(3, 15),
        List.of(errors.get(1).location().line(), errors.get(1).location().column()));
    assertTrue(errors.get(1).message().contains("-5"), errors.get(1).message());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"nodes: 0", "procsPerNode: -5", "procsPerNode: 0", "nodes: -1"})
  @DisplayName(
      "C12 trainer#3809: each non-positive count alone fails at its line with no output tree")
  void c12_eachCountAlone(String line) {
    CompileResult r = compile(dir, "run: torchrun train.py\n" + line + "\n");
    assertTrue(r.tree().isEmpty());
    Diagnostic d = r.diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow();
    assertEquals(2, d.location().line());
    assertEquals("/" + line.substring(0, line.indexOf(':')), d.pointer());
  }

  @Test
  @DisplayName(
      "C13 argo-cd#8586, kueue#8228: with `queue: team-a` the JobSet carries the queue-name label and no object has ttlSecondsAfterFinished, suspend or generateName")
  void c13_gitOpsSafeQueueing() {
    TrainProject p =
        TrainProject.create(dir, "runtime: mpi\nnodes: 2\nqueue: team-a\nrun: python train.py\n")
            .withPlatform(TwoQueues.PLATFORM);
    CompileResult r = p.compile();
    JsonNode jobSet = object(r, "JobSet");
    assertEquals(
        "team-a",
        jobSet.path("metadata").path("labels").path("kueue.x-k8s.io/queue-name").asText());
    TrainProject.tree(r)
        .files()
        .forEach(
            (path, text) -> {
              if (path.endsWith(".yaml")) {
                JsonNode doc = TrainProject.parse(path, text);
                for (String key : List.of("ttlSecondsAfterFinished", "suspend", "generateName")) {
                  assertTrue(doc.findValues(key).isEmpty(), path + " has " + key);
                }
              }
            });
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"torch", "mpi", "deepspeed", "jax", "plain"})
  @DisplayName(
      "C14 jobset#766: the JobSet carries every field the JobSet webhook defaults, so git equals the stored object")
  void c14_webhookDefaultsExplicit(String runtime) {
    JsonNode jobSet =
        object(
            compile(dir, "runtime: " + runtime + "\nnodes: 2\nrun: python train.py\n"), "JobSet");
    JsonNode spec = jobSet.path("spec");
    assertTrue(spec.path("network").path("enableDNSHostnames").asBoolean());
    assertTrue(spec.path("network").path("publishNotReadyAddresses").asBoolean());
    assertEquals(
        jobSet.path("metadata").path("name").asText(),
        spec.path("network").path("subdomain").asText());
    assertEquals("All", spec.path("successPolicy").path("operator").asText());
    assertEquals("AnyOrder", spec.path("startupPolicy").path("startupPolicyOrder").asText());
    for (JsonNode rj : spec.path("replicatedJobs")) {
      String name = rj.path("name").asText();
      assertEquals("default", rj.path("groupName").asText(), name);
      assertTrue(rj.path("replicas").isInt(), name);
      assertEquals(
          "Indexed", rj.path("template").path("spec").path("completionMode").asText(), name);
      assertTrue(
          List.of("Never", "OnFailure")
              .contains(podSpec(jobSet, name).path("restartPolicy").asText()),
          name);
    }
  }

  @Test
  @DisplayName(
      "C15 kueue#4848: GPUs on a queue whose ClusterQueue covers only cpu and memory fail, naming the resource and the queue")
  void c15_uncoveredResource() {
    CompileResult r =
        TrainProject.create(dir, "run: torchrun train.py\nqueue: cpu-only\nresources:\n  gpus: 8\n")
            .withPlatform(TwoQueues.PLATFORM)
            .compile();
    assertTrue(r.tree().isEmpty());
    List<Diagnostic> d = withCode(r, DiagnosticCode.UNCOVERED_RESOURCE);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/resources/gpus", d.get(0).pointer());
    assertEquals(List.of(4, 9), List.of(d.get(0).location().line(), d.get(0).location().column()));
    assertTrue(
        d.get(0).message().contains("nvidia.com/gpu") && d.get(0).message().contains("cpu-only"),
        d.get(0).message());
  }

  @Test
  @DisplayName(
      "C15 kueue#4848: a runtime's default GPUs on a CPU-only queue fail too; a CPU job on it compiles")
  void c15_uncoveredRuntimeDefault() {
    Path runtimes =
        CaseCompile.runtime(dir, new RuntimeText("torch-4gpu", "torch", 0, "/root", 4, false));
    Path platform = CaseCompile.file(dir, "platform.yaml", TwoQueues.PLATFORM);
    TrainProject gpu =
        TrainProject.create(
            dir.resolve("gpu"), "runtime: torch-4gpu\nqueue: cpu-only\nrun: torchrun train.py\n");
    CompileResult r = CaseCompile.compile(gpu, Optional.of(platform), Optional.of(runtimes));
    assertTrue(r.tree().isEmpty());
    assertTrue(
        withCode(r, DiagnosticCode.UNCOVERED_RESOURCE).get(0).message().contains("nvidia.com/gpu"));
    TrainProject cpu =
        TrainProject.create(dir.resolve("cpu"), "queue: cpu-only\nrun: torchrun train.py\n");
    JsonNode jobSet =
        object(CaseCompile.compile(cpu, Optional.of(platform), Optional.empty()), "JobSet");
    assertEquals(
        "cpu-only",
        jobSet.path("metadata").path("labels").path("kueue.x-k8s.io/queue-name").asText());
  }

  @ParameterizedTest(name = "{0}: env {1}")
  @CsvSource({
    "torch, PET_NNODES",
    "torch, NODE_RANK",
    "torch, MASTER_ADDR",
    "torch, RANK",
    "mpi, OMPI_MCA_orte_default_hostfile",
    "mpi, PRTE_MCA_prte_default_hostfile",
    "jax, JAX_COORDINATOR_ADDRESS"
  })
  @DisplayName(
      "C16 trainer: a variable the runtime sets, in `env`, fails at its key with the runtime's reserved names in the hint")
  void c16_reservedEnv(String runtime, String name) {
    CompileResult r =
        compile(
            dir,
            "runtime: "
                + runtime
                + "\nrun: python train.py\nenv:\n  OK_VAR: x\n  "
                + name
                + ": \"3\"\n");
    assertTrue(r.tree().isEmpty());
    List<Diagnostic> d = withCode(r, DiagnosticCode.RESERVED_ENV);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(5, d.get(0).location().line());
    assertEquals("/env/" + name, d.get(0).pointer());
    assertTrue(d.get(0).message().contains(name));
    for (String reserved : List.of(name, "NNODES", "MASTER_ADDR", "MASTER_PORT", "TRAINYARD_")) {
      assertTrue(
          d.get(0).hint().contains(reserved), "hint lacks " + reserved + ": " + d.get(0).hint());
    }
  }

  @Test
  @DisplayName(
      "C16 trainer: a Secret exposed under a reserved variable name fails at its `env` line too")
  void c16_reservedSecretEnv() {
    CompileResult r =
        compile(
            dir,
            "run: torchrun train.py\nsecrets:\n  - name: hf\n    key: token\n    env: PET_MASTER_ADDR\n");
    List<Diagnostic> d = withCode(r, DiagnosticCode.RESERVED_ENV);
    assertTrue(r.tree().isEmpty());
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals("/secrets/0/env", d.get(0).pointer());
    assertEquals(5, d.get(0).location().line());
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"torch", "jax", "plain"})
  @DisplayName(
      "C17 skypilot#3656: nodes 1 has the same variable set as nodes 2, with NNODES=1 and no pod-level RANK or WORLD_SIZE")
  void c17_singleNodeFullEnv(String runtime) {
    JsonNode one =
        object(
            compile(
                dir.resolve("one"), "runtime: " + runtime + "\nnodes: 1\nrun: python train.py\n"),
            "JobSet");
    JsonNode two =
        object(
            compile(
                dir.resolve("two"), "runtime: " + runtime + "\nnodes: 2\nrun: python train.py\n"),
            "JobSet");
    assertEquals(CaseCompile.envNames(two, "node"), CaseCompile.envNames(one, "node"));
    List<String> names = CaseCompile.envNames(one, "node");
    assertTrue(
        names.containsAll(
            List.of("NNODES", "NODE_RANK", "MASTER_ADDR", "MASTER_PORT", "GPUS_PER_NODE")),
        names.toString());
    assertFalse(names.contains("RANK") || names.contains("WORLD_SIZE"), names.toString());
    assertEquals("1", env(one, "node", "NNODES").path("value").asText());
    if (runtime.equals("torch")) {
      assertEquals("1", env(one, "node", "PET_NNODES").path("value").asText());
      assertTrue(
          names.containsAll(
              List.of(
                  "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT", "PET_NPROC_PER_NODE")));
    }
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"torch", "mpi", "deepspeed"})
  @DisplayName(
      "C18 torchx#428: a GPU job without resources.shm gets a memory-backed volume at /dev/shm on every pod")
  void c18_shmDefault(String runtime) {
    JsonNode jobSet =
        object(
            compile(
                dir,
                "runtime: "
                    + runtime
                    + "\nnodes: 2\nresources:\n  gpus: 1\nrun: python train.py\n"),
            "JobSet");
    for (String rjob : replicatedJobNames(jobSet)) {
      JsonNode pod = podSpec(jobSet, rjob);
      JsonNode shm = volume(pod, mountAt(pod, "/dev/shm").path("name").asText());
      assertEquals("Memory", shm.path("emptyDir").path("medium").asText(), rjob);
      assertFalse(shm.path("emptyDir").path("sizeLimit").asText().isEmpty(), rjob);
    }
  }

  @ParameterizedTest(name = "framework {0}")
  @ValueSource(strings = {"torch", "mpi"})
  @DisplayName(
      "C19 kubeflow/sdk#89: pods running as uid 1001 get HOME on a writable volume, so `setup: pip install trl` can install for the user")
  void c19_writableHome(String framework) {
    Path runtimes =
        CaseCompile.runtime(
            dir,
            new RuntimeText(
                "uid1001", framework, 1001, "/home/trainer", 0, framework.equals("mpi")));
    TrainProject p =
        TrainProject.create(
            dir.resolve("repo"),
            "runtime: uid1001\nnodes: 2\nsetup: pip install trl\nrun: python train.py\n");
    JsonNode jobSet = object(CaseCompile.compile(p, Optional.of(runtimes)), "JobSet");
    for (String rjob : replicatedJobNames(jobSet)) {
      JsonNode pod = podSpec(jobSet, rjob);
      assertEquals(1001, pod.path("securityContext").path("runAsUser").asInt());
      String home = env(jobSet, rjob, "HOME").path("value").asText();
      assertEquals("/home/trainer", home, rjob);
      JsonNode mount = mountAt(pod, home);
      assertFalse(mount.path("readOnly").asBoolean(false), rjob);
      assertTrue(
          volume(pod, mount.path("name").asText()).path("emptyDir").isObject(),
          rjob + ": HOME is not on an emptyDir");
      assertEquals("pip install trl", env(jobSet, rjob, "TRAINYARD_SETUP").path("value").asText());
    }
  }

  @ParameterizedTest(name = "runtime {0}")
  @ValueSource(strings = {"torch", "jax", "plain"})
  @DisplayName(
      "C20 skypilot#9841: node rank comes from the completion index, and the master address is node 0's name by the hostname formula")
  void c20_rankFromCompletionIndex(String runtime) {
    JsonNode jobSet =
        object(
            compile(dir, "runtime: " + runtime + "\nnodes: 4\nrun: python train.py\n"), "JobSet");
    String js = jobSet.path("metadata").path("name").asText();
    assertEquals(js, jobSet.path("spec").path("network").path("subdomain").asText());
    String master = js + "-node-0-0." + js;
    assertEquals(
        4, replicatedJob(jobSet, "node").path("template").path("spec").path("completions").asInt());
    List<String> rankVars =
        runtime.equals("torch") ? List.of("NODE_RANK", "PET_NODE_RANK") : List.of("NODE_RANK");
    for (String name : rankVars) {
      JsonNode e = env(jobSet, "node", name);
      assertTrue(e.path("value").isMissingNode(), name + " must not be a literal");
      assertEquals(
          COMPLETION_INDEX, e.path("valueFrom").path("fieldRef").path("fieldPath").asText(), name);
    }
    assertEquals(master, env(jobSet, "node", "MASTER_ADDR").path("value").asText());
    if (runtime.equals("torch")) {
      assertEquals(master, env(jobSet, "node", "PET_MASTER_ADDR").path("value").asText());
    }
  }

  static boolean forwards(List<String> argv, String name) {
    for (int i = 0; i + 1 < argv.size(); i++) {
      if (argv.get(i).equals("-x") && argv.get(i + 1).equals(name)) {
        return true;
      }
    }
    return false;
  }

  static int privateKeyMode(JsonNode pod) {
    for (JsonNode v : pod.path("volumes")) {
      for (JsonNode item : v.path("secret").path("items")) {
        if (item.path("key").asText().equals("ssh-privatekey")) {
          return item.path("mode").asInt(-1);
        }
      }
    }
    throw new AssertionError("no ssh-privatekey item in " + pod.path("volumes"));
  }

  static JsonNode mountAt(JsonNode pod, String path) {
    for (JsonNode m : pod.path("containers").path(0).path("volumeMounts")) {
      if (m.path("mountPath").asText().equals(path)) {
        return m;
      }
    }
    return MissingNode.getInstance();
  }

  static JsonNode volume(JsonNode pod, String name) {
    for (JsonNode v : pod.path("volumes")) {
      if (v.path("name").asText().equals(name)) {
        return v;
      }
    }
    return MissingNode.getInstance();
  }
}
