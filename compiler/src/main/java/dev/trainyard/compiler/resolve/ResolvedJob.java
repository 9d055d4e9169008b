package dev.trainyard.compiler.resolve;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.provenance.SourceInfo;
import dev.trainyard.compiler.runtime.RuntimeDefinition;
import dev.trainyard.compiler.spec.SecretRef;
import dev.trainyard.compiler.spec.TrainSpec;
import dev.trainyard.compiler.spec.VolumeMount;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A {@link TrainSpec} with every default filled in from the runtime and the platform: everything
 * the render stage needs, and nothing it has to look up.
 *
 * @param spec the user's file as written (for locating diagnostics)
 * @param runtime the resolved runtime version
 * @param platform the platform in force
 * @param target cluster, namespace and queues
 * @param source repo URL, commit, train.yaml path
 * @param naming job name, run id and run name
 * @param topology nodes, processes per node and the derived counts
 * @param resources per-node resources after merging
 * @param command image, workdir, setup, run, env
 * @param secrets Secret references
 * @param volumes PVC mounts
 * @param retries JobSet {@code failurePolicy.maxRestarts}
 * @param timeoutSeconds Job {@code activeDeadlineSeconds}
 * @param stamp compiler version and submit time, stamped into provenance
 * @param checkpoint the checkpoint volume and contract; empty when train.yaml has no {@code
 *     checkpoint}
 */
public record ResolvedJob(
    TrainSpec spec,
    RuntimeDefinition runtime,
    Platform platform,
    Target target,
    SourceInfo source,
    Naming naming,
    Topology topology,
    NodeResources resources,
    Command command,
    List<SecretRef> secrets,
    List<VolumeMount> volumes,
    int retries,
    long timeoutSeconds,
    Stamp stamp,
    Optional<ResolvedCheckpoint> checkpoint) {

  public ResolvedJob {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(checkpoint, "checkpoint");
    secrets = List.copyOf(secrets);
    volumes = List.copyOf(volumes);
  }

  /**
   * The run's shape in one line, as the CLI's summary and the submit commit's message print it:
   * {@code 2 node(s) x 8 process(es), runtime torch@2.13, queue team-a}.
   */
  public String shapeLine() {
    return topology.nodes()
        + " node(s) x "
        + topology.procsPerNode()
        + " process(es), runtime "
        + runtime.ref()
        + ", queue "
        + target.localQueue();
  }

  /**
   * Where the run goes.
   *
   * @param cluster cluster name from platform.yaml
   * @param clusterDomain its DNS domain
   * @param namespace target namespace
   * @param localQueue the LocalQueue named by the {@code kueue.x-k8s.io/queue-name} label
   * @param clusterQueue the ClusterQueue behind it
   * @param priority WorkloadPriorityClass, or "" for none
   */
  public record Target(
      String cluster,
      String clusterDomain,
      String namespace,
      String localQueue,
      String clusterQueue,
      String priority) {}

  /**
   * @param jobName the user's {@code name} or the sanitized folder name
   * @param runId short id derived from the commit, the train.yaml path and the attempt (6 hex
   *     characters)
   * @param runName {@code <jobName>-<runId>}: the JobSet's name and the run folder's name
   * @param nameFromUser whether {@code name} was written in train.yaml (then a too-long name is an
   *     error, not silently shortened)
   */
  public record Naming(String jobName, String runId, String runName, boolean nameFromUser) {}

  /**
   * @param nodes pods that run ranks (≥ 1)
   * @param procsPerNode processes per node (≥ 1); MPI slots
   */
  public record Topology(int nodes, int procsPerNode) {
    /** Total processes: the {@code -np} of mpirun and torch's world size. */
    public int worldSize() {
      return nodes * procsPerNode;
    }
  }

  /**
   * Per-node resources after merging train.yaml over the runtime.
   *
   * @param gpus GPUs per node
   * @param gpuType accelerator model or ""
   * @param cpu CPU quantity text
   * @param memory memory quantity text
   * @param shm size of the memory-backed {@code /dev/shm}
   */
  public record NodeResources(int gpus, String gpuType, String cpu, String memory, String shm) {}

  /**
   * @param image effective image (train.yaml's {@code image} or the runtime's)
   * @param workdir absolute working directory in the pod
   * @param setup shell run on every node before {@code run}, or ""
   * @param run the user's command, as written
   * @param env user env, sorted
   * @param imageWithoutPython true when {@code image} is the runtime's own and neither the runtime
   *     nor a version of it with the same image records a Python ({@code python:} in runtime.yaml,
   *     {@link dev.trainyard.compiler.runtime.RuntimeCatalog#recordedPython}); false for an image
   *     train.yaml names, whose contents Trainyard does not know
   */
  public record Command(
      String image,
      String workdir,
      String setup,
      String run,
      SortedMap<String, String> env,
      boolean imageWithoutPython) {
    public Command {
      env = Collections.unmodifiableSortedMap(new TreeMap<>(env));
    }
  }
}
