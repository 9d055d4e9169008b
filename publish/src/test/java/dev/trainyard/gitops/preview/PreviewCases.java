package dev.trainyard.gitops.preview;

import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsLocation;
import dev.trainyard.gitops.SubmitRequest;
import dev.trainyard.gitops.SubmitResult;
import dev.trainyard.gitops.Submitter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The inputs of the golden cases and the other preview tests: platforms, train.yaml files,
 * repositories.
 */
final class PreviewCases {
  static final Instant T1 = PreviewRepos.T0.plusSeconds(3_600);
  static final Instant T2 = PreviewRepos.T0.plusSeconds(7_200);

  /** examples/platform.yaml: cluster local, namespace ml, queue ml (32 GPUs), sealed-secrets. */
  static final String EXAMPLE = PreviewRepos.read("examples/platform.yaml");

  /**
   * The example platform with plain Secrets allowed, to compile runs that a sealed-secrets policy
   * then objects to.
   */
  static final String EXAMPLE_PLAIN =
      EXAMPLE.replaceAll(
          "(?s)\nsecrets:.*?\nqueues:", "\nsecrets:\n  policy: plain\n  allowPlain: true\nqueues:");

  /**
   * Two GPU queues: {@code small} (32 GPUs, no cohort) and {@code shared} (16 GPUs, cohort
   * research).
   */
  static final String QUEUES =
      """
      apiVersion: trainyard.dev/v1
      kind: Platform
      clusters: [{name: prod}]
      namespaces: [{name: team-a, cluster: prod, sources: ["*"], defaultQueue: small}]
      gpu: {types: {H100: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}}
      secrets: {policy: plain, allowPlain: true}
      queues:
        resourceFlavors: [{name: h100, nodeLabels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}]
        clusterQueues:
          - {name: small, namespaces: [team-a], flavors: [{name: h100, quota: {cpu: "512", memory: 4096Gi, nvidia.com/gpu: "32"}}]}
          - {name: shared, namespaces: [team-a], cohort: research, flavors: [{name: h100, quota: {cpu: "512", memory: 4096Gi, nvidia.com/gpu: "16"}}]}
        localQueues:
          - {name: small, namespace: team-a, clusterQueue: small}
          - {name: shared, namespace: team-a, clusterQueue: shared}
      """;

  /**
   * {@link #QUEUES} with quotas large enough that every case compiles; the GitOps repo holds the
   * real ones.
   */
  static final String QUEUES_GENEROUS =
      QUEUES
          .replace("nvidia.com/gpu: \"32\"", "nvidia.com/gpu: \"1000\"")
          .replace("nvidia.com/gpu: \"16\"", "nvidia.com/gpu: \"1000\"");

  static final String TORCH = "run: torchrun train.py\nnodes: 2\n";
  static final String DEEPSPEED =
      "runtime: deepspeed\nrun: python train.py --deepspeed_config ds.json\nnodes: 2\nresources: {gpus: 8, gpuType: H100}\n";
  static final String MPI = "runtime: mpi\nrun: python allreduce.py\nnodes: 2\n";

  private PreviewCases() {}

  /**
   * A GitOps work repo: {@code base} committed at T0, then {@code head} (written) and {@code
   * deleted} at T1; previewed HEAD~1 → HEAD.
   */
  static Preview gitOps(
      Path temp, Map<String, String> base, Map<String, String> head, List<String> deleted)
      throws GitOpsException {
    Path work = PreviewRepos.init(temp.resolve("gitops"));
    PreviewRepos.commit(work, base, List.of(), "base", PreviewRepos.T0);
    PreviewRepos.commit(work, head, deleted, "head", T1);
    return GitOpsPreview.of(work, "HEAD~1", "HEAD", Optional.empty());
  }

  /** Files of several maps, later ones winning. */
  @SafeVarargs
  static Map<String, String> files(Map<String, String>... maps) {
    Map<String, String> all = new HashMap<>();
    for (Map<String, String> m : maps) {
      all.putAll(m);
    }
    return all;
  }

  /** The run folder of compiled files (the folder of the JobSet). */
  static String runFolder(Map<String, String> files) {
    String jobSet =
        files.keySet().stream()
            .filter(p -> p.contains("/jobset-") && !p.contains("/_"))
            .findFirst()
            .orElseThrow();
    return jobSet.substring(0, jobSet.lastIndexOf('/'));
  }

  /**
   * A source repo with {@code first} committed at T0 and {@code second} at T1, and a bare GitOps
   * repo holding {@code gitopsFiles}.
   */
  record SourceSetup(Path source, Path gitops) {
    GitOpsLocation location() {
      return GitOpsLocation.parse(gitops.toString(), Path.of(""));
    }

    /**
     * {@code trainyard submit} of {@code trainYamls} (paths in the source repo) at {@code at}, for
     * real.
     */
    SubmitResult submit(Path cache, Instant at, String... trainYamls) throws GitOpsException {
      List<Path> files = Arrays.stream(trainYamls).map(source::resolve).toList();
      return new Submitter(cache, Map.of(), Clock.fixed(at, ZoneOffset.UTC))
          .submit(
              new SubmitRequest(
                  files,
                  location(),
                  "main",
                  Optional.empty(),
                  Optional.empty(),
                  Optional.empty(),
                  Optional.empty(),
                  Optional.empty(),
                  Optional.empty(),
                  false,
                  false));
    }

    /** The preview of HEAD against {@code base} (empty: the train.yaml files named), at T2. */
    Preview preview(Path cache, Optional<String> base, List<Path> named) throws GitOpsException {
      SourcePreviewRequest r =
          SourcePreviewRequest.builder(source, location()).trainYamls(named).base(base).build();
      return new SourcePreview(cache, Map.of(), Clock.fixed(T2, ZoneOffset.UTC)).preview(r);
    }
  }

  static SourceSetup source(Path temp, Map<String, String> first, Map<String, String> gitopsFiles) {
    Path source = PreviewRepos.init(temp.resolve("source"));
    PreviewRepos.commit(source, first, List.of(), "first", PreviewRepos.T0);
    Path ops = PreviewRepos.init(temp.resolve("ops"));
    PreviewRepos.commit(ops, gitopsFiles, List.of(), "platform", PreviewRepos.T0);
    return new SourceSetup(source, PreviewRepos.bare(ops, temp.resolve("gitops.git")));
  }

  /**
   * A platform runtime {@code torch@2.14.0-1}: the built-in torch runtime with a newer version and
   * image.
   */
  static String torch214() {
    return PreviewRepos.read("runtimes/torch/2.13.0-2/runtime.yaml")
        .replace("version: 2.13.0-2", "version: 2.14.0-1")
        .replaceAll(
            "image: .*",
            "image: docker.io/pytorch/pytorch:2.14.0-cuda13.0-cudnn9-runtime@sha256:"
                + "ab".repeat(32));
  }
}
