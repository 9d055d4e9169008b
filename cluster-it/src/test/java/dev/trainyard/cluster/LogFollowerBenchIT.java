package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.forge.FakeForge;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The log follower's benchmark (a measurement, run with {@code -Dtrainyard.bench=true}; issue #20's
 * target: under 1 core and 256 MiB of heap): {@code trainyard.bench.logs.runs} (default 1,000)
 * running runs, each one pod whose log kwok serves from a file ({@link KwokLogs}) that this test
 * appends {@code trainyard.bench.logs.rate} (default 10) "step N/M loss X" lines a second to. The
 * JobSets carry {@code spec.managedBy} (the JobSet controller leaves them alone) and their pods are
 * created here, bound to a kwok node, where kwok keeps them Running and Ready; the controller, as
 * its own process, sees each run RUNNING and follows its rank 0 log through the API server. Over
 * {@code trainyard.bench.logs.seconds} (default 60) it prints the controller's CPU (from /proc:
 * user + system time of the whole JVM: informers, reconciler and posts too, so an upper bound for
 * the follower) and heap after a full GC, then the same for one {@code kubectl logs -f} following
 * the same pods ({@code -l … --max-log-requests=N}, the kubectl of the k8s cache), side by side
 * with the load average.
 */
@ExtendWith(KubeClusterExtension.class)
class LogFollowerBenchIT {

  static final String BENCH = "trainyard.dev/bench-log";
  static final long TICKS = 100; // USER_HZ: /proc's clock ticks per second on Linux (x86, arm64)

  @Test
  @DisplayName(
      "benchmark: the log follower's CPU and heap with 1,000 running runs printing 10 lines/s,"
          + " beside kubectl logs -f of the same pods")
  void benchmark(KubeCluster cluster) throws Exception {
    assumeTrue(
        Boolean.getBoolean("trainyard.bench"),
        "NOT RUN: benchmark not requested (-Dtrainyard.bench=true)");
    assumeTrue(
        cluster.runs(Component.KWOK) && KwokLogs.served(cluster.client()),
        "NOT RUN: kwok's Logs CRD is not served (no container logs to follow)");
    int runs = Integer.getInteger("trainyard.bench.logs.runs", 1_000);
    int rate = Integer.getInteger("trainyard.bench.logs.rate", 10);
    Duration window = Duration.ofSeconds(Integer.getInteger("trainyard.bench.logs.seconds", 60));
    String ns = cluster.newNamespace();
    String tag = "logbench";
    Path dir =
        LocalCluster.mkdirs(
            Path.of(System.getProperty("trainyard.work.dir", "target/cluster"))
                .toAbsolutePath()
                .resolve("kwok-logs")
                .resolve(ns));
    List<FileChannel> files = new ArrayList<>();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicLong written = new AtomicLong();
    AtomicLong payload = new AtomicLong();
    ExecutorService writer = Executors.newSingleThreadExecutor();
    try (InotifyInstances raised = InotifyInstances.atLeast(2 * runs + 512);
        FakeForge forge = FakeForge.start();
        ControllerProcess c =
            ControllerProcess.start(
                cluster,
                forge,
                tag,
                ns,
                tag + "-0",
                new ControllerProcess.Tuning(
                    Duration.ofHours(1), Duration.ofSeconds(60), "512m", Duration.ofHours(1)))) {
      System.out.printf("[logbench] load average at start: %s%n", loadAverage());
      Instant t0 = Instant.now();
      for (int i = 0; i < runs; i++) {
        Path file = logFile(dir, i);
        files.add(
            FileChannel.open(
                file,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.APPEND));
        KwokLogs.append(file, Instant.now(), "starting run " + i);
      }
      create(cluster, ns, runs, dir, ControllerProcess.host("github", tag));
      System.out.printf(
          "[logbench] created %d runs (JobSet, pod, Logs) in %d ms%n",
          runs, Duration.between(t0, Instant.now()).toMillis());
      Future<?> lines = writer.submit(() -> write(files, rate, writing, written, payload));
      Eventually.await(
          "the controller follows " + runs + " logs",
          Duration.ofMinutes(20),
          () -> followed(c) >= runs,
          () -> "followed " + followed(c) + "\n" + c.log());
      Eventually.sleep(Duration.ofSeconds(10));
      double read0 = Double.parseDouble(metric(c, "trainyard_log_bytes_read"));
      long bytes0 = payload.get();
      Measure controller = measure(javaPid(tag + "-0"), window, written);
      double read = Double.parseDouble(metric(c, "trainyard_log_bytes_read")) - read0;
      long bytes = payload.get() - bytes0;
      long heap = c.heapAfterGc();
      String dropped = metric(c, "trainyard_log_bytes_dropped");
      System.out.printf(
          "[logbench] controller following %d logs at %d lines/s each: %.2f cores (target < 1: %s),"
              + " heap after GC %.1f MiB (target < 256 MiB: %s), %d lines written in %d s, bytes"
              + " dropped over budget %s%n",
          runs,
          rate,
          controller.cores(),
          controller.cores() < 1 ? "met" : "MISSED",
          heap / 1048576.0,
          heap > 0 && heap < 256L * 1048576 ? "met" : "MISSED",
          controller.lines(),
          window.toSeconds(),
          dropped);
      System.out.printf(
          "[logbench] the follower read %.0f bytes of the %d written in the window (log lines"
              + " without kwok's CRI prefix: %.1f %%)%n",
          read, bytes, bytes == 0 ? 0 : 100 * read / bytes);
      System.out.printf("[logbench] load average after the controller window: %s%n", loadAverage());
      Measure kubectl = kubectlLogs(cluster, ns, runs, window, written);
      System.out.printf(
          "[logbench] kubectl logs -f -l %s --max-log-requests=%d (same pods): %.2f cores, peak RSS"
              + " %.1f MiB, %d lines received in %d s%n",
          BENCH,
          runs,
          kubectl.cores(),
          kubectl.peakRss() / 1048576.0,
          kubectl.received(),
          window.toSeconds());
      System.out.printf("[logbench] load average at end: %s%n", loadAverage());
      assertTrue(heap > 0, "the controller's /metrics gave no heap figure");
      assertTrue(
          read > 0.5 * bytes,
          "the follower read " + read + " of " + bytes + " bytes: it did not follow every log");
      assertTrue(kubectl.received() > 0, "kubectl received no line: it followed nothing");
      writing.set(false);
      lines.get(30, TimeUnit.SECONDS);
    } finally {
      writing.set(false);
      writer.shutdownNow();
      for (FileChannel f : files) {
        f.close();
      }
    }
  }

