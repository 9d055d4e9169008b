package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard status}/{@code logs}' connection: the user's kubeconfig and context, and what a
 * person sees when the API server does not answer (a real fabric8 client aimed at a loopback port
 * nothing listens on; the answers of a real API server are in cluster-it's StatusCommandIT).
 */
class RunReaderTest {

  @TempDir Path dir;

  Path kubeconfig() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path f = dir.resolve("kubeconfig");
    Files.writeString(
        f,
        """
                apiVersion: v1
                kind: Config
                clusters:
                - name: c
                  cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}
                users:
                - name: u
                  user: {token: not-a-real-token}
                contexts:
                - name: team-a
                  context: {cluster: c, user: u, namespace: team-a}
                - name: plain
                  context: {cluster: c, user: u}
                - name: blank
                  context: {cluster: c, user: u, namespace: " "}
                current-context: team-a
                """
            .formatted(port));
    return f;
  }

  @Test
  @DisplayName(
      "the namespace is the kubeconfig context's (current or --context), else default (also for a blank one)")
  void namespaces() throws Exception {
    Path k = kubeconfig();
    try (RunReader r = RunReader.connect(Optional.of(k), Optional.empty(), Clock.systemUTC())) {
      assertEquals("team-a", r.defaultNamespace());
    }
    try (RunReader r = RunReader.connect(Optional.of(k), Optional.of("plain"), Clock.systemUTC())) {
      assertEquals("default", r.defaultNamespace());
    }
    try (RunReader r = RunReader.connect(Optional.of(k), Optional.of("blank"), Clock.systemUTC())) {
      assertEquals("default", r.defaultNamespace(), "a blank namespace is none");
    }
  }

  @Test
  @DisplayName(
      "an unreadable kubeconfig, and an API server that does not answer, are ClusterAccessExceptions saying what failed, without the token")
  void unreachable() throws Exception {
    ClusterAccessException bad =
        assertThrows(
            ClusterAccessException.class,
            () ->
                RunReader.connect(
                    Optional.of(dir.resolve("missing")), Optional.empty(), Clock.systemUTC()));
    assertEquals("--kubeconfig " + dir.resolve("missing") + ": no such file", bad.getMessage());
    try (RunReader r =
        RunReader.connect(Optional.of(kubeconfig()), Optional.empty(), Clock.systemUTC())) {
      ClusterAccessException e = assertThrows(ClusterAccessException.class, () -> r.list("team-a"));
      assertTrue(e.getMessage().startsWith("cannot list runs: "), e.getMessage());
      assertTrue(!e.getMessage().contains("not-a-real-token"), e.getMessage());
      ClusterAccessException pods =
          assertThrows(ClusterAccessException.class, () -> r.podsOf(new RunKey("team-a", "js")));
      assertTrue(
          pods.getMessage().startsWith("cannot list the pods of team-a/js: "), pods.getMessage());
    }
  }
}
