package dev.trainyard.compiler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where validate --cluster looks for a kubeconfig, and what it says when there is none or it is
 * broken.
 */
class KubeconfigsTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "no kubeconfig anywhere: the error names --kubeconfig, $KUBECONFIG, ~/.kube/config and the in-cluster account")
  void namesWhatItLookedFor() {
    var e =
        assertThrows(
            ClusterDryRun.ClusterUnavailableException.class,
            () -> Kubeconfigs.locate(Optional.empty(), Map.of(), temp));
    assertEquals(
        "no kubeconfig found; looked at --kubeconfig (not given), $KUBECONFIG (not set), "
            + temp.resolve(".kube/config")
            + " (no such file), the in-cluster service account (KUBERNETES_SERVICE_HOST not set); pass --kubeconfig FILE or set KUBECONFIG",
        e.getMessage());
    var listed =
        assertThrows(
            ClusterDryRun.ClusterUnavailableException.class,
            () ->
                Kubeconfigs.locate(
                    Optional.empty(), Map.of("KUBECONFIG", "/nope/a:/nope/b"), temp));
    assertTrue(
        listed.getMessage().contains("$KUBECONFIG=/nope/a:/nope/b (no such file)"),
        listed.getMessage());
    var flag =
        assertThrows(
            ClusterDryRun.ClusterUnavailableException.class,
            () -> Kubeconfigs.locate(Optional.of(temp.resolve("k")), Map.of(), temp));
    assertEquals("--kubeconfig " + temp.resolve("k") + ": no such file", flag.getMessage());
  }

  @Test
  @DisplayName(
      "kubectl's order: --kubeconfig, every existing $KUBECONFIG file in order (each once), ~/.kube/config; in a pod, the service account")
  void order() throws Exception {
    Path b = Files.writeString(temp.resolve("b"), "apiVersion: v1\n");
    Path c = Files.writeString(temp.resolve("c"), "apiVersion: v1\n");
    Files.createDirectories(temp.resolve(".kube"));
    Path home = Files.writeString(temp.resolve(".kube/config"), "apiVersion: v1\n");
    assertEquals(List.of(b), Kubeconfigs.locate(Optional.of(b), Map.of(), temp));
    assertEquals(
        List.of(b), Kubeconfigs.locate(Optional.empty(), Map.of("KUBECONFIG", "/nope:" + b), temp));
    assertEquals(
        List.of(c, b),
        Kubeconfigs.locate(
            Optional.empty(), Map.of("KUBECONFIG", c + ":/nope:" + b + ":" + c), temp));
    Path empty = Files.writeString(temp.resolve("empty"), "");
    assertEquals(
        List.of(b),
        Kubeconfigs.locate(Optional.empty(), Map.of("KUBECONFIG", empty + ":" + b), temp),
        "an empty file among several merges as nothing, as in kubectl");
    assertEquals(
        List.of(empty),
        Kubeconfigs.locate(Optional.empty(), Map.of("KUBECONFIG", empty.toString()), temp),
        "alone, it is read, and reported as empty");
    assertEquals(List.of(home), Kubeconfigs.locate(Optional.empty(), Map.of(), temp));
    assertEquals(
        List.of(),
        Kubeconfigs.locate(
            Optional.empty(), Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), temp.resolve("x")));
  }

  @Test
  @DisplayName(
      "a kubeconfig that is not YAML is reported at its line and column, as an environment error")
  void notYaml() throws Exception {
    Path k =
        Files.writeString(
            temp.resolve("config"),
            "apiVersion: v1\nclusters:\n- cluster: {server: https://x\n  name: a\n");
    var e =
        assertThrows(ClusterDryRun.ClusterUnavailableException.class, () -> Kubeconfigs.read(k));
    assertTrue(e.getMessage().startsWith(k + ":"), e.getMessage());
    assertTrue(e.getMessage().contains(": the kubeconfig is not valid YAML: "), e.getMessage());
    assertTrue(e.getMessage().matches(".*config:\\d+:\\d+: the kubeconfig.*"), e.getMessage());
  }

  @Test
  @DisplayName(
      "the default kubeconfig's home is $HOME as kubectl reads it, Java's user.home only without it")
  void homeFollowsEnv() {
    assertEquals(Path.of("/home/ml"), ClusterDryRun.home(Map.of("HOME", "/home/ml")));
    assertEquals(Path.of(System.getProperty("user.home")), ClusterDryRun.home(Map.of()));
    assertEquals(Path.of(System.getProperty("user.home")), ClusterDryRun.home(Map.of("HOME", " ")));
  }
}
