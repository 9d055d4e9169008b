package dev.trainyard.compiler.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A platform-owned runtime, loaded from {@code runtimes/<name>/<version>/runtime.yaml} (built into
 * the jar, or from the GitOps repo's {@code runtimes/} folder, which overrides and adds). Versions
 * are immutable: a change is a new version.
 *
 * <pre>
 * apiVersion: trainyard.dev/v1
 * kind: Runtime
 * name: torch
 * version: 2.9.1-1
 * framework: torch
 * image: docker.io/pytorch/pytorch:2.9.1-cuda12.8-cudnn9-runtime
 * packages: [torch==2.9.1]
 * resources: {gpus: 0, cpu: "4", memory: 16Gi}
 * python: "3.12"
 * cuda: {version: "13.0", driverFloor: 580}
 * user: {uid: 0, home: /root, imageOwnsHome: false}
 * podSecurity: baseline
 * setup: python -c 'import kubernetes' 2&gt;/dev/null || pip install kubernetes==37.0.2
 * jobset: {...}   # JobSet skeleton; string values may hold Pebble expressions
 * </pre>
 *
 * @param name runtime name, a DNS-1123 label
 * @param version version string, e.g. {@code 2.9.1-1}
 * @param description one line for {@code trainyard runtimes list}
 * @param framework which plugin renders it
 * @param image the pinned container image
 * @param packages what the image provides, for {@code trainyard runtimes show}
 * @param contents the image's Python and CUDA, for {@code runtimes show} and the GPU start-up check
 * @param resources per-node defaults
 * @param user the uid the containers run as and its home folder
 * @param security the Pod Security level the pods meet and the capabilities they keep
 * @param setup shell the runtime runs on every node before the user's {@code setup} ("" for none),
 *     e.g. installing a package the image lacks; platform text, never user text
 * @param mpi MPI settings, present exactly when the framework uses MPI
 * @param skeleton the JobSet skeleton ({@code metadata}, {@code spec.replicatedJobs[]} by name)
 * @param digest {@code sha256:<hex>} over the definition's canonical form, stamped into provenance
 * @param origin where it was loaded from ({@code builtin:torch/2.9.1-1/runtime.yaml} or a file
 *     path)
 */
public record RuntimeDefinition(
    String name,
    String version,
    String description,
    Framework framework,
    String image,
    List<String> packages,
    ImageContents contents,
    RuntimeResources resources,
    RuntimeUser user,
    PodSecurity security,
    String setup,
    Optional<MpiSettings> mpi,
    ObjectNode skeleton,
    String digest,
    String origin) {

  public RuntimeDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(framework, "framework");
    Objects.requireNonNull(image, "image");
    Objects.requireNonNull(contents, "contents");
    Objects.requireNonNull(security, "security");
    Objects.requireNonNull(setup, "setup");
    packages = List.copyOf(packages);
    skeleton = skeleton.deepCopy();
  }

  /** {@code name@version}, as written in provenance and {@code train.yaml}. */
  public String ref() {
    return name + "@" + version;
  }

  /** A defensive copy of the skeleton: callers may mutate it. */
  @Override
  public ObjectNode skeleton() {
    return skeleton.deepCopy();
  }

  /**
   * The uid containers run as and its home folder.
   *
   * @param uid numeric user id; 0 is root
   * @param home absolute path of the home folder ({@code HOME})
   * @param imageOwnsHome the image installed software under {@code home} (kubeflow/trainer's
   *     deepspeed and mlx images {@code pip install --user} into {@code /home/mpiuser/.local}):
   *     Trainyard never mounts a volume over it, only a scratch emptyDir at {@code home/.cache}.
   *     When false, {@code home} gets a writable emptyDir (pip {@code --user} under an arbitrary
   *     uid, kubeflow/sdk#89)
   */
  public record RuntimeUser(long uid, String home, boolean imageOwnsHome) {
    public RuntimeUser {
      Objects.requireNonNull(home, "home");
    }

    public boolean isRoot() {
      return uid == 0;
    }
  }

  /**
   * What the image holds, as the platform team recorded it.
   *
   * <pre>
   * python: "3.10"                                # "" when the image has no Python
   * cuda: {version: "13.1", driverFloor: 580}     # absent when the image has no CUDA
   * </pre>
   *
   * @param python the image's Python version, "" for none
   * @param cudaVersion the CUDA toolkit version the image was built with, "" for none
   * @param driverFloor the lowest NVIDIA driver major version that CUDA needs (CUDA 13.x: 580,
   *     NVIDIA "CUDA Toolkit and Corresponding Driver Versions"); 0 when unknown or without CUDA
   */
  public record ImageContents(String python, String cudaVersion, int driverFloor) {
    public ImageContents {
      Objects.requireNonNull(python, "python");
      Objects.requireNonNull(cudaVersion, "cudaVersion");
    }
  }

  /**
   * The Kubernetes Pod Security Standard the runtime's pods meet.
   *
   * @param restricted true when the containers run as non-root and work with no privilege
   *     escalation, capabilities dropped and the RuntimeDefault seccomp profile; false: baseline
   *     (e.g. root images)
   * @param addCapabilities capabilities added back after {@code drop: [ALL]} (restricted allows
   *     only {@code NET_BIND_SERVICE}); needed when a binary carries it as a file capability, as
   *     the sshd of mpi-operator's base and the mlx image ({@code setcap
   *     CAP_NET_BIND_SERVICE=+eip}): exec of such a file fails with EPERM when the capability is
   *     outside the bounding set
   */
  public record PodSecurity(boolean restricted, List<String> addCapabilities) {
    public PodSecurity {
      addCapabilities = List.copyOf(addCapabilities);
    }

    /** {@code restricted} or {@code baseline}, as written in runtime.yaml. */
    public String level() {
      return restricted ? "restricted" : "baseline";
    }
  }
}
