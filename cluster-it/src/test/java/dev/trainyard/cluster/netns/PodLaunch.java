package dev.trainyard.cluster.netns;

import dev.trainyard.cluster.netns.PodVolumes.Mount;
import io.fabric8.kubernetes.api.model.Container;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Starts one pod's main container: {@code setsid ip netns exec <host> unshare --mount --uts
 * --propagation private} runs a root shell that sets the hostname, binds the pod's hosts, passwd
 * and group files over /etc, stages the image's software (so no later mount hides its source),
 * mounts a private /tmp and /run, mounts the volumes (parents first; read-only ones remounted
 * read-only last), binds the image's software at its own path, and then {@code exec}s {@code
 * setpriv} (uid, gid, fsGroup as supplementary group) and {@code env -i -C <workingDir>} with
 * exactly the container's env, command and args. Every word the shell sees is single-quoted. {@code
 * setsid} gives each pod a session and process group of its own, as a container's own PID namespace
 * does: without it every pod shares the test JVM's process group, and a signal one pod's processes
 * send to their group (Open MPI's mpirun on SIGTERM, seen in MpiCheckpointHostsIT) would reach the
 * other pods.
 */
final class PodLaunch {
  /** The identity the container runs as. */
  record User(long uid, long gid, Optional<Long> fsGroup) {}

  private final String hostname;
  private final Path podDir;
  private final Path hostsFile;
  private final ImageStandIn image;
  private final List<Mount> mounts;

  PodLaunch(String hostname, Path podDir, Path hostsFile, ImageStandIn image, List<Mount> mounts) {
    this.hostname = hostname;
    this.podDir = podDir;
    this.hostsFile = hostsFile;
    this.image = image;
    this.mounts = mounts;
  }

  RunningPod start(HostNetwork.Host host, Container container, User user, Map<String, String> env) {
    List<String> argv = new ArrayList<>();
    Stream.concat(list(container.getCommand()), list(container.getArgs()))
        .map(word -> ContainerEnv.expand(word, env))
        .forEach(argv::add);
    if (argv.isEmpty()) {
      throw new IllegalArgumentException(
          hostname + ": no command; the harness cannot run an image entrypoint");
    }
    String script = setupScript(user) + "exec " + exec(user, container, env, argv) + "\n";
    Path log = podDir.resolve("output.log");
    write(podDir.resolve("setup.sh"), script);
    ProcessBuilder pb =
        new ProcessBuilder(
            "setsid",
            "ip",
            "netns",
            "exec",
            host.netns(),
            "unshare",
            "--mount",
            "--uts",
            "--propagation",
            "private",
            "--",
            "/bin/bash",
            "-c",
            script);
    pb.environment().clear();
    pb.environment().put("PATH", ImageStandIn.PATH);
    pb.redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    try {
      return new RunningPod(hostname, host, pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String setupScript(User user) {
    StringBuilder s = new StringBuilder("set -e\n");
    s.append("hostname ").append(q(hostname)).append('\n');
    for (Map.Entry<String, Path> file :
        Map.of(
                "/etc/hosts",
                hostsFile,
                "/etc/passwd",
                write(podDir.resolve("passwd"), passwd()),
                "/etc/group",
                write(podDir.resolve("group"), group()))
            .entrySet()) {
      s.append("mount --bind ")
          .append(q(file.getValue().toString()))
          .append(' ')
          .append(file.getKey())
          .append('\n');
    }
    // The image's software is first bound at a staging folder, before anything is mounted: a volume
    // over
    // its parent (an emptyDir at /root) or the private /tmp (a TRAINYARD_CACHE under /tmp) would
    // hide it.
    List<Path> staged = new ArrayList<>();
    for (Path software : image.software()) {
      staged.add(podDir.resolve("software").resolve(Integer.toString(staged.size())));
      bind(s, software, staged.get(staged.size() - 1).toString());
    }
    // A container's own /tmp and /run (with the privilege-separation folder Debian's openssh-server
    // keeps
    // there), before the volumes: one may be mounted under /run (the service-account token).
    s.append("mount -t tmpfs -o mode=1777 tmpfs /tmp\n");
    s.append("mount -t tmpfs -o mode=755 tmpfs /run\nmkdir -m 755 /run/sshd\n");
    for (Mount m : mounts) {
      if (m.source().isPresent()) {
        bind(s, m.source().get(), m.target());
      } else {
        s.append("mkdir -p ").append(q(m.target())).append('\n');
        s.append("mount -t tmpfs -o ")
            .append(q(m.tmpfsOptions()))
            .append(" tmpfs ")
            .append(q(m.target()))
            .append('\n');
      }
    }
    for (int i = 0; i < staged.size(); i++) {
      bind(s, staged.get(i), image.software().get(i).toString());
    }
    mounts.stream()
        .filter(Mount::readOnly)
        .forEach(m -> s.append("mount -o remount,bind,ro ").append(q(m.target())).append('\n'));
    return s.toString();
  }

  /** {@code mkdir -p target; mount --bind source target}. */
  private static void bind(StringBuilder s, Path source, String target) {
    s.append("mkdir -p ").append(q(target)).append('\n');
    s.append("mount --bind ")
        .append(q(source.toString()))
        .append(' ')
        .append(q(target))
        .append('\n');
  }

  private static String exec(
      User user, Container container, Map<String, String> env, List<String> argv) {
    List<String> words =
        new ArrayList<>(List.of("setpriv", "--reuid=" + user.uid(), "--regid=" + user.gid()));
    words.add(user.fsGroup().map(g -> "--groups=" + g).orElse("--clear-groups"));
    words.addAll(
        List.of(
            "--",
            "env",
            "-i",
            "-C",
            container.getWorkingDir() == null ? "/" : container.getWorkingDir()));
    env.forEach((k, v) -> words.add(k + "=" + v));
    words.addAll(argv);
    return words.stream().map(PodLaunch::q).collect(Collectors.joining(" "));
  }

  /**
   * The machine's accounts, with the image's runtime user in place of any account of the same uid
   * or name.
   */
  private String passwd() {
    List<String> lines = lines(Path.of("/etc/passwd"));
    if (image.passwdLine().isEmpty()) {
      return String.join("\n", lines) + "\n";
    }
    String[] user = image.passwdLine().get().split(":");
    List<String> kept =
        new ArrayList<>(lines.stream().filter(l -> !clashes(l, user[0], user[2])).toList());
    kept.add(image.passwdLine().get());
    return String.join("\n", kept) + "\n";
  }

  private String group() {
    List<String> lines = lines(Path.of("/etc/group"));
    if (image.passwdLine().isEmpty()) {
      return String.join("\n", lines) + "\n";
    }
    String[] user = image.passwdLine().get().split(":");
    List<String> kept =
        new ArrayList<>(lines.stream().filter(l -> !clashes(l, user[0], user[3])).toList());
    kept.add(user[0] + ":x:" + user[3] + ":");
    return String.join("\n", kept) + "\n";
  }

  private static boolean clashes(String line, String name, String id) {
    String[] f = line.split(":");
    return f.length > 2 && (f[0].equals(name) || f[2].equals(id));
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Stream<String> list(List<String> words) {
    return words == null ? Stream.empty() : words.stream();
  }

  private static Path write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      return Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Single-quotes {@code word} for bash. */
  static String q(String word) {
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
