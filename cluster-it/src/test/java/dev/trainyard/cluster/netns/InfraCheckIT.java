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
 * The {@code examples/infra-check} recipe run for real: compiled unmodified, its pods on namespace hosts
 * with Debian's Open MPI, OpenSSH and mpi4py; the check's output says per node whether it passed.
 */
class InfraCheckIT {
    private static final Path REPO_ROOT = Path.of(System.getProperty("trainyard.repo.root", ".."));
    private Path work;

    @BeforeEach
    void tools() throws IOException {
        HostTools.requireMpi();
        HostTools.requireMpi4py();
        work = Files.createDirectories(NetnsWork.dir())
                .resolve("infra-" + System.nanoTime());
    }

    @Test
    @DisplayName("examples/infra-check on 3 nodes prints one PASS line per node (hostname on every node, allreduce 6/6) and exits 0")
    void everyNodePasses() {
        CompiledProject project = CompiledProject.example(work.resolve("repo"), REPO_ROOT, "infra-check", Optional.empty());
        try (NamespaceCluster cluster = new NamespaceCluster(project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
            MpiRun.Outcome outcome = MpiRun.run(cluster);
            assertEquals(0, outcome.exit(), outcome.output());
            String node = project.run().jobSetName() + "-node-0-";
            for (int i = 0; i < 3; i++) {
                String expected = "infra-check: " + node + i + " PASS (command exit 0, allreduce 6/6) " + node + i;
                assertTrue(outcome.output().lines().anyMatch(expected::equals), "no line `" + expected + "` in:\n" + outcome.output());
            }
            assertTrue(outcome.output().contains("infra-check: 3 of 3 nodes passed"), outcome.output());
        }
    }

    @Test
    @DisplayName("a check command that fails on one node: that node's line says FAIL, the others PASS, and the run exits 1")
    void failingNodeIsNamed() throws IOException {
        Path example = REPO_ROOT.resolve("examples/infra-check");
        String trainYaml = Files.readString(example.resolve("train.yaml"))
                .replace("CHECK_COMMAND: hostname", "CHECK_COMMAND: 'hostname | grep -v -- \"-node-0-1$\"'");
        CompiledProject project = CompiledProject.compile(work.resolve("repo"), "infra-check",
                Map.of("train.yaml", trainYaml, "check.py", Files.readString(example.resolve("check.py"))), Optional.empty());
        try (NamespaceCluster cluster = new NamespaceCluster(project.run(), ImageStandIn.openMpi(), work.resolve("pods"), project.repo())) {
            MpiRun.Outcome outcome = MpiRun.run(cluster);
            assertEquals(1, outcome.exit(), outcome.output());
            String node = project.run().jobSetName() + "-node-0-";
            List<String> verdicts = outcome.output().lines().filter(l -> l.startsWith("infra-check: " + node)).sorted().toList();
            assertEquals(3, verdicts.size(), outcome.output());
            assertTrue(verdicts.get(0).startsWith("infra-check: " + node + "0 PASS"), outcome.output());
            assertTrue(verdicts.get(1).startsWith("infra-check: " + node + "1 FAIL (command exit 1"), outcome.output());
            assertTrue(verdicts.get(2).startsWith("infra-check: " + node + "2 PASS"), outcome.output());
            assertTrue(outcome.output().contains("infra-check: 2 of 3 nodes passed"), outcome.output());
        }
    }
}