  /**
   * Raises {@code fs.inotify.max_user_instances} for the benchmark and puts it back when closed.
   * kwok serves a followed log through {@code k8s.io/cri-client}'s {@code ReadLogs}, as the kubelet
   * does, which makes one fsnotify (inotify) instance per follow: with the common default of 128
   * per user, only about a hundred of the 1,000 logs stream and the rest end at once (measured: the
   * follower read 5.6 % of what was written, and a JobSet controller started meanwhile failed with
   * "too many open files"). A real node serves a few pods' logs; this one kwok serves them all.
   */
  record InotifyInstances(long before) implements AutoCloseable {
    static final Path LIMIT = Path.of("/proc/sys/fs/inotify/max_user_instances");

    static InotifyInstances atLeast(long wanted) throws IOException {
      long before = read();
      if (before < wanted) {
        try {
          Files.writeString(LIMIT, Long.toString(wanted));
        } catch (IOException e) {
          assumeTrue(
              false,
              "NOT RUN: fs.inotify.max_user_instances is "
                  + before
                  + ", kwok needs one per followed log ("
                  + wanted
                  + "), and it cannot be raised here: "
                  + e);
        }
      }
      System.out.printf(
          "[logbench] fs.inotify.max_user_instances %d -> %d%n", before, Math.max(before, wanted));
      return new InotifyInstances(before);
    }

    /**
     * The limit, read in one call: this kernel answers a procfs read at offset 1 with end of file,
     * so {@code Files.readString} (which reads one byte first for a file whose size is 0) gave "1"
     * of "128".
     */
    static long read() throws IOException {
      try (InputStream in = Files.newInputStream(LIMIT)) {
        return Long.parseLong(new String(in.readNBytes(64), StandardCharsets.US_ASCII).strip());
      }
    }

    @Override
    public void close() throws IOException {
      if (read() != before) {
        Files.writeString(LIMIT, Long.toString(before));
      }
    }
  }

