package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/controller.md's "Try the controller locally", as written, from the installed distribution
 * ({@code cli/target/trainyard-<version>.tar.gz} unpacked with the real {@code tar}): a copy of
 * {@code share/controller/}, a token file, then {@code trainyard-controller --config ...
 * --no-leader-election} against the test cluster's kubeconfig; {@code /readyz} answers 200 once the
 * informers have synced, and SIGTERM stops it with exit 0.
 */
@ExtendWith(KubeClusterExtension.class)
class InstalledControllerIT {
  static final Path TARBALL = Path.of(System.getProperty("trainyard.distribution.tar", "missing"));
  static final String VERSION = System.getProperty("trainyard.version", "missing");
  static final Pattern SERVING = Pattern.compile("serving on port (\\d+)");
  static final Duration READY = Duration.ofSeconds(90);

  @TempDir Path temp;

  @Test
  @DisplayName(
      "the installed trainyard-controller with share/controller's files starts against the cluster and /readyz answers 200")
  void readyFromTheDistribution(KubeCluster cluster) throws Exception {
    assertTrue(Files.isRegularFile(TARBALL), "the cli build writes " + TARBALL);
    Process tar =
        new ProcessBuilder("tar", "-xzf", TARBALL.toString())
            .directory(temp.toFile())
            .inheritIO()
            .start();
    assertTrue(tar.waitFor(60, TimeUnit.SECONDS) && tar.exitValue() == 0, "tar -xzf");
    Path home = temp.resolve("trainyard-" + VERSION);
    Path conf = temp.resolve("controller");
    Files.createDirectories(conf.resolve("tokens/trainyard-forge-tokens"));
    for (String file : List.of("controller.yaml", "platform.yaml")) {
      Files.copy(home.resolve("share/controller").resolve(file), conf.resolve(file));
    }
    Files.writeString(
        conf.resolve("tokens/trainyard-forge-tokens/github-token"), "ghp_not-a-real-token\n");
    Path log = temp.resolve("controller.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                home.resolve("bin/trainyard-controller").toString(),
                "--config=" + conf.resolve("controller.yaml"),
                "--kubeconfig=" + cluster.kubeconfig(),
                "--no-leader-election",
                "--bind=127.0.0.1",
                "--port=0")
            .directory(temp.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().putAll(Map.of("JAVA_HOME", System.getProperty("java.home")));
    Process controller = builder.start();
    try {
      int port = port(controller, log);
      assertEquals(200, readyz(port, controller, log), Files.readString(log));
    } finally {
      controller.destroy();
      assertTrue(controller.waitFor(20, TimeUnit.SECONDS), "stops on SIGTERM");
    }
    // A JVM whose shutdown a signal started exits 128 + the signal (SIGTERM 15), whatever its hooks
    // do; ControllerMain's exit 0 is for a stop it initiates itself (a lost Lease).
    assertEquals(143, controller.exitValue(), Files.readString(log));
    assertFalse(Files.readString(log).contains("Exception"), Files.readString(log));
  }

  /** The port from the controller's "serving on port N" line, waiting at most {@link #READY}. */
  private static int port(Process controller, Path log) throws Exception {
    long end = System.nanoTime() + READY.toNanos();
    while (System.nanoTime() < end && controller.isAlive()) {
      Matcher m = SERVING.matcher(Files.readString(log, StandardCharsets.UTF_8));
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
      Thread.sleep(200);
    }
    throw new AssertionError("never served: " + Files.readString(log, StandardCharsets.UTF_8));
  }

  /** /readyz's status once it is 200, or the last status after {@link #READY}. */
  private static int readyz(int port, Process controller, Path log) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
            .timeout(Duration.ofSeconds(5))
            .build();
    long end = System.nanoTime() + READY.toNanos();
    int status = -1;
    while (System.nanoTime() < end && controller.isAlive()) {
      try {
        status = http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status == 200) {
          return status;
        }
      } catch (IOException e) {
        status = -1;
      }
      Thread.sleep(250);
    }
    return status;
  }
}
