package dev.trainyard.compiler.spec;

import dev.trainyard.compiler.source.ParsedDocument;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The user's {@code train.yaml}, contract v1, exactly as written: absent fields stay empty here and
 * get their defaults in the resolve stage (Helm's order: merge defaults, then validate).
 *
 * <pre>
 * run: torchrun train.py
 * nodes: 2
 * resources: {gpus: 4, memory: 64Gi}
 * env: {HF_MODEL: t5-small}
 * </pre>
 *
 * <p>Field meanings and defaults: {@code schemas/train.v1.schema.json} and DESIGN §3.1.
 *
 * @param name job name (RFC 1035 label); default: the folder name of train.yaml, sanitized
 * @param runtime {@code name} or {@code name@version}
 * @param image replaces the runtime image
 * @param workdir working directory relative to train.yaml
 * @param setup shell run on every node before {@code run}
 * @param run shell command (required)
 * @param nodes number of nodes (pods), at least 1
 * @param procsPerNode processes per node
 * @param resources per-node resources
 * @param env plain variables, sorted by name; values as the user wrote them (numbers and booleans
 *     as text)
 * @param secrets references to existing Secrets
 * @param volumes PVC mounts
 * @param queue Kueue LocalQueue name
 * @param priority Kueue WorkloadPriorityClass name
 * @param retries JobSet {@code failurePolicy.maxRestarts}
 * @param timeout wall-clock limit as written, e.g. {@code 24h}, {@code 90m}
 * @param mpi Open MPI tuning rendered into {@code mpirun}; empty when not written
 * @param checkpoint the checkpoint volume and its contract; empty when not written
 * @param document the parsed file, for locating fields in diagnostics
 */
public record TrainSpec(
    Optional<String> name,
    Optional<String> runtime,
    Optional<String> image,
    Optional<String> workdir,
    Optional<String> setup,
    String run,
    Optional<Integer> nodes,
    Optional<ProcsPerNode> procsPerNode,
    ResourceRequest resources,
    SortedMap<String, String> env,
    List<SecretRef> secrets,
    List<VolumeMount> volumes,
    Optional<String> queue,
    Optional<String> priority,
    Optional<Integer> retries,
    Optional<String> timeout,
    Optional<MpiOptions> mpi,
    Optional<CheckpointSpec> checkpoint,
    ParsedDocument document) {

  public TrainSpec {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(resources, "resources");
    Objects.requireNonNull(document, "document");
    Objects.requireNonNull(mpi, "mpi");
    Objects.requireNonNull(checkpoint, "checkpoint");
    env = Collections.unmodifiableSortedMap(new TreeMap<>(env));
    secrets = List.copyOf(secrets);
    volumes = List.copyOf(volumes);
  }
}
