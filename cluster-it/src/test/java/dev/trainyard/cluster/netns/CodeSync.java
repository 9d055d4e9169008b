package dev.trainyard.cluster.netns;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Plays the compiled git-sync init container with the real git CLI: its flags {@code --repo},
 * {@code --ref}, {@code --root}, {@code --link} as compiled, the repo read from the local source
 * repo that {@code --repo} stands for. git-sync v4 checks the commit out under {@code
 * <root>/.worktrees/<sha>} and points the {@code <root>/<link>} symlink at it (git-sync README
 * "--link"); the files are then owned by the init container's uid (and the pod's fsGroup), so the
 * code is writable for the runtime user.
 */
final class CodeSync {
  private final Path sourceRepo;

  CodeSync(Path sourceRepo) {
    this.sourceRepo = sourceRepo;
  }

  void play(PodSpec spec, PodVolumes volumes) {
    List<Container> inits = spec.getInitContainers() == null ? List.of() : spec.getInitContainers();
    for (Container init : inits) {
      Map<String, String> flags = flags(init);
      if (!flags.containsKey("repo")) {
        throw new IllegalArgumentException(
            "init container the harness does not know: " + init.getName());
      }
      String root = flags.get("root");
      VolumeMount mount =
          init.getVolumeMounts().stream()
              .filter(m -> m.getMountPath().equals(root))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "--root " + root + " is no mount of " + init.getName()));
      Path dir = volumes.volumeDir(mount.getName());
      String commit = ContainerEnv.expand(flags.get("ref"), env(init));
      Path worktree = dir.resolve(".worktrees").resolve(commit);
      if (!Files.exists(worktree)) {
        HostCommand.check(
            "git", "clone", "--quiet", "--no-checkout", sourceRepo.toString(), worktree.toString());
        HostCommand.check(
            "git", "-C", worktree.toString(), "checkout", "--quiet", "--detach", commit);
        link(dir.resolve(flags.get("link")), Path.of(".worktrees", commit));
      }
      long uid =
          init.getSecurityContext() != null && init.getSecurityContext().getRunAsUser() != null
              ? init.getSecurityContext().getRunAsUser()
              : 0;
      long gid =
          spec.getSecurityContext() != null && spec.getSecurityContext().getFsGroup() != null
              ? spec.getSecurityContext().getFsGroup()
              : uid;
      HostCommand.check("chown", "-R", "-h", uid + ":" + gid, dir.toString());
    }
  }

  private static Map<String, String> flags(Container init) {
    Map<String, String> flags = new HashMap<>();
    for (String arg : init.getArgs() == null ? List.<String>of() : init.getArgs()) {
      if (arg.startsWith("--") && arg.contains("=")) {
        flags.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
      }
    }
    return flags;
  }

  private static Map<String, String> env(Container init) {
    Map<String, String> env = new HashMap<>();
    if (init.getEnv() != null) {
      init.getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
    }
    return env;
  }

  private static void link(Path link, Path target) {
    try {
      Files.createSymbolicLink(link, target);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
