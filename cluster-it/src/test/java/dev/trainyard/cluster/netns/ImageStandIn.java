package dev.trainyard.cluster.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What a pod's container image would give the process and the harness takes from this machine
 * instead: the image's {@code ENV}, its user account (the runtime images' {@code mpiuser}, uid
 * 1000, home {@code /home/mpiuser}: mpi-operator build/base/Dockerfile, trainer
 * cmd/runtimes/deepspeed/Dockerfile) and the folders of its software (a Python venv), bound at
 * their own paths after the pod's volumes, so a volume does not hide them (the torch image keeps
 * Python in /opt/conda, outside every volume).
 *
 * @param env the image's ENV, before the container's env
 * @param passwdLine the image's {@code /etc/passwd} line for the runtime user, when it is not root
 * @param software host folders the process needs at the same path
 */
record ImageStandIn(Map<String, String> env, Optional<String> passwdLine, List<Path> software) {
  static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  /**
   * NVIDIA CUDA images' value (nvidia/cuda Dockerfiles: ENV LD_LIBRARY_PATH); the ranks need it to
   * find the driver.
   */
  static final String CUDA_LD_LIBRARY_PATH = "/usr/local/nvidia/lib:/usr/local/nvidia/lib64";

  ImageStandIn {
    env = Map.copyOf(env);
    software = List.copyOf(software);
  }

  /**
   * An Open MPI + sshd image such as mpioperator/openmpi: Debian's Open MPI and OpenSSH, user
   * mpiuser, a CUDA-style {@code LD_LIBRARY_PATH} and a node-level {@code NCCL_SOCKET_IFNAME}, as
   * GPU images and platforms set them.
   */
  static ImageStandIn openMpi() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", PATH);
    env.put("LD_LIBRARY_PATH", CUDA_LD_LIBRARY_PATH);
    env.put("NCCL_SOCKET_IFNAME", "eth0");
    return new ImageStandIn(
        env, Optional.of("mpiuser:x:1000:1000::/home/mpiuser:/bin/bash"), List.of());
  }

  /** The same Open MPI image run as root: no image user. */
  static ImageStandIn openMpiRoot() {
    return new ImageStandIn(openMpi().env(), Optional.empty(), List.of());
  }

  /**
   * A root image whose Python is the venv {@code venv} (first on PATH, as /opt/conda/bin in
   * pytorch/pytorch), with the interpreter installation the venv points at ({@code pyvenv.cfg}
   * {@code home}).
   */
  static ImageStandIn python(Path venv) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", venv.resolve("bin") + ":" + PATH);
    env.put("LD_LIBRARY_PATH", CUDA_LD_LIBRARY_PATH);
    List<Path> software = new ArrayList<>(List.of(venv));
    interpreterPrefix(venv).filter(p -> !p.equals(Path.of("/usr"))).ifPresent(software::add);
    baseVenv(venv).ifPresent(software::add);
    return new ImageStandIn(env, Optional.empty(), software);
  }

  /**
   * The venv a layered venv of scripts/python-envs sees through its {@code base-env.pth} (one line:
   * the base's site-packages, {@code <base>/lib/pythonX.Y/site-packages}), so the pod has it too.
   */
  private static Optional<Path> baseVenv(Path venv) {
    try (Stream<Path> pth =
        Files.find(venv.resolve("lib"), 3, (p, a) -> p.endsWith("base-env.pth"))) {
      Optional<Path> file = pth.findFirst();
      if (file.isEmpty()) {
        return Optional.empty();
      }
      Path site = Path.of(Files.readString(file.get()).strip());
      return Optional.of(site.getParent().getParent().getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The installation prefix of the venv's base interpreter: the parent of pyvenv.cfg's {@code
   * home}.
   */
  private static Optional<Path> interpreterPrefix(Path venv) {
    try {
      return Files.readAllLines(venv.resolve("pyvenv.cfg")).stream()
          .filter(l -> l.startsWith("home = "))
          .findFirst()
          .map(l -> Path.of(l.substring("home = ".length()).trim()).getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The same image with one more ENV entry. */
  ImageStandIn withEnv(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(env);
    more.put(name, value);
    return new ImageStandIn(more, passwdLine, software);
  }
}
