package dev.trainyard.cluster.netns;

import java.nio.file.Path;

/**
 * Where the namespace hosts keep their pods' files: {@code target/cluster/netns} of the module,
 * unless the checkout lives under {@code /tmp}. Every pod mounts a private tmpfs over {@code /tmp}
 * (PodLaunch), which would hide volume sources kept there, so such a checkout uses {@code
 * /var/tmp/trainyard-netns} instead.
 */
final class NetnsWork {
  private NetnsWork() {}

  /** The folder (not yet created) for the pods' files. */
  static Path dir() {
    Path local =
        Path.of(System.getProperty("trainyard.work.dir", "target/cluster"), "netns")
            .toAbsolutePath()
            .normalize();
    boolean hidden =
        local.startsWith("/tmp") || local.startsWith("/run") || local.startsWith("/var/run");
    return hidden ? Path.of("/var/tmp/trainyard-netns") : local;
  }
}
