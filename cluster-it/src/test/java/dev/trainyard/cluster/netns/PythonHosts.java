package dev.trainyard.cluster.netns;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The setup the Python namespace-host ITs ({@link TorchHostsIT}, {@link JaxHostsIT}) share: the
 * machine checks and the venv from scripts/python-envs (each missing one makes the test NOT RUN,
 * {@link HostTools}), a fresh work folder per test, a compiled run's pods started on namespace
 * hosts with the venv standing in for the image's Python, and closing, newest first, everything
 * opened for the test, also after a failed assertion.
 *
 * <pre>
 * private PythonHosts hosts;
 * &#64;BeforeEach void tools() throws IOException { hosts = PythonHosts.open("torch-2.13.0", "torch"); }
 * &#64;AfterEach void close() throws Exception { hosts.close(); }
 * </pre>
 */
final class PythonHosts implements AutoCloseable {
  /** How long a script may train on these hosts (2 CPU cores shared with the rest of the build). */
  static final Duration TRAIN_TIMEOUT = Duration.ofSeconds(240);

  /** The checkout, for examples/: -Dtrainyard.repo.root, else the module's parent folder. */
  static final Path REPO_ROOT = Path.of(System.getProperty("trainyard.repo.root", ".."));

  private final Path work;
  private final Path venv;
  private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

  private PythonHosts(Path work, Path venv) {
    this.work = work;
    this.venv = venv;
  }

  /**
   * Checks the machine and the venv {@code env} (e.g. "torch-2.13.0") and names a work folder
   * {@code <prefix>-<nanos>} under {@link NetnsWork#dir()}.
   */
  static PythonHosts open(String env, String prefix) throws IOException {
    HostTools.requireNamespaces();
    Path venv = HostTools.requireVenv(env);
    return new PythonHosts(
        Files.createDirectories(NetnsWork.dir()).resolve(prefix + "-" + System.nanoTime()), venv);
  }

  /**
   * This test's work folder (not yet created): compile projects into {@code
   * work().resolve("repo")}.
   */
  Path work() {
    return work;
  }

  /** Starts every pod of replicated job {@code rjob} on its own namespace host. */
  List<RunningPod> start(CompiledProject project, String rjob) {
    return start(project, rjob, Map.of(), Optional.empty());
  }

  /**
   * As {@link #start(CompiledProject, String)}, with {@code addresses} (pod hostname → the address
   * a real cluster gave that pod, /16) and the API server as the pods see it ({@code api}).
   */
  List<RunningPod> start(
      CompiledProject project,
      String rjob,
      Map<String, String> addresses,
      Optional<PodApiAccess> api) {
    NamespaceCluster hosts =
        closeLater(
            new NamespaceCluster(
                project.run(),
                ImageStandIn.python(venv),
                work.resolve("pods"),
                project.repo(),
                addresses,
                api));
    return project.run().podsOf(rjob).stream().map(hosts::start).toList();
  }

  /**
   * Registers {@code resource} to be closed by {@link #close()}, before anything registered
   * earlier.
   */
  <T extends AutoCloseable> T closeLater(T resource) {
    toClose.push(resource);
    return resource;
  }

  @Override
  public void close() throws Exception {
    while (!toClose.isEmpty()) {
      toClose.pop().close();
    }
  }
}