  /** CPU over a window: cores used, peak resident set (bytes), lines written and received. */
  record Measure(double cores, long peakRss, long lines, long received) {}

  /** {@code pid}'s CPU over {@code window}, and the lines written meanwhile. */
  static Measure measure(long pid, Duration window, AtomicLong written) {
    long cpu0 = cpuTicks(pid);
    long lines0 = written.get();
    long t0 = System.nanoTime();
    Eventually.sleep(window);
    double seconds = (System.nanoTime() - t0) / 1e9;
    return new Measure(
        (cpuTicks(pid) - cpu0) / (double) TICKS / seconds, peakRss(pid), written.get() - lines0, 0);
  }

  /**
   * One {@code kubectl logs -f} following every bench pod of {@code ns}, measured over {@code
   * window} once it received a line from each pod's tail; its output is counted, not kept.
   */
  static Measure kubectlLogs(
      KubeCluster cluster, String ns, int runs, Duration window, AtomicLong written)
      throws IOException, InterruptedException {
    Path stderr = Files.createTempFile("kubectl-logs", ".err");
    Process p =
        new ProcessBuilder(
                K8sBinaries.locate().bin("kubectl").toString(),
                "--kubeconfig=" + cluster.kubeconfig(),
                "logs",
                "-f",
                "-n",
                ns,
                "-l",
                BENCH + "=1",
                "--max-log-requests=" + runs,
                "--tail=1")
            .redirectError(stderr.toFile())
            .start();
    AtomicLong received = new AtomicLong();
    Thread drain =
        new Thread(
            () -> {
              byte[] buf = new byte[64 * 1024];
              try (InputStream in = p.getInputStream()) {
                for (int n; (n = in.read(buf)) > 0; ) {
                  for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                      received.incrementAndGet();
                    }
                  }
                }
              } catch (IOException e) {
                // kubectl was stopped.
              }
            },
            "kubectl-drain");
    drain.setDaemon(true);
    drain.start();
    try {
      Eventually.await(
          "kubectl follows " + runs + " pods",
          Duration.ofMinutes(5),
          () -> {
            if (!p.isAlive()) {
              throw new IllegalStateException(
                  "kubectl exited with " + p.exitValue() + ": " + tail(stderr));
            }
            return received.get() >= runs;
          });
      long before = received.get();
      Measure m;
      try {
        m = measure(p.pid(), window, written);
      } catch (UncheckedIOException e) {
        p.waitFor(10, TimeUnit.SECONDS);
        throw new IllegalStateException(
            "kubectl ended during the window"
                + (p.isAlive() ? "" : " with exit code " + p.exitValue())
                + " after "
                + (received.get() - before)
                + " lines: "
                + tail(stderr),
            e);
      }
      return new Measure(m.cores(), m.peakRss(), m.lines(), received.get() - before);
    } finally {
      Files.deleteIfExists(stderr);
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
      p.destroyForcibly();
    }
  }

  /**
   * Run {@code i}'s log file, alone in its folder as the kubelet keeps it ({@code
   * /var/log/pods/NS_POD_UID/CONTAINER/0.log}): cri-client's {@code ReadLogs}, which kwok serves
   * through, watches the file's folder, so with 1,000 logs in one folder each follow's inotify
   * queue got every file's writes and overflowed ("fsnotify: queue or buffer overflow", half the
   * lines never served).
   */
  static Path logFile(Path dir, int i) {
    return LocalCluster.mkdirs(dir.resolve("run-" + i)).resolve("0.log");
  }

  /** The last 2,000 characters of {@code file}. */
  static String tail(Path file) {
    try {
      String text = Files.readString(file);
      return text.substring(Math.max(0, text.length() - 2000));
    } catch (IOException e) {
      return "(" + e + ")";
    }
  }

  /** Appends one "step" line to each file {@code rate} times a second until told to stop. */
  static void write(
      List<FileChannel> files,
      int rate,
      AtomicBoolean writing,
      AtomicLong written,
      AtomicLong payload) {
    long period = 1_000_000_000L / rate;
    long next = System.nanoTime();
    long step = 0;
    while (writing.get()) {
      step++;
      String at = Instant.now().toString();
      String message = "step " + step + "/100000 loss 0." + (step % 97) + "\n";
      for (FileChannel f : files) {
        String line = at + " stdout F " + message;
        try {
          f.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      written.addAndGet(files.size());
      payload.addAndGet((long) files.size() * message.getBytes(StandardCharsets.UTF_8).length);
      next += period;
      long sleep = next - System.nanoTime();
      if (sleep > 0) {
        LockSupport.parkNanos(sleep);
      }
    }
  }

  /**
   * {@code runs} JobSets (managed by nobody: {@code spec.managedBy}), each with one pod bound to a
   * kwok node and a Logs object serving {@code dir/run-i.log}; created by 4 threads.
   */
  static void create(KubeCluster cluster, String ns, int runs, Path dir, String host)
      throws Exception {
    var api = JobSets.api(cluster.client()).inNamespace(ns);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int first = w;
        done.add(
            pool.submit(
                () -> {
                  for (int i = first; i < runs; i += 4) {
                    String name = "logbench-" + i;
                    api.resource(jobSet(name, host)).create();
                    String pod = name + "-node-0-0";
                    cluster.client().resource(pod(ns, name, pod, "kwok-cpu-" + (i % 2))).create();
                    KwokLogs.serve(cluster.client(), ns, pod, "node", logFile(dir, i));
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(20, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** A one-node JobSet no controller manages, posting to {@code host}'s forge. */
  static GenericKubernetesResource jobSet(String name, String host) {
    GenericKubernetesResource js =
        StatusRuns.run(name, host, StatusRuns.sha(name), "slow", null, null);
    @SuppressWarnings("unchecked")
    Map<String, Object> spec = (Map<String, Object>) js.getAdditionalProperties().get("spec");
    spec.put("managedBy", StatusControllerBenchIT.MANAGED_BY);
    for (Map<String, Object> rjob : JobSets.replicatedJobs(js)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> jobSpec =
          (Map<String, Object>) ((Map<String, Object>) rjob.get("template")).get("spec");
      jobSpec.put("parallelism", 1);
      jobSpec.put("completions", 1);
    }
    return js;
  }

  /** Node 0's pod of {@code run}, bound to {@code node}, where kwok keeps it Running. */
  static Pod pod(String ns, String run, String name, String node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ns)
        .addToLabels("jobset.sigs.k8s.io/jobset-name", run)
        .addToLabels("jobset.sigs.k8s.io/restart-attempt", "0")
        .addToLabels(BENCH, "1")
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("node")
        .withImage("busybox:1.37")
        .endContainer()
        .endSpec()
        .build();
  }

  static int followed(ControllerProcess c) {
    String v = metric(c, "trainyard_logs_followed");
    return v.isEmpty() ? 0 : (int) Double.parseDouble(v);
  }

  /** The value of the metric line {@code name} on /metrics, "" without it. */
  static String metric(ControllerProcess c, String name) {
    return c.metrics()
        .lines()
        .filter(l -> l.startsWith(name + " "))
        .map(l -> l.substring(name.length() + 1).strip())
        .findFirst()
        .orElse("");
  }

  /**
   * The controller JVM's pid: the process whose command line holds {@code --identity=ID}
   * (ClusterProcess may start it through a wrapper whose pid is not the JVM's).
   */
  static long javaPid(String identity) throws IOException {
    try (var dirs = Files.list(Path.of("/proc"))) {
      return dirs.filter(d -> d.getFileName().toString().matches("\\d+"))
          .filter(
              d -> {
                try {
                  String cmd = Files.readString(d.resolve("cmdline")).replace('\0', ' ');
                  return cmd.contains("ControllerMain") && cmd.contains("--identity=" + identity);
                } catch (IOException e) {
                  return false;
                }
              })
          .mapToLong(d -> Long.parseLong(d.getFileName().toString()))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("no controller JVM " + identity));
    }
  }

  /** utime + stime of {@code pid} in clock ticks (/proc/PID/stat fields 14 and 15). */
  static long cpuTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** VmHWM of {@code pid} (peak resident set) in bytes, -1 when unknown. */
  static long peakRss(long pid) {
    try {
      return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
          .filter(l -> l.startsWith("VmHWM:"))
          .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024)
          .findFirst()
          .orElse(-1L);
    } catch (IOException e) {
      return -1;
    }
  }

  static String loadAverage() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).trim();
  }
}
