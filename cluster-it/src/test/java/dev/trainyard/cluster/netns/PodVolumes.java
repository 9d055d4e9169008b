package dev.trainyard.cluster.netns;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Makes a pod's volumes as folders of this machine, with the kubelet's ownership and modes:
 *
 * <ul>
 *   <li>ConfigMap and Secret: one file per key (or per {@code items} entry at its {@code path}),
 *       mode {@code items[].mode}, else {@code defaultMode}, else 0644; owner root; with a pod
 *       {@code fsGroup} the group is fsGroup and the read-only mask 0440 is ORed in (kubernetes
 *       pkg/volume/volume_linux.go {@code changeFilePermission}; why a 0600 key turns 0640 under
 *       fsGroup: kubernetes#57923);
 *   <li>emptyDir: a folder 0777 (setgid and group fsGroup with an fsGroup); {@code medium: Memory}
 *       a tmpfs of {@code sizeLimit};
 *   <li>persistentVolumeClaim: one folder per claim, shared by every pod of the run (a
 *       ReadWriteMany volume).
 * </ul>
 *
 * Only the volume kinds the compiler emits are known; any other fails the test.
 */
final class PodVolumes {
  /**
   * A mount of the main container: a host folder bound at {@code target}, or a tmpfs when source is
   * empty.
   */
  record Mount(String target, Optional<Path> source, String tmpfsOptions, boolean readOnly) {}

  private final PodSpec spec;
  private final CompiledRun run;
  private final Path podDir;
  private final Path claimsDir;
  private final Optional<Long> fsGroup;

  PodVolumes(PodSpec spec, CompiledRun run, Path podDir, Path claimsDir) {
    this.spec = spec;
    this.run = run;
    this.podDir = podDir;
    this.claimsDir = claimsDir;
    this.fsGroup = Optional.ofNullable(spec.getSecurityContext()).map(sc -> sc.getFsGroup());
  }

  /** The folder that holds volume {@code name} (made on first use). */
  Path volumeDir(String name) {
    Volume volume =
        spec.getVolumes().stream()
            .filter(v -> v.getName().equals(name))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no volume " + name));
    if (volume.getPersistentVolumeClaim() != null) {
      return directory(claimsDir.resolve(volume.getPersistentVolumeClaim().getClaimName()), 0777);
    }
    return podDir.resolve("volumes").resolve(name);
  }

  /** Writes every volume and returns the main container's mounts, parents before children. */
  List<Mount> materialize(Container container) {
    for (Volume volume : spec.getVolumes()) {
      write(volume);
    }
    List<VolumeMount> mounts = new ArrayList<>(container.getVolumeMounts());
    mounts.sort(Comparator.comparingInt(m -> Path.of(m.getMountPath()).getNameCount()));
    List<Mount> out = new ArrayList<>();
    for (VolumeMount m : mounts) {
      if (m.getSubPath() != null && !m.getSubPath().isEmpty()) {
        throw new IllegalArgumentException("subPath mounts are not emitted by the compiler: " + m);
      }
      Volume volume =
          spec.getVolumes().stream()
              .filter(v -> v.getName().equals(m.getName()))
              .findFirst()
              .orElseThrow();
      boolean readOnly = Boolean.TRUE.equals(m.getReadOnly());
      if (volume.getEmptyDir() != null && "Memory".equals(volume.getEmptyDir().getMedium())) {
        String size =
            volume.getEmptyDir().getSizeLimit() == null
                ? "64m"
                : volume
                    .getEmptyDir()
                    .getSizeLimit()
                    .toString()
                    .replace("Gi", "g")
                    .replace("Mi", "m");
        out.add(new Mount(m.getMountPath(), Optional.empty(), "mode=1777,size=" + size, false));
      } else {
        out.add(new Mount(m.getMountPath(), Optional.of(volumeDir(m.getName())), "", readOnly));
      }
    }
    return out;
  }

  private void write(Volume volume) {
    Path dir = podDir.resolve("volumes").resolve(volume.getName());
    if (volume.getConfigMap() != null) {
      var cm = volume.getConfigMap();
      keyFiles(
          dir,
          run.configMaps().get(cm.getName()),
          cm.getItems(),
          cm.getDefaultMode(),
          "ConfigMap " + cm.getName());
    } else if (volume.getSecret() != null) {
      var s = volume.getSecret();
      keyFiles(
          dir,
          run.secrets().get(s.getSecretName()),
          s.getItems(),
          s.getDefaultMode(),
          "Secret " + s.getSecretName());
    } else if (volume.getEmptyDir() != null) {
      directory(dir, fsGroup.isPresent() ? 02777 : 0777);
    } else if (volume.getPersistentVolumeClaim() == null) {
      throw new IllegalArgumentException("volume kind the harness does not know: " + volume);
    }
  }

  private void keyFiles(
      Path dir, Map<String, byte[]> data, List<KeyToPath> items, Integer defaultMode, String what) {
    if (data == null) {
      throw new IllegalArgumentException(what + " is not in the compiled tree");
    }
    directory(dir, 0755);
    int mode = defaultMode == null ? 0644 : defaultMode;
    if (items == null || items.isEmpty()) {
      data.forEach((key, bytes) -> file(dir.resolve(key), bytes, mode));
      return;
    }
    for (KeyToPath item : items) {
      byte[] bytes = data.get(item.getKey());
      if (bytes == null) {
        throw new IllegalArgumentException(what + " has no key " + item.getKey());
      }
      file(dir.resolve(item.getPath()), bytes, item.getMode() == null ? mode : item.getMode());
    }
  }

  private void file(Path file, byte[] bytes, int mode) {
    try {
      Files.createDirectories(file.getParent());
      Files.write(file, bytes);
      Files.setAttribute(file, "unix:uid", 0);
      Files.setAttribute(file, "unix:gid", fsGroup.map(Long::intValue).orElse(0));
      Files.setAttribute(file, "unix:mode", fsGroup.isPresent() ? mode | 0440 : mode);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path directory(Path dir, int mode) {
    try {
      Files.createDirectories(dir);
      fsGroup.ifPresent(g -> setGroup(dir, g.intValue()));
      Files.setAttribute(dir, "unix:mode", mode);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void setGroup(Path path, int gid) {
    try {
      Files.setAttribute(path, "unix:gid", gid);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
