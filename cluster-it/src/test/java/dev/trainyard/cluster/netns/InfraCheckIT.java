package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@code examples/infra-check} recipe run for real: compiled unmodified, its pods on namespace
 * hosts with Debian's Open MPI and OpenSSH (check.sh needs no Python, as the mpi runtime's image
 * has none); the check's output says per node whether its command passed and whether it reached
 * every other node.
 */
class InfraCheckIT {
  private static final Path REPO_ROOT = Path.of(System.getProperty("trainyard.repo.root", ".."));
  private Path work;
  private String node;

  @BeforeEach
  void tools() throws IOException {
    HostTools.requireMpi();
    work = Files.createDirectories(NetnsWork.dir()).resolve("infra-" + System.nanoTime());
  }

  @Test
  @DisplayName(
      "examples/infra-check on 3 nodes prints one PASS line per node (hostname on every node, each reaches its 2 peers) and exits 0")
  void everyNodePasses() {
    CompiledProject project =
        CompiledProject.example(work.resolve("repo"), REPO_ROOT, "infra-check", Optional.empty());
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      MpiRun.Outcome outcome = MpiRun.run(cluster);
      assertEquals(0, outcome.exit(), outcome.output());
      String node = project.run().jobSetName() + "-node-0-";
      for (int i = 0; i < 3; i++) {
        String expected =
            "infra-check: "
                + node
                + i
                + " PASS (command exit 0, reaches 2/2 peers on port 2222) "
                + node
                + i;
        assertTrue(
            outcome.output().lines().anyMatch(expected::equals),
            "no line `" + expected + "` in:\n" + outcome.output());
      }
      assertEquals(
          3,
          verdicts(outcome, node).size(),
          "one line per node, none from a node's second rank:\n" + outcome.output());
    }
  }

  @Test
  @DisplayName(
      "a check command that fails on one node: that node's line says FAIL, the others PASS, and the run exits 1")
  void failingNodeIsNamed() throws IOException {
    MpiRun.Outcome outcome = runWith("CHECK_COMMAND: 'hostname | grep -v -- \"-node-0-1$\"'");
    assertEquals(1, outcome.exit(), outcome.output());
    List<String> verdicts = verdicts(outcome, node);
    assertEquals(3, verdicts.size(), outcome.output());
    assertTrue(
        verdicts
            .get(0)
            .startsWith(
                "infra-check: " + node + "0 PASS (command exit 0, reaches 2/2 peers on port 2222)"),
        outcome.output());
    assertTrue(
        verdicts
            .get(1)
            .startsWith(
                "infra-check: " + node + "1 FAIL (command exit 1, reaches 2/2 peers on port 2222)"),
        outcome.output());
    assertTrue(
        verdicts
            .get(2)
            .startsWith(
                "infra-check: " + node + "2 PASS (command exit 0, reaches 2/2 peers on port 2222)"),
        outcome.output());
  }

  @Test
  @DisplayName(
      "a node whose command runs over its time limit reads exit 124; nodes that reach no peer (a port nothing listens on) say 0/2 and fail though their command passed")
  void timeoutAndUnreachablePeersFail() throws IOException {
    MpiRun.Outcome outcome =
        runWith(
            "CHECK_COMMAND: 'case $(hostname) in *-node-0-0) sleep 5 ;; *) hostname ;; esac'\n"
                + "  CHECK_TIMEOUT_SECONDS: '1'\n  CHECK_PEER_PORT: '1'");
    assertEquals(1, outcome.exit(), outcome.output());
    List<String> verdicts = verdicts(outcome, node);
    assertEquals(
        List.of(
            "infra-check: "
                + node
                + "0 FAIL (command exit 124, reaches 0/2 peers on port 1) timed out after 1s",
            "infra-check: "
                + node
                + "1 FAIL (command exit 0, reaches 0/2 peers on port 1) "
                + node
                + "1",
            "infra-check: "
                + node
                + "2 FAIL (command exit 0, reaches 0/2 peers on port 1) "
                + node
                + "2"),
        verdicts,
        outcome.output());
  }

  /**
   * Runs examples/infra-check with its {@code CHECK_COMMAND} line replaced by {@code env} (YAML
   * under {@code env:}).
   */
  private MpiRun.Outcome runWith(String env) throws IOException {
    Path example = REPO_ROOT.resolve("examples/infra-check");
    String trainYaml =
        Files.readString(example.resolve("train.yaml")).replace("CHECK_COMMAND: hostname", env);
    CompiledProject project =
        CompiledProject.compile(
            work.resolve("repo"),
            "infra-check",
            Map.of(
                "train.yaml", trainYaml, "check.sh", Files.readString(example.resolve("check.sh"))),
            Optional.empty());
    node = project.run().jobSetName() + "-node-0-";
    try (NamespaceCluster cluster =
        new NamespaceCluster(
            project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
      return MpiRun.run(cluster);
    }
  }

  private static List<String> verdicts(MpiRun.Outcome outcome, String node) {
    return outcome
        .output()
        .lines()
        .filter(l -> l.startsWith("infra-check: " + node))
        .sorted()
        .toList();
  }
}
