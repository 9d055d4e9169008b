package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status} and {@code logs} before any cluster answers: a broken or missing kubeconfig, a
 * missing context and a closed port are one-line environment errors (exit 3), as {@code validate
 * --cluster} reports them, and a kubeconfig's token never reaches the output.
 */
class ClusterCommandsTest {
  private static final String TOKEN = "sha256~SECRETtokenVALUE0123456789";
  @TempDir Path temp;

  private Path kubeconfig(String server) throws Exception {
    return Files.writeString(
        temp.resolve("kubeconfig"),
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster: {server: "%s"}
        users:
        - name: me
          user: {token: "%s"}
        contexts:
        - name: local
          context: {cluster: local, user: me, namespace: team-a}
        - name: other
          context: {cluster: local, user: me}
        current-context: local
        """
            .formatted(server, TOKEN));
  }

  @Test
  @DisplayName(
      "a kubeconfig that is not YAML: file:line:col diagnostic, exit 3, the token line never printed (status and logs)")
  void brokenYamlNeverEchoesToken() throws Exception {
    Path k =
        Files.writeString(
            temp.resolve("kubeconfig"),
            "apiVersion: v1\nusers:\n- name: me\n  user:\n    token: \"" + TOKEN + "\n");
    for (String[] args :
        new String[][] {
          {"status", "--kubeconfig", k.toString()}, {"logs", "r", "--kubeconfig", k.toString()}
        }) {
      MainTest.Run r = MainTest.run(args);
      assertEquals(3, r.exit(), r.err());
      assertTrue(r.err().contains(k + ":5:"), r.err());
      assertTrue(r.err().contains("the kubeconfig is not valid YAML"), r.err());
      assertFalse((r.out() + r.err()).contains(TOKEN), r.err());
      assertFalse(r.err().contains("internal error"), r.err());
    }
  }

  @Test
  @DisplayName("`garbage: [` as kubeconfig is an exit 3 diagnostic, not an internal error")
  void garbage() throws Exception {
    Path k = Files.writeString(temp.resolve("kubeconfig"), "garbage: [\n");
    MainTest.Run r = MainTest.run("status", "--kubeconfig", k.toString());
    assertEquals(3, r.exit(), r.err());
    assertTrue(r.err().startsWith("trainyard status: " + k + ":"), r.err());
  }

  @Test
  @DisplayName("--kubeconfig naming no file says so, naming it; exit 3")
  void missingFile() {
    MainTest.Run r = MainTest.run("status", "--kubeconfig", temp.resolve("nope").toString());
    assertEquals(3, r.exit(), r.err());
    assertTrue(
        r.err().contains("--kubeconfig " + temp.resolve("nope") + ": no such file"), r.err());
    assertFalse(r.err().contains("An error has occurred"), r.err());
  }

  @Test
  @DisplayName("--context the kubeconfig lacks lists the contexts it has; exit 3")
  void unknownContext() throws Exception {
    Path k = kubeconfig("https://127.0.0.1:1");
    MainTest.Run r = MainTest.run("status", "--kubeconfig", k.toString(), "--context", "nosuch");
    assertEquals(3, r.exit(), r.err());
    assertTrue(
        r.err().contains("kubeconfig has no context \"nosuch\" (it has: local, other)"), r.err());
  }

  @Test
  @DisplayName(
      "a server that refuses connections is named with the reason and a hint (status and logs); exit 3, no token, no generic fabric8 text")
  void unreachable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path k = kubeconfig("https://127.0.0.1:" + port);
    for (String command : new String[] {"status", "logs"}) {
      MainTest.Run r =
          command.equals("status")
              ? MainTest.run(command, "--kubeconfig", k.toString())
              : MainTest.run(command, "r", "--kubeconfig", k.toString());
      assertEquals(3, r.exit(), r.err());
      assertTrue(r.err().startsWith("trainyard " + command + ": "), r.err());
      assertTrue(
          r.err()
              .contains(
                  "cannot reach the cluster at https://127.0.0.1:" + port + ": connection refused"),
          r.err());
      List<String> lines = r.err().lines().toList();
      assertEquals(2, lines.size(), r.err());
      assertEquals(
          "  hint: check --kubeconfig/--context, or that the cluster is reachable",
          lines.get(1),
          r.err());
      assertFalse(r.err().contains("An error has occurred"), r.err());
      assertFalse((r.out() + r.err()).contains(TOKEN), r.err());
    }
  }
}
