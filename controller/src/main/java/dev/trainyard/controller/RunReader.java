package dev.trainyard.controller;

import dev.trainyard.compiler.render.Provenance;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.WorkloadSnapshot;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Reads runs with list calls through the user's kubeconfig, for {@code trainyard status} and
 * {@code trainyard logs}: the same snapshots the controller builds from its informer caches, so both map
 * through the same {@code RunStateMapper}. A run is a JobSet carrying {@code trainyard.dev/source-commit};
 * it is named by its {@code trainyard.dev/run} label (or the JobSet name).
 */
public final class RunReader implements AutoCloseable {

    private final KubernetesClient client;
    private final Clock clock;

    public RunReader(KubernetesClient client, Clock clock) {
        this.client = client;
        this.clock = clock;
    }

    /** A reader on {@code kubeconfig} (else $KUBECONFIG or ~/.kube/config) and {@code context} (else current). */
    public static RunReader connect(Optional<Path> kubeconfig, Optional<String> context, Clock clock) {
        try {
            Config config = kubeconfig.isPresent()
                    ? Config.fromKubeconfig(context.orElse(null), Files.readString(kubeconfig.get(), StandardCharsets.UTF_8),
                            kubeconfig.get().toString())
                    : Config.autoConfigure(context.orElse(null));
            // A person waits at the terminal: fail within seconds rather than after fabric8's 10 retries.
            config.setRequestRetryBackoffLimit(1);
            config.setConnectionTimeout(5_000);
            return new RunReader(new KubernetesClientBuilder().withConfig(config).build(), clock);
        } catch (IOException | KubernetesClientException e) {
            throw new ClusterAccessException("cannot read the kubeconfig: " + e.getMessage(), e);
        }
    }

    /** The namespace the kubeconfig context names, else "default". */
    public String defaultNamespace() {
        String ns = client.getConfiguration().getNamespace();
        return ns == null || ns.isBlank() ? "default" : ns;
    }

    /** Every run in {@code namespace} (null: all namespaces), sorted by namespace and run name. */
    public List<ObservedRun> list(String namespace) {
        try {
            var jobSets = namespace == null ? client.genericKubernetesResources(ClusterWatch.JOBSET_API, "JobSet")
                    .inAnyNamespace().list().getItems()
                    : client.genericKubernetesResources(ClusterWatch.JOBSET_API, "JobSet").inNamespace(namespace)
                            .list().getItems();
            List<GenericKubernetesResource> runs = jobSets.stream().filter(RunReader::isRun).toList();
            Map<String, List<Pod>> pods = pods(namespace);
            Map<String, GenericKubernetesResource> workloads = workloads(namespace);
            return runs.stream().map(js -> observed(js, pods, workloads))
                    .sorted(Comparator.comparing((ObservedRun r) -> r.key().namespace())
                            .thenComparing(r -> r.provenance().run())).toList();
        } catch (KubernetesClientException e) {
            throw new ClusterAccessException("cannot list runs: " + e.getMessage(), e);
        }
    }

    /** The run named {@code run} (run label or JobSet name) in {@code namespace}. */
    public Optional<ObservedRun> get(String namespace, String run) {
        return list(namespace).stream().filter(r -> r.provenance().run().equals(run) || r.key().name().equals(run))
                .findFirst();
    }

    /** The pods of {@code key}'s JobSet, typed, for log reading. */
    List<Pod> podsOf(RunKey key) {
        return client.pods().inNamespace(key.namespace()).withLabel(Snapshots.JOBSET_NAME, key.name()).list()
                .getItems();
    }

    KubernetesClient client() {
        return client;
    }

    private ObservedRun observed(GenericKubernetesResource js, Map<String, List<Pod>> pods,
            Map<String, GenericKubernetesResource> workloads) {
        RunKey key = new RunKey(js.getMetadata().getNamespace(), js.getMetadata().getName());
        List<PodSnapshot> snapshots = pods.getOrDefault(key.cacheKey(), List.of()).stream().map(Snapshots::pod).toList();
        Optional<WorkloadSnapshot> wl = Optional.ofNullable(workloads.get(key.cacheKey())).map(Snapshots::workload);
        RunProvenance p = RunProvenance.of(js.getMetadata().getAnnotations(), js.getMetadata().getLabels(),
                js.getMetadata().getName()).orElseThrow();
        return new ObservedRun(key, p, new RunObservation(Snapshots.jobSet(js), snapshots, wl, clock.instant()));
    }

    private Map<String, List<Pod>> pods(String namespace) {
        var op = client.pods();
        List<Pod> items = namespace == null ? op.inAnyNamespace().withLabel(Snapshots.JOBSET_NAME).list().getItems()
                : op.inNamespace(namespace).withLabel(Snapshots.JOBSET_NAME).list().getItems();
        return items.stream().collect(Collectors.groupingBy(p -> p.getMetadata().getNamespace() + "/"
                + p.getMetadata().getLabels().get(Snapshots.JOBSET_NAME)));
    }

    /** Workloads by owning JobSet key; none when Kueue's API is not served. */
    private Map<String, GenericKubernetesResource> workloads(String namespace) {
        try {
            var op = client.genericKubernetesResources(ClusterWatch.WORKLOAD_API, "Workload");
            List<GenericKubernetesResource> items = namespace == null ? op.inAnyNamespace().list().getItems()
                    : op.inNamespace(namespace).list().getItems();
            return items.stream().filter(w -> ClusterWatch.owner(w).isPresent())
                    .collect(Collectors.toMap(w -> ClusterWatch.owner(w).get().cacheKey(), w -> w, (a, b) -> a));
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return Map.of();
            }
            throw e;
        }
    }

    private static boolean isRun(GenericKubernetesResource js) {
        Map<String, String> a = js.getMetadata().getAnnotations();
        return a != null && a.containsKey(Provenance.SOURCE_COMMIT);
    }

    @Override
    public void close() {
        client.close();
    }
}
