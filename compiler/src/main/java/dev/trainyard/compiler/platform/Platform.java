package dev.trainyard.compiler.platform;

import dev.trainyard.compiler.source.SourceMap;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The platform team's {@code platform.yaml}: clusters, which source repos may target which
 * namespaces, Kueue queues, GPU naming, code sync, and the secrets policy. With no file at all the
 * embedded default (one cluster {@code local}, namespace {@code default}, queue {@code default},
 * plain Secrets allowed with a warning) serves local use.
 *
 * <pre>
 * apiVersion: trainyard.dev/v1
 * kind: Platform
 * defaultRuntime: torch
 * clusters: [{name: prod, domain: cluster.local}]
 * namespaces: [{name: team-a, cluster: prod, sources: ["github.com/acme/*"], defaultQueue: team-a}]
 * secrets: {policy: sealed-secrets, sealedSecrets: {certificate: "-----BEGIN CERTIFICATE-----..."}}
 * queues: {resourceFlavors: [...], clusterQueues: [...], localQueues: [...]}
 * status:                                   # read by the status controller
 *   forges: [{source: github.com/acme, kind: github, api: https://api.github.com,
 *             token: {secret: trainyard-forge-tokens, key: github-token}}]
 *   targetUrl: https://grafana.example/d/runs?var-cluster={cluster}&amp;var-namespace={namespace}&amp;var-run={run}
 * retention: {succeeded: 7d, failed: 30d}   # finished runs pruned from the GitOps repo after this
 * </pre>
 *
 * @param defaultRuntime runtime used when {@code train.yaml} names none
 * @param clusters target clusters, the first is the default
 * @param namespaces namespaces users may target, with the source repos allowed in each
 * @param gpu GPU resource name and gpuType → node labels
 * @param codeSync the init container that clones the source repo at the commit
 * @param ephemeralStorage the node disk (kubelet local ephemeral storage) each training container
 *     and the code-sync init container request, and their limit
 * @param serviceMesh whether mesh sidecars may join MPI pods
 * @param networkPolicy whether each run gets a NetworkPolicy letting its pods reach each other
 * @param secrets how the SSH Secret is committed
 * @param queues Kueue objects to emit and check against
 * @param kueue what the cluster's Kueue accepts: its PodSet limit and its WorkloadPriorityClasses
 * @param status where the status controller posts commit statuses, and their link
 * @param retention how long finished runs stay in the GitOps repo (namespaces may override it)
 * @param progressPush whether runs' pods may push their progress to the controller (Kubeflow
 *     Trainer's KEP-2779 contract), and where the controller serves it
 * @param origin display path of the file, or {@code <embedded default platform>}
 * @param provenance how the queue objects' {@code trainyard.dev/platform} annotation names it:
 *     {@code origin} until {@link #withProvenance} gives a name that does not depend on the working
 *     directory (the compiler's: the path in its git work tree)
 * @param embedded true for the built-in default
 * @param map positions in the file, for diagnostics about platform values
 */
public record Platform(
    String defaultRuntime,
    List<Cluster> clusters,
    List<NamespaceRule> namespaces,
    GpuSettings gpu,
    CodeSync codeSync,
    EphemeralStorage ephemeralStorage,
    ServiceMesh serviceMesh,
    NetworkPolicies networkPolicy,
    SecretsPolicy secrets,
    Queues queues,
    KueueSettings kueue,
    StatusSettings status,
    Retention retention,
    ProgressPush progressPush,
    String origin,
    String provenance,
    boolean embedded,
    SourceMap map) {

  public Platform {
    Objects.requireNonNull(defaultRuntime, "defaultRuntime");
    clusters = List.copyOf(clusters);
    namespaces = List.copyOf(namespaces);
    Objects.requireNonNull(provenance, "provenance");
  }

  /** This platform with {@code name} as its {@link #provenance}; itself when it already is. */
  public Platform withProvenance(String name) {
    return name.equals(provenance)
        ? this
        : new Platform(
            defaultRuntime,
            clusters,
            namespaces,
            gpu,
            codeSync,
            ephemeralStorage,
            serviceMesh,
            networkPolicy,
            secrets,
            queues,
            kueue,
            status,
            retention,
            progressPush,
            origin,
            name,
            embedded,
            map);
  }

  /**
   * A target cluster. @param domain the cluster DNS domain (mpi-operator#704), e.g. {@code
   * cluster.local}
   */
  public record Cluster(String name, String domain) {}

  /**
   * A namespace users may target.
   *
   * @param sources glob patterns over normalised repo URLs ({@code github.com/acme/*}); {@code *}
   *     allows all
   * @param defaultQueue LocalQueue used when {@code train.yaml} names none
   * @param runtimes runtime names jobs here may use ({@code torch}, {@code deepspeed}); {@code *}
   *     allows all
   * @param retention this namespace's retention; a state it leaves unset takes the platform's
   * @param checkpoints the checkpoint storage jobs here get; empty: the namespace offers none
   */
  public record NamespaceRule(
      String name,
      String cluster,
      List<String> sources,
      String defaultQueue,
      List<String> runtimes,
      Retention retention,
      Optional<CheckpointStorage> checkpoints) {
    public NamespaceRule {
      sources = List.copyOf(sources);
      runtimes = List.copyOf(runtimes);
    }

    /** Whether jobs in this namespace may use the runtime called {@code runtime}. */
    public boolean allowsRuntime(String runtime) {
      return runtimes.contains("*") || runtimes.contains(runtime);
    }
  }

  /**
   * A namespace's checkpoint storage ({@code namespaces[].checkpoints}): either a claim per job
   * that Trainyard writes into the GitOps repo ({@code size}, {@code storageClass}), or one
   * existing claim that holds every job's checkpoints, a folder ({@code subPath}) per job.
   *
   * <pre>
   * checkpoints: {storageClass: nfs-client, size: 500Gi, accessMode: ReadWriteMany, retention: 30d}
   * checkpoints: {claim: team-checkpoints, accessMode: ReadWriteMany}
   * </pre>
   *
   * @param storageClass StorageClass of each job's claim; empty: the cluster's default
   * @param size quantity text of each job's claim ({@code 500Gi}); empty with {@code claim}
   * @param claim an existing claim shared by the namespace's jobs; empty: a claim per job
   * @param accessMode {@code ReadWriteMany}, {@code ReadWriteOnce} or {@code ReadWriteOncePod}
   *     (core/v1 PersistentVolumeClaim access modes)
   * @param retention how long a job's claim stays after its last submit while no run of the job is
   *     in the repo; empty: kept
   * @param recoverOnExitCodes exit codes that restart a checkpointed run, for every job here
   * @param sameNode whether every pod of a run here lands on one node (a one-node cluster such as
   *     kind, minikube or Docker Desktop), so a {@code ReadWriteOnce} volume, which is per node
   *     (core/v1 PersistentVolume access modes), serves a multi-node run too
   */
  public record CheckpointStorage(
      Optional<String> storageClass,
      Optional<String> size,
      Optional<String> claim,
      String accessMode,
      Optional<Duration> retention,
      List<Integer> recoverOnExitCodes,
      boolean sameNode) {
    /** The access mode every node of a multi-node job can write one folder through. */
    public static final String SHARED = "ReadWriteMany";

    public CheckpointStorage {
      recoverOnExitCodes = List.copyOf(recoverOnExitCodes);
    }

    /** Whether several pods on several nodes (or on the one node) can mount it read-write. */
    public boolean shared() {
      return accessMode.equals(SHARED);
    }
  }

  /**
   * @param resourceName extended resource for GPUs, default {@code nvidia.com/gpu}
   * @param types {@code gpuType} → node labels that select that accelerator
   */
  public record GpuSettings(String resourceName, Map<String, Map<String, String>> types) {
    /**
     * Keeps {@code types} sorted by type name, so hints and output that list them are
     * deterministic.
     */
    public GpuSettings {
      types = Collections.unmodifiableSortedMap(new TreeMap<>(types));
    }
  }

  /**
   * @param image git-sync image that clones the repo in one-time mode
   * @param credentialSecret Secret with {@code username}/{@code password} keys for private repos,
   *     if any
   */
  public record CodeSync(String image, Optional<String> credentialSecret) {
    /**
     * git-sync v4.4.2 by the digest Kubernetes' image promoter lists for that tag
     * (kubernetes/k8s.io {@code registry.k8s.io/images/k8s-staging-git-sync/images.yaml}), tag kept
     * for readers.
     */
    public static final String DEFAULT_IMAGE =
        "registry.k8s.io/git-sync/git-sync:v4.4.2@sha256:3089d9787b89bdc5af01d9f6e8d515aefb9672e8aea3972d7ff67478112bacb3";
  }

  /**
   * The node disk a run's pods ask for ({@code ephemeralStorage:}), as Kubernetes "local ephemeral
   * storage" (kubernetes.io/docs/concepts/storage/ephemeral-storage): the kubelet counts a pod's
   * disk-backed emptyDirs (here the code-sync checkout {@code workspace} and {@code home} or {@code
   * cache}, where pip, Hugging Face and torch keep their caches), its containers' writable layers
   * ({@code /tmp}, a {@code pip install} into the image) and their logs; the memory-backed {@code
   * /dev/shm} counts as memory. The scheduler places a pod only on a node whose allocatable disk
   * holds the requests, and a namespace whose LimitRange of type {@code Pod} sets {@code min} (or
   * {@code max}) on ephemeral-storage admits the pods: it refuses a pod without a request (limit),
   * counting the code-sync init container too (plugin/pkg/admission/limitranger, PodLimitFunc). A
   * {@code Container} LimitRange fills missing values from its defaults and bounds the values by
   * its min and max.
   *
   * <p>Both the {@code node} container and the {@code code-sync} init container get the same
   * values: a pod's request is the larger of its init containers' and the sum of its containers'
   * (KEP-753's formula), so the scheduler reserves the same disk either way, and a limit on the
   * init container alone would become the pod's whole limit, evicting the run at its first big
   * download.
   *
   * <pre>
   * ephemeralStorage: {request: 20Gi, limit: 100Gi}
   * </pre>
   *
   * @param request quantity text each of those containers requests; empty: no request (the default
   *     when platform.yaml has no {@code ephemeralStorage}, since Kueue never admits a run
   *     requesting a resource its ClusterQueue does not cover, kueue#4848)
   * @param limit quantity text of each container's limit; empty: none. Above the pod's limit (the
   *     sum of its containers') the kubelet evicts the pod.
   */
  public record EphemeralStorage(Optional<String> request, Optional<String> limit) {
    /** The resource name (core/v1 {@code ResourceEphemeralStorage}). */
    public static final String RESOURCE = "ephemeral-storage";

    public EphemeralStorage {
      Objects.requireNonNull(request, "request");
      Objects.requireNonNull(limit, "limit");
    }
  }

  /**
   * Service-mesh sidecars (Istio, Linkerd) in training pods. An injected sidecar delays the app,
   * STRICT mTLS breaks pod-IP traffic such as mpirun's ssh and orted connections, and a sidecar
   * that never exits keeps the Job from finishing (mpi-operator#480, trainer#1681), so MPI-family
   * pods opt out unless the platform opts in.
   *
   * <pre>
   * serviceMesh: {injectMpiPods: false}
   * </pre>
   *
   * @param injectMpiPods true lets the mesh inject sidecars into mpi, deepspeed and mlx pods
   */
  public record ServiceMesh(boolean injectMpiPods) {}

  /**
   * NetworkPolicies for runs, for namespaces whose baseline denies ingress by default: there the
   * ranks of a run cannot reach each other (torch's c10d store and gloo/NCCL sockets, mpirun's ssh
   * and orted, JAX's coordinator), and the run hangs until its timeout. NetworkPolicies add up (a
   * connection is allowed when any policy selecting the pod allows it), so the per-run policy only
   * opens the run's pods to each other; it selects no egress, which stays the namespace's.
   *
   * <pre>
   * networkPolicy: {runs: true}
   * </pre>
   *
   * @param runs true emits, in every run folder, a NetworkPolicy that lets the run's pods receive
   *     traffic from the run's own pods (selected by the JobSet's name label), on every port
   */
  public record NetworkPolicies(boolean runs) {}

  /**
   * Progress pushed by the run's own pods ({@code progressPush:}), in Kubeflow Trainer's KEP-2779
   * contract: with {@code enabled}, every compiled pod carries the env vars, the projected
   * ServiceAccount token and the CA that a script or Hugging Face callback written for Kubeflow
   * Trainer reads, and the controller serves the endpoint. Off by default: it needs the
   * controller's HTTPS endpoint with a certificate and the CA ConfigMap in each run namespace.
   *
   * <pre>
   * progressPush:
   *   enabled: true
   *   url: https://trainyard-controller-progress.trainyard-system.svc:8443
   *   caConfigMap: trainyard-progress-ca
   *   caCertificate: |                     # optional: the compiler writes the ConfigMap per namespace
   *     -----BEGIN CERTIFICATE-----
   * </pre>
   *
   * @param enabled whether compiled pods carry what a push needs (and the controller serves it)
   * @param url the controller's progress endpoint root as pods reach it (https, no path)
   * @param caConfigMap the ConfigMap, in every run namespace, whose key {@code ca.crt} holds the CA
   *     that signed the endpoint's certificate
   * @param caCertificate that CA as PEM (public): when set, the compiler writes the ConfigMap into
   *     each namespace's queue folder; "" leaves the ConfigMap to the platform (trust-manager)
   */
  public record ProgressPush(
      boolean enabled, String url, String caConfigMap, String caCertificate) {

    /** The endpoint of the shipped deploy manifests (controller/deploy/service.yaml). */
    public static final String DEFAULT_URL =
        "https://trainyard-controller-progress.trainyard-system.svc:8443";

    /** The CA ConfigMap name the docs ask the platform to place in each run namespace. */
    public static final String DEFAULT_CA_CONFIG_MAP = "trainyard-progress-ca";

    /**
     * The env vars the contract sets in every container ({@code render.TrainerStatusPush}): a
     * train.yaml may not set them while push is on.
     */
    public static final List<String> ENV_NAMES =
        List.of(
            "KUBEFLOW_TRAINER_SERVER_CA_CERT",
            "KUBEFLOW_TRAINER_SERVER_TOKEN",
            "KUBEFLOW_TRAINER_SERVER_URL",
            "KUBEFLOW_TRAINER_STATUS_CA_CERT",
            "KUBEFLOW_TRAINER_STATUS_TOKEN",
            "KUBEFLOW_TRAINER_STATUS_URL");

    /** Off: pods carry nothing, the controller serves no endpoint. */
    public static final ProgressPush OFF =
        new ProgressPush(false, DEFAULT_URL, DEFAULT_CA_CONFIG_MAP, "");

    public ProgressPush {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(caConfigMap, "caConfigMap");
      Objects.requireNonNull(caCertificate, "caCertificate");
    }
  }

  /**
   * @param mode how Secrets are committed
   * @param allowPlain whether {@code plain} is allowed at all
   * @param sealedSecretsCertificate PEM certificate of the sealed-secrets controller
   * @param ageRecipients age public keys for SOPS
   */
  public record SecretsPolicy(
      SecretsMode mode,
      boolean allowPlain,
      Optional<String> sealedSecretsCertificate,
      List<String> ageRecipients) {
    public SecretsPolicy {
      ageRecipients = List.copyOf(ageRecipients);
    }
  }

  /** How Secrets are written into git. */
  public enum SecretsMode {
    PLAIN("plain"),
    SEALED_SECRETS("sealed-secrets"),
    SOPS_AGE("sops-age");

    private final String id;

    SecretsMode(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    /** Parses {@code plain}, {@code sealed-secrets}, {@code sops-age}. */
    public static Optional<SecretsMode> parse(String text) {
      for (SecretsMode m : values()) {
        if (m.id.equals(text)) {
          return Optional.of(m);
        }
      }
      return Optional.empty();
    }
  }

  /** Kueue objects. */
  public record Queues(
      List<ResourceFlavor> resourceFlavors,
      List<ClusterQueue> clusterQueues,
      List<LocalQueue> localQueues) {
    public Queues {
      resourceFlavors = List.copyOf(resourceFlavors);
      clusterQueues = List.copyOf(clusterQueues);
      localQueues = List.copyOf(localQueues);
    }
  }

  /**
   * What the cluster's Kueue accepts, checked at compile time so a run never waits forever for an
   * admission that cannot come.
   *
   * @param maxPodSets most replicated jobs (Kueue PodSets) one Workload may have: the Workload
   *     CRD's {@code spec.podSets} maxItems, 8 in older Kueue releases and 18 in Kueue v0.19
   *     (apis/kueue/v1beta2/workload_types.go); default {@link #DEFAULT_MAX_POD_SETS}
   * @param priorityClasses the WorkloadPriorityClasses that exist in the cluster; empty when the
   *     platform does not list them (then {@code priority} is not checked, with a warning)
   */
  public record KueueSettings(int maxPodSets, List<String> priorityClasses) {
    /** The lower of the known Kueue limits, so a run fits every supported Kueue. */
    public static final int DEFAULT_MAX_POD_SETS = 8;

    public KueueSettings {
      priorityClasses = List.copyOf(priorityClasses);
    }
  }

  /**
   * A Kueue ResourceFlavor (kueue {@code apis/kueue/v1beta2/resourceflavor_types.go}; at most 8 of
   * each list).
   *
   * <pre>
   * - name: gpu-nodes
   *   nodeLabels: {pool: gpu}
   *   nodeTaints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]
   *   tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
   * </pre>
   *
   * @param nodeLabels labels Kueue adds to admitted pods' nodeSelector
   * @param nodeTaints taints of the flavor's nodes; a workload is assigned the flavor only if it
   *     tolerates them (NoSchedule and NoExecute; PreferNoSchedule is ignored), or the flavor's
   *     tolerations do
   * @param tolerations tolerations Kueue adds to the pods it admits on this flavor
   */
  public record ResourceFlavor(
      String name,
      Map<String, String> nodeLabels,
      List<Taint> nodeTaints,
      List<Toleration> tolerations) {
    public ResourceFlavor {
      nodeLabels = Map.copyOf(nodeLabels);
      nodeTaints = List.copyOf(nodeTaints);
      tolerations = List.copyOf(tolerations);
    }
  }

  /** A node taint (core/v1 Taint): {@code key=value:effect}; {@code value} may be "". */
  public record Taint(String key, String value, String effect) {}

  /**
   * A toleration (core/v1 Toleration). Empty strings mean unset.
   *
   * @param operator {@code Equal} (the default) or {@code Exists}
   * @param tolerationSeconds only with effect {@code NoExecute}
   */
  public record Toleration(
      String key, String operator, String value, String effect, Optional<Long> tolerationSeconds) {
    /**
     * Whether this toleration tolerates {@code taint} (core/v1 {@code Toleration.ToleratesTaint}).
     */
    public boolean tolerates(Taint taint) {
      if (!effect.isEmpty() && !effect.equals(taint.effect())) {
        return false;
      }
      if (key.isEmpty()) {
        return operator.equals("Exists");
      }
      return key.equals(taint.key()) && (operator.equals("Exists") || value.equals(taint.value()));
    }
  }

  /**
   * A Kueue ClusterQueue with one resource group.
   *
   * @param namespaces namespaces whose LocalQueues may point here; {@code ["*"]} emits {@code
   *     namespaceSelector: {}}
   * @param cohort cohort name, if any
   * @param flavors per flavor, the nominal quota by resource name (the union of names is {@code
   *     coveredResources})
   */
  public record ClusterQueue(
      String name, List<String> namespaces, Optional<String> cohort, List<FlavorQuota> flavors) {
    public ClusterQueue {
      namespaces = List.copyOf(namespaces);
      flavors = List.copyOf(flavors);
    }

    /** Every resource name any flavor has a quota for, sorted (Kueue {@code coveredResources}). */
    public List<String> coveredResources() {
      return flavors.stream()
          .flatMap(f -> f.quota().keySet().stream())
          .distinct()
          .sorted()
          .toList();
    }
  }

  /**
   * @param quota resource name → nominal quota (Kubernetes quantity text)
   */
  public record FlavorQuota(String flavor, Map<String, String> quota) {
    public FlavorQuota {
      quota = Map.copyOf(quota);
    }
  }

  /** A Kueue LocalQueue in a namespace, pointing at a ClusterQueue. */
  public record LocalQueue(String name, String namespace, String clusterQueue) {}

  /**
   * Commit statuses ({@code status:}).
   *
   * @param forges where each source repo's statuses go, matched by the longest {@link
   *     ForgeRoute#source()} prefix
   * @param targetUrl the status link template with {@link #PLACEHOLDERS}, or "" for none
   * @param stallAfter {@code status.stallAfter}: how long an admitted run may take to start before
   *     the controller's commit status and {@code trainyard status} call it stalled; empty when not
   *     set (both then use 10 minutes)
   * @param progress {@code status.progress}: when a running run's progress is posted and when it
   *     counts as stalled
   */
  public record StatusSettings(
      List<ForgeRoute> forges,
      String targetUrl,
      Optional<Duration> stallAfter,
      ProgressSettings progress) {
    /**
     * The placeholders a target URL may use; each is replaced by the URL-encoded value of the run.
     */
    public static final List<String> PLACEHOLDERS =
        List.of("cluster", "commit", "jobset", "namespace", "run");

    /** No forges, no link: the controller posts nothing. */
    public static final StatusSettings NONE = new StatusSettings(List.of(), "");

    public StatusSettings {
      forges = List.copyOf(forges);
      Objects.requireNonNull(targetUrl, "targetUrl");
      Objects.requireNonNull(stallAfter, "stallAfter");
      progress = progress == null ? ProgressSettings.DEFAULT : progress;
    }

    /** With the default progress settings. */
    public StatusSettings(
        List<ForgeRoute> forges, String targetUrl, Optional<Duration> stallAfter) {
      this(forges, targetUrl, stallAfter, ProgressSettings.DEFAULT);
    }

    /** Without a stall threshold. */
    public StatusSettings(List<ForgeRoute> forges, String targetUrl) {
      this(forges, targetUrl, Optional.empty());
    }
  }

  /**
   * A running run's progress on the commit ({@code status.progress}):
   *
   * <pre>
   * status:
   *   progress: {stallAfter: 30m, every: 30m, step: 10, failStalledAfter: 2h, untrained: failure}
   * </pre>
   *
   * @param stallAfter no progress and no log line for this long while the pods run: stalled
   * @param every the longest time between two posts of a moving progress
   * @param step a progress is posted each time it crosses a multiple of this percentage (1–100)
   * @param failStalledAfter a running run stalled this long (its progress and log stood still) is
   *     failed: its commit status says so and the controller stops it; empty: never
   * @param failUntrained {@code untrained: failure}: a run that succeeded but did not seem to train
   *     (no training step seen, a world size below nodes × processes, far faster than its job's
   *     earlier runs) is a failure; else ({@code success}, the default) a success that says so
   */
  public record ProgressSettings(
      Duration stallAfter,
      Duration every,
      int step,
      Optional<Duration> failStalledAfter,
      boolean failUntrained) {

    /** 30 minutes, 30 minutes, 10 %, never failed for a stall, an untrained run a success. */
    public static final ProgressSettings DEFAULT =
        new ProgressSettings(Duration.ofMinutes(30), Duration.ofMinutes(30), 10);

    public ProgressSettings {
      Objects.requireNonNull(stallAfter, "stallAfter");
      Objects.requireNonNull(every, "every");
      Objects.requireNonNull(failStalledAfter, "failStalledAfter");
      if (step < 1 || step > 100) {
        throw new IllegalArgumentException("step " + step + " is outside 1-100");
      }
    }

    /** Never failed for a stall; an untrained run is a success. */
    public ProgressSettings(Duration stallAfter, Duration every, int step) {
      this(stallAfter, every, step, Optional.empty(), false);
    }
  }

  /**
   * One forge for statuses.
   *
   * @param source prefix of normalised source repo URLs, on path-segment boundaries: {@code
   *     github.com}, {@code github.com/acme}, {@code gitlab.example/group/sub}
   * @param kind {@code github}, {@code gitlab} or {@code gitea} (Gitea and Forgejo)
   * @param api API root, e.g. {@code https://api.github.com}, {@code
   *     https://gitlab.example/api/v4}, {@code https://codeberg.org/api/v1}
   * @param tokenSecret name of the Secret holding the token (in the controller's namespace), or the
   *     GitHub App's private key when {@code appId} is set
   * @param tokenKey the key of that Secret
   * @param appId {@code app.id}: the GitHub App whose check runs carry the runs' states instead of
   *     commit statuses; 0 for a token and commit statuses
   */
  public record ForgeRoute(
      String source, String kind, String api, String tokenSecret, String tokenKey, long appId) {

    /** A forge posting commit statuses with a token. */
    public ForgeRoute(String source, String kind, String api, String tokenSecret, String tokenKey) {
      this(source, kind, api, tokenSecret, tokenKey, 0);
    }

    /** Whether the runs' states go out as GitHub check runs, signed by a GitHub App. */
    public boolean checks() {
      return appId > 0;
    }
  }

  /**
   * How long a finished run's folder stays in the GitOps repo, counted from when it finished; empty
   * keeps it.
   *
   * @param succeeded for runs that succeeded
   * @param failed for runs that failed
   */
  public record Retention(Optional<Duration> succeeded, Optional<Duration> failed) {
    /** Nothing is pruned. */
    public static final Retention KEEP = new Retention(Optional.empty(), Optional.empty());

    /** This retention where it is set, else {@code fallback}'s, state by state. */
    public Retention over(Retention fallback) {
      return new Retention(succeeded.or(fallback::succeeded), failed.or(fallback::failed));
    }
  }

  /**
   * The retention of runs in {@code namespace} of {@code cluster}: the namespace's, else the
   * platform's.
   */
  public Retention retention(String cluster, String namespace) {
    return namespaces.stream()
        .filter(n -> n.cluster().equals(cluster) && n.name().equals(namespace))
        .findFirst()
        .map(n -> n.retention().over(retention))
        .orElse(retention);
  }

  /** The cluster named {@code name}. */
  public Optional<Cluster> cluster(String name) {
    return clusters.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /** The LocalQueue {@code name} in {@code namespace}. */
  public Optional<LocalQueue> localQueue(String namespace, String name) {
    return queues.localQueues().stream()
        .filter(q -> q.namespace().equals(namespace) && q.name().equals(name))
        .findFirst();
  }

  /** The ClusterQueue {@code name}. */
  public Optional<ClusterQueue> clusterQueue(String name) {
    return queues.clusterQueues().stream().filter(q -> q.name().equals(name)).findFirst();
  }
}
