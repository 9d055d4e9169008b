package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The machine facts a namespace-host test needs; each missing one makes the test NOT RUN (a JUnit
 * assumption naming what is missing and how .ci/run installs it), never passed.
 */
final class HostTools {
  private HostTools() {}

  /**
   * Root, iproute2's {@code ip}, util-linux's {@code unshare}, {@code setpriv}, {@code mount}, and
   * a namespace that can be made.
   */
  static void requireNamespaces() {
    assumeTrue(
        "0".equals(HostCommand.run("id", "-u").output().trim()),
        "NOT RUN: network-namespace hosts need root (ip netns, mount); this JVM runs as uid "
            + HostCommand.run("id", "-u").output().trim());
    for (String tool : List.of("ip", "unshare", "setpriv", "mount", "ss", "git")) {
      assumeTrue(
          HostCommand.onPath(tool),
          "NOT RUN: `" + tool + "` is not installed (Debian iproute2 / util-linux / mount / git)");
    }
    String probe = HostNetwork.PREFIX + ProcessHandle.current().pid() + "-0-probe";
    HostCommand made = HostCommand.run("ip", "netns", "add", probe);
    HostCommand.run("ip", "netns", "del", probe);
    assumeTrue(
        made.exit() == 0,
        "NOT RUN: this machine does not allow network namespaces: " + made.output().trim());
  }

  /**
   * Open MPI's mpirun and OpenSSH's sshd (Debian openmpi-bin, openssh-server: .ci/run installs
   * them).
   */
  static void requireMpi() {
    requireNamespaces();
    assumeTrue(
        HostCommand.onPath("mpirun"), "NOT RUN: mpirun is not installed (Debian openmpi-bin)");
    assumeTrue(
        Files.isExecutable(Path.of("/usr/sbin/sshd")),
        "NOT RUN: /usr/sbin/sshd is not installed (Debian openssh-server)");
    assumeTrue(HostCommand.onPath("ssh"), "NOT RUN: ssh is not installed (Debian openssh-client)");
  }

  /** Debian's python3 with mpi4py (python3-mpi4py). */
  static void requireMpi4py() {
    assumeTrue(
        HostCommand.run("/usr/bin/python3", "-c", "import mpi4py").exit() == 0,
        "NOT RUN: /usr/bin/python3 has no mpi4py (Debian python3-mpi4py)");
  }

  /**
   * A venv made by scripts/python-envs ({@code <cache>/python/<name>/ready}); the assumption says
   * why it is missing (its FAILED file, or that the script did not run).
   */
  static Path requireVenv(String name) {
    Path dir = pythonEnvs().resolve(name);
    String why =
        Files.exists(dir.resolve("FAILED"))
            ? "its install failed: " + read(dir.resolve("FAILED"))
            : "scripts/python-envs has not made it (scripts/test runs it; TRAINYARD_SKIP_PYTHON_ENVS=1 skips it)";
    assumeTrue(
        Files.exists(dir.resolve("ready")), "NOT RUN: no Python environment " + dir + ": " + why);
    return dir;
  }

  /**
   * scripts/python-envs' cache root: -Dtrainyard.python.dir, else ~/.cache/trainyard/python
   * (TRAINYARD_CACHE).
   */
  static Path pythonEnvs() {
    String prop = System.getProperty("trainyard.python.dir", "");
    if (!prop.isEmpty()) {
      return Path.of(prop);
    }
    String cache = System.getenv("TRAINYARD_CACHE");
    return cache != null
        ? Path.of(cache, "python")
        : Path.of(System.getProperty("user.home"), ".cache", "trainyard", "python");
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      return e.getMessage();
    }
  }
}
