package dev.trainyard.compiler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code $KUBECONFIG} naming several files, merged as kubectl merges them: the context from one
 * file, its cluster (and a CA path relative to that file) from another. The environment is the real
 * one of a JVM started for it ({@link Probe}), as {@link ClusterDryRun#clientConfig} reads it.
 */
class KubeconfigMergeTest {
  @TempDir Path temp;

  static final String CONTEXTS =
      String.join(
          "\n",
          "apiVersion: v1",
          "kind: Config",
          "current-context: ctx-a",
          "contexts:",
          "- name: ctx-a",
          "  context: {cluster: cb, user: ua}",
          "users:",
          "- name: ua",
          "  user: {token: t0ken}",
          "");
  static final String CLUSTERS =
      String.join(
          "\n",
          "apiVersion: v1",
          "kind: Config",
          "clusters:",
          "- name: cb",
          "  cluster: {server: 'https://127.0.0.1:6555', certificate-authority: ca.crt}",
          "contexts:",
          "- name: ctx-b",
          "  context: {cluster: cb, user: ua}",
          "");

  /** Prints what {@link ClusterDryRun#clientConfig} makes of the environment, or its error. */
  public static final class Probe {
    public static void main(String[] args) {
      try {
        var c =
            ClusterDryRun.clientConfig(
                Optional.empty(), args.length > 0 ? Optional.of(args[0]) : Optional.empty());
        System.out.println(
            c.getMasterUrl() + " " + c.getCurrentContext().getName() + " " + c.getCaCertFile());
      } catch (ClusterDryRun.ClusterUnavailableException e) {
        System.out.println("refused: " + e.getMessage());
      }
    }
  }

  private String probe(String kubeconfig, String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Probe.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("KUBECONFIG", kubeconfig);
    pb.environment().put("HOME", temp.toString());
    pb.environment().remove("KUBERNETES_SERVICE_HOST");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe ended");
    return out.lines().filter(l -> !l.startsWith("SLF4J")).reduce("", (a, b) -> a + b);
  }

  @Test
  @DisplayName(
      "the context in one file and its cluster in another: either order connects to that cluster with the CA beside its own file; --context picks from any file; a context no file defines is refused naming them all")
  void merged() throws Exception {
    Files.createDirectories(temp.resolve("a"));
    Files.createDirectories(temp.resolve("b"));
    Path a = Files.writeString(temp.resolve("a/config"), CONTEXTS);
    Path b = Files.writeString(temp.resolve("b/config"), CLUSTERS);
    String ca = temp.resolve("b/ca.crt").toString();
    assertEquals("https://127.0.0.1:6555/ ctx-a " + ca, probe(a + ":" + b));
    assertEquals("https://127.0.0.1:6555/ ctx-a " + ca, probe(b + ":" + a));
    assertEquals("https://127.0.0.1:6555/ ctx-b " + ca, probe(a + ":" + b, "ctx-b"));
    assertEquals(
        "refused: kubeconfig has no context \"nope\" (it has: ctx-a, ctx-b)",
        probe(a + ":" + b, "nope"));
    assertEquals(
        "refused: "
            + b
            + ": the kubeconfig sets no current-context (it has: ctx-b): pick one with --context or"
            + " `kubectl config use-context`",
        probe(b.toString()));
  }
}
