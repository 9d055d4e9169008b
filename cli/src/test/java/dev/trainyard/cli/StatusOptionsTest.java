package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code status}/{@code logs} options checked before any cluster is contacted: stall threshold and
 * namespace.
 */
class StatusOptionsTest {

  /**
   * The smallest platform.yaml the loader accepts (one cluster, namespace, flavor and queue), one
   * flow mapping.
   */
  static final String PLATFORM =
      "{apiVersion: trainyard.dev/v1, kind: Platform, clusters: [{name: prod}],"
          + " namespaces: [{name: team-a, cluster: prod, defaultQueue: q}], queues: {resourceFlavors: [{name: f}],"
          + " clusterQueues: [{name: cq, flavors: [{name: f, quota: {cpu: '8'}}]}],"
          + " localQueues: [{name: q, namespace: team-a, clusterQueue: cq}]}%s}\n";

  @TempDir Path dir;

  private static Duration stallAfter(String... args) throws Exception {
    StatusCommand command = new StatusCommand();
    new CommandLine(command).parseArgs(args);
    return command.stallAfter();
  }

  private Path platform(String extra) throws Exception {
    Path file = dir.resolve("platform.yaml");
    Files.writeString(file, PLATFORM.formatted(extra.isEmpty() ? "" : ", " + extra));
    return file;
  }

  @Test
  @DisplayName(
      "stall threshold: --stall-after, else --platform's status.stallAfter (the controller's), else 10m")
  void stallAfterSources() throws Exception {
    assertEquals(Duration.ofMinutes(10), stallAfter());
    Path withStall = platform("status: {stallAfter: 25m}");
    assertEquals(Duration.ofMinutes(25), stallAfter("--platform", withStall.toString()));
    assertEquals(
        Duration.ofMinutes(3),
        stallAfter("--platform", withStall.toString(), "--stall-after", "3m"));
    assertEquals(Duration.ofMinutes(10), stallAfter("--platform", platform("").toString()));
  }

  @Test
  @DisplayName(
      "running stall threshold: --platform's status.progress.stallAfter (the controller's), else 30m")
  void progressStallSources() throws Exception {
    StatusCommand command = new StatusCommand();
    new CommandLine(command).parseArgs();
    assertEquals(Duration.ofMinutes(30), command.progressStallAfter());
    new CommandLine(command)
        .parseArgs(
            "--platform", platform("status: {progress: {stallAfter: 45m, step: 5}}").toString());
    assertEquals(Duration.ofMinutes(45), command.progressStallAfter());
  }

  @Test
  @DisplayName(
      "a --platform that does not load is an input error (exit 1) with its diagnostics, before the cluster")
  void badPlatform() throws Exception {
    Path bad = platform("status: {stallAfter: soon}");
    StatusTableTest.Result r =
        StatusTableTest.run(
            "status", "--platform", bad.toString(), "--kubeconfig", dir.resolve("none").toString());
    assertEquals(1, r.code(), r.err());
    assertTrue(r.err().startsWith(bad + ":"), r.err());
    assertTrue(r.err().contains("stallAfter"), r.err());
  }

  @Test
  @DisplayName(
      "status -n and logs -n with a name that is no DNS-1123 label: usage error (exit 2), one line naming the flag and the rule")
  void badNamespace() {
    for (String[] args :
        new String[][] {
          {"status", "-n", "BAD NS"},
          {"logs", "r", "-n", "BAD NS"},
          {"status", "--namespace=Team-a"},
          {"logs", "r", "--namespace", "-x"},
          {"status", "-n", "a".repeat(64)}
        }) {
      StatusTableTest.Result r = StatusTableTest.run(args);
      assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
      String first = r.err().lines().findFirst().orElseThrow();
      assertTrue(first.startsWith("trainyard: -n/--namespace \""), first);
      assertTrue(
          first.contains(
              "is not a namespace name: a DNS-1123 label has at most 63 lower-case letters,"
                  + " digits and '-', and starts and ends with a letter or digit"),
          first);
      assertEquals(2, r.err().lines().count(), r.err());
    }
  }

  @Test
  @DisplayName("a valid namespace of up to 63 characters is taken as given")
  void goodNamespace() {
    for (String ns : new String[] {"team-a", "a", "0", "a".repeat(63)}) {
      StatusCommand command = new StatusCommand();
      new CommandLine(command).parseArgs("-n", ns);
      assertEquals(ns, command.target.namespace);
    }
  }

  @Test
  @DisplayName(
      "--appear-timeout that is no duration is a usage error (exit 2) before the cluster; it defaults to 10m")
  void appearTimeout() {
    StatusTableTest.Result r =
        StatusTableTest.run(
            "status",
            "r",
            "-w",
            "--appear-timeout",
            "soon",
            "--kubeconfig",
            dir.resolve("none").toString());
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().startsWith("trainyard: --appear-timeout 'soon' is not a duration"), r.err());
    StatusCommand command = new StatusCommand();
    new CommandLine(command).parseArgs("r", "-w");
    assertEquals("10m", command.appearTimeout);
  }

  @Test
  @DisplayName(
      "-o json: a cluster that cannot be read is exit 3 with {error, hint, exitCode} on stdout, as other commands fail")
  void jsonClusterError(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    MainTest.Run r =
        SubmitCommandTest.runIn(
            dir,
            java.util.Map.of(),
            "status",
            "-o",
            "json",
            "--kubeconfig",
            dir.resolve("none").toString());
    assertEquals(3, r.exit(), r.err());
    var json = dev.trainyard.compiler.manifest.CanonicalJson.mapper().readTree(r.out());
    assertEquals(3, json.path("exitCode").asInt(), r.out());
    assertTrue(r.err().contains(json.path("error").asText()), r.err());
    assertTrue(r.err().contains("hint: " + json.path("hint").asText()), r.err());
  }
}
