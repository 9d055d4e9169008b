package dev.trainyard.compiler.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The smallest real API server for the compiler's own tests: etcd and kube-apiserver from the
 * binaries cache of {@code scripts/k8s-testbin} (system property {@code trainyard.k8s.dir}, else
 * {@code scripts/k8s-testbin --print-dir}), on 127.0.0.1 ports, with the JobSet and Kueue CRDs from
 * the cache installed by the cache's {@code kubectl}. No controllers and no webhooks: CRD schemas
 * and core validation judge a dry run. The full harness (controllers, kwok, Kueue) is {@code
 * cluster-it}'s {@code LocalCluster}, which the compiler cannot depend on (cluster-it depends on
 * the CLI, which depends on the compiler). The controller's unit tests use this class too, through
 * the compiler's test-jar.
 *
 * <p>Authentication is one static bearer token in group {@code system:masters}; the server's
 * serving certificate is the self-signed one kube-apiserver writes into {@code --cert-dir}, so the
 * kubeconfig skips TLS verification (loopback only). Every wait is bounded; {@link #close()} ends
 * both process trees.
 */
public final class LocalApiServer implements AutoCloseable {
  private static final Duration READY = Duration.ofSeconds(120);
  private static final String TOKEN =
      "trainyard-test-" + Long.toHexString(new SecureRandom().nextLong());

  private final Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final Thread hook = new Thread(this::stop, "local-apiserver-stop");
  private Path kubeconfig;
  private static LocalApiServer shared;

  private LocalApiServer(Path dir) {
    this.dir = dir;
  }

  /**
   * The binaries cache, or empty with the reason when it is not built (the caller reports the test
   * as not run).
   */
  public static Optional<Path> binaries(StringBuilder reason) {
    String property = System.getProperty("trainyard.k8s.dir", "");
    Path dir = property.isBlank() ? printDir(reason) : Path.of(property);
    if (dir == null || !Files.isRegularFile(dir.resolve("ready"))) {
      reason
          .append("no complete k8s binaries cache (")
          .append(dir)
          .append("): run scripts/k8s-testbin or pass -Dtrainyard.k8s.dir");
      return Optional.empty();
    }
    return Optional.of(dir);
  }

  /**
   * One server per JVM, started on first use and stopped (its folder deleted) at JVM exit: PIT runs
   * the same test class once per mutant in one JVM, and a start costs about 10 s of the 2 cores.
   */
  public static synchronized LocalApiServer shared(Path cache) {
    if (shared == null) {
      try {
        Path work = Files.createTempDirectory("trainyard-apiserver-");
        shared = start(cache, work);
        Runtime.getRuntime()
            .addShutdownHook(new Thread(() -> deleteTree(work), "local-apiserver-cleanup"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return shared;
  }

  private static void deleteTree(Path root) {
    try (var paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // best effort at exit: a leftover temp folder is harmless
    }
  }

  /** Attempts at a start whose port another process took between its choice and its bind. */
  private static final int START_ATTEMPTS = 3;

  /**
   * Starts etcd and kube-apiserver under {@code work}, installs the CRDs of {@code cache}/crds,
   * waits until ready. A port is chosen free and bound by the server a moment later; when another
   * process took it meanwhile (the full suite's git and HTTP clients use the same ephemeral range:
   * seen once as "bind: address already in use"), the start is tried again in a new folder, at most
   * {@value #START_ATTEMPTS} times in all.
   */
  public static LocalApiServer start(Path cache, Path work) {
    for (int attempt = 1; ; attempt++) {
      LocalApiServer server =
          new LocalApiServer(attempt == 1 ? work : work.resolve("attempt-" + attempt));
      Runtime.getRuntime().addShutdownHook(server.hook);
      try {
        server.startAll(cache);
        return server;
      } catch (RuntimeException | Error e) {
        server.close();
        if (attempt == START_ATTEMPTS || !portTaken(e)) {
          throw e;
        }
      }
    }
  }

  private static boolean portTaken(Throwable e) {
    return e.getMessage() != null && e.getMessage().contains("address already in use");
  }

  /** A kubeconfig (context {@code local}) for the admin token. */
  public Path kubeconfig() {
    return kubeconfig;
  }

  private void startAll(Path cache) {
    int etcdPort = freePort();
    int peerPort = freePort();
    launch(
        "etcd",
        List.of(
            cache.resolve("bin/etcd").toString(),
            "--name=node0",
            "--data-dir=" + mkdirs(dir.resolve("etcd")),
            "--listen-client-urls=http://127.0.0.1:" + etcdPort,
            "--advertise-client-urls=http://127.0.0.1:" + etcdPort,
            "--listen-peer-urls=http://127.0.0.1:" + peerPort,
            "--initial-advertise-peer-urls=http://127.0.0.1:" + peerPort,
            "--initial-cluster=node0=http://127.0.0.1:" + peerPort,
            "--unsafe-no-fsync=true",
            "--log-level=warn"));
    int port = freePort();
    writeServiceAccountKeys();
    Path tokens = write("tokens.csv", TOKEN + ",admin,admin,\"system:masters\"\n");
    launch(
        "kube-apiserver",
        List.of(
            cache.resolve("bin/kube-apiserver").toString(),
            "--etcd-servers=http://127.0.0.1:" + etcdPort,
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            "--secure-port=" + port,
            "--endpoint-reconciler-type=none",
            "--cert-dir=" + mkdirs(dir.resolve("certs")),
            "--token-auth-file=" + tokens,
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file=" + dir.resolve("sa.pub"),
            "--service-account-signing-key-file=" + dir.resolve("sa.key"),
            "--service-cluster-ip-range=10.0.0.0/24",
            "--authorization-mode=RBAC",
            "--disable-admission-plugins=ServiceAccount",
            "--enable-priority-and-fairness=false",
            "--profiling=false"));
    kubeconfig =
        write(
            "kubeconfig",
            String.join(
                "\n",
                "apiVersion: v1",
                "kind: Config",
                "current-context: local",
                "clusters:",
                "- name: local",
                "  cluster:",
                "    server: https://127.0.0.1:" + port,
                "    insecure-skip-tls-verify: true",
                "users:",
                "- name: admin",
                "  user:",
                "    token: " + TOKEN,
                "contexts:",
                "- name: local",
                "  context: {cluster: local, user: admin}",
                ""));
    String kubectl = cache.resolve("bin/kubectl").toString();
    awaitReady(kubectl);
    run(
        List.of(
            kubectl,
            "--kubeconfig",
            kubeconfig.toString(),
            "apply",
            "--server-side",
            "-f",
            cache.resolve("crds").toString()));
    run(
        List.of(
            kubectl,
            "--kubeconfig",
            kubeconfig.toString(),
            "wait",
            "--for=condition=Established",
            "crd",
            "--all",
            "--timeout=" + READY.toSeconds() + "s"));
  }

  private static final int WATCH_SECONDS = 3 * 3600;

  /**
   * Ends the server when this JVM is gone, even when no shutdown hook ran (PIT halts its minion
   * JVMs): checks once a second, for at most {@link #WATCH_SECONDS}; a TERM to the watchdog ends
   * the server too. etcd can hang in its graceful stop, so a TERM is followed by a KILL after 10 s.
   */
  private static final String WATCHDOG =
      "end() { kill $child 2>/dev/null; for j in 1 2 3 4 5 6 7 8 9 10; do"
          + " kill -0 $child 2>/dev/null || exit 0; sleep 1; done; kill -9 $child 2>/dev/null; exit 0; };"
          + " jvm=$1; shift; \"$@\" & child=$!; trap end TERM INT; i=0;"
          + " while [ $i -lt "
          + WATCH_SECONDS
          + " ] && kill -0 $jvm 2>/dev/null && kill -0 $child 2>/dev/null;"
          + " do sleep 1 & wait $!; i=$((i+1)); done;"
          + " kill -0 $child 2>/dev/null || { wait $child; exit $?; }; end";

  private void launch(String name, List<String> command) {
    try {
      Path log = mkdirs(dir.resolve("logs")).resolve(name + ".log");
      List<String> watched =
          new ArrayList<>(
              List.of(
                  "bash",
                  "-c",
                  WATCHDOG,
                  "watchdog",
                  Long.toString(ProcessHandle.current().pid())));
      watched.addAll(command);
      processes.add(
          new ProcessBuilder(watched)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command.get(0), e);
    }
  }

  /** Polls {@code /readyz} through kubectl until it answers "ok", at most {@link #READY}. */
  private void awaitReady(String kubectl) {
    long deadline = System.nanoTime() + READY.toNanos();
    while (System.nanoTime() < deadline) {
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new IllegalStateException(
              "a server process exited with " + p.exitValue() + ":\n" + logTails());
        }
      }
      if (output(
              List.of(
                  kubectl,
                  "--kubeconfig",
                  kubeconfig.toString(),
                  "get",
                  "--raw=/readyz",
                  "--request-timeout=5s"))
          .filter("ok"::equals)
          .isPresent()) {
        return;
      }
      sleep(250);
    }
    throw new IllegalStateException(
        "kube-apiserver not ready after " + READY.toSeconds() + " s:\n" + logTails());
  }

  /**
   * The last 20 lines of each server log, for a failure message (the temp folder is gone
   * afterwards).
   */
  private String logTails() {
    StringBuilder out = new StringBuilder();
    try (var logs = Files.list(dir.resolve("logs"))) {
      for (Path log : logs.sorted().toList()) {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        out.append("== ")
            .append(log.getFileName())
            .append('\n')
            .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())))
            .append('\n');
      }
    } catch (IOException e) {
      out.append("(logs unreadable: ").append(e.getMessage()).append(')');
    }
    return out.toString();
  }

  /** Runs a short command to completion (bounded by {@link #READY}); fails with its output. */
  private static void run(List<String> command) {
    if (output(command).isEmpty()) {
      throw new IllegalStateException(String.join(" ", command) + " failed");
    }
  }

  /** The trimmed output of a command that exits 0 within {@link #READY}; empty otherwise. */
  private static Optional<String> output(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      boolean done = p.waitFor(READY.toSeconds(), TimeUnit.SECONDS);
      if (!done) {
        p.destroyForcibly();
        return Optional.empty();
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.exitValue() == 0 ? Optional.of(out) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * A P-256 service-account key pair as PEM: {@code sa.key} (PKCS#8) and {@code sa.pub} (X.509
   * SubjectPublicKeyInfo).
   */
  private void writeServiceAccountKeys() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(256);
      KeyPair pair = generator.generateKeyPair();
      write("sa.key", pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
      write("sa.pub", pem("PUBLIC KEY", pair.getPublic().getEncoded()));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  private Path write(String name, String text) {
    try {
      return Files.writeString(mkdirs(dir).resolve(name), text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    stop();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running
    }
  }

  /** Newest first: SIGTERM to each process tree, SIGKILL after 10 s. */
  private void stop() {
    List<Process> newestFirst = new ArrayList<>(processes);
    Collections.reverse(newestFirst);
    for (Process p : newestFirst) {
      p.descendants().forEach(ProcessHandle::destroy);
      p.destroy();
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.descendants().forEach(ProcessHandle::destroyForcibly);
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    processes.clear();
  }

  private static Path printDir(StringBuilder reason) {
    Path root =
        Path.of(System.getProperty("trainyard.repo.root", "..")).toAbsolutePath().normalize();
    try {
      Process p =
          new ProcessBuilder("bash", root.resolve("scripts/k8s-testbin").toString(), "--print-dir")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        reason.append("scripts/k8s-testbin --print-dir failed: ").append(out).append("; ");
        return null;
      }
      return Path.of(out);
    } catch (IOException e) {
      reason.append("cannot run scripts/k8s-testbin: ").append(e.getMessage()).append("; ");
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** A port free on 127.0.0.1 at the time of asking. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path mkdirs(Path p) {
    try {
      return Files.createDirectories(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
