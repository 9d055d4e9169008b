package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller process outside a pod, started as a platform engineer would try it ($KUBECONFIG):
 * a broken kubeconfig and an unreachable API server are one line and exit 3, never a stack trace or
 * the token.
 */
class ControllerStartTest {
  private static final String TOKEN = "sha256~CONTROLLERsecretTOKEN42";
  @TempDir Path dir;

  record Exit(int code, String err) {}

  private Exit start(Path kubeconfig) throws Exception {
    Files.writeString(dir.resolve("platform.yaml"), ConfigFileTest.PLATFORM);
    Path config =
        Files.writeString(
            dir.resolve("controller.yaml"), "platform: " + dir.resolve("platform.yaml") + "\n");
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                ControllerMain.class.getName(),
                "--config=" + config,
                "--port=0",
                "--no-leader-election"));
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment().put("HOME", dir.toString());
    pb.environment().remove("KUBERNETES_SERVICE_HOST");
    pb.redirectErrorStream(true);
    Process p = pb.start();
    boolean ended = p.waitFor(60, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly();
    }
    assertTrue(ended, "the controller must exit on its own");
    return new Exit(
        p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("a kubeconfig that is not YAML: file:line:col, exit 3, the token never printed")
  void brokenKubeconfig() throws Exception {
    Path k =
        Files.writeString(
            dir.resolve("kubeconfig"),
            "apiVersion: v1\nusers:\n- name: me\n  user:\n    token: \"" + TOKEN + "\n");
    Exit e = start(k);
    assertEquals(3, e.code(), e.err());
    assertTrue(e.err().contains(k + ":5:"), e.err());
    assertFalse(e.err().contains(TOKEN), e.err());
    assertFalse(e.err().contains("Exception"), e.err());
    assertTrue(
        e.err()
            .contains(
                "warning: platform.yaml has no status.forges, so no commit status will be posted"),
        e.err());
  }

  @Test
  @DisplayName("an API server that refuses connections is named with the cause, exit 3")
  void unreachable() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path k =
        Files.writeString(
            dir.resolve("kubeconfig"),
            """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:%d"}}]
                users: [{name: u, user: {token: "%s"}}]
                contexts: [{name: c, context: {cluster: c, user: u}}]
                current-context: c
                """
                .formatted(port, TOKEN));
    Exit e = start(k);
    assertEquals(3, e.code(), e.err());
    assertTrue(e.err().contains("cannot reach the cluster at https://127.0.0.1:" + port), e.err());
    assertFalse(e.err().contains("An error has occurred"), e.err());
    assertFalse(e.err().contains(TOKEN), e.err());
  }
}
