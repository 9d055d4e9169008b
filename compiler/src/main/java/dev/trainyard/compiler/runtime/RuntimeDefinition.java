package dev.trainyard.compiler.runtime;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A platform-owned runtime, loaded from {@code runtimes/<name>/<version>/runtime.yaml} (built into the jar,
 * or from the GitOps repo's {@code runtimes/} folder, which overrides and adds). Versions are immutable:
 * a change is a new version.
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
 * user: {uid: 0, home: /root}
 * jobset: {...}   # JobSet skeleton; string values may hold Pebble expressions
 * </pre>
 *
 * @param name runtime name, a DNS-1123 label
 * @param version version string, e.g. {@code 2.9.1-1}
 * @param description one line for {@code trainyard runtimes list}
 * @param framework which plugin renders it
 * @param image the pinned container image
 * @param packages what the image provides, for {@code trainyard runtimes show}
 * @param resources per-node defaults
 * @param user the uid the containers run as and its writable home folder
 * @param mpi MPI settings, present exactly when the framework uses MPI
 * @param skeleton the JobSet skeleton ({@code metadata}, {@code spec.replicatedJobs[]} by name)
 * @param digest {@code sha256:<hex>} over the definition's canonical form, stamped into provenance
 * @param origin where it was loaded from ({@code builtin:torch/2.9.1-1/runtime.yaml} or a file path)
 */
public record RuntimeDefinition(
    String name,
    String version,
    String description,
    Framework framework,
    String image,
    List<String> packages,
    RuntimeResources resources,
    RuntimeUser user,
    Optional<MpiSettings> mpi,
    ObjectNode skeleton,
    String digest,
    String origin) {

  public RuntimeDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(framework, "framework");
    Objects.requireNonNull(image, "image");
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
   * The uid containers run as and a home folder Trainyard mounts writable (pip {@code --user}, caches;
   * kubeflow/sdk#89).
   *
   * @param uid numeric user id; 0 is root
   * @param home absolute path of the home folder
   */
  public record RuntimeUser(long uid, String home) {
    public RuntimeUser {
      Objects.requireNonNull(home, "home");
    }

    public boolean isRoot() {
      return uid == 0;
    }
  }
}
