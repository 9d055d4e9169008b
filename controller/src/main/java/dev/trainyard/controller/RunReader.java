package dev.trainyard.controller;

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
import java.util.List;
import java.util.Optional;

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
            return ListedRuns.assemble(jobSets, pods(namespace), workloads(namespace), clock.instant());
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
        try {
            return client.pods().inNamespace(key.namespace()).withLabel(Snapshots.JOBSET_NAME, key.name()).list()
                    .getItems();
        } catch (KubernetesClientException e) {
            throw new ClusterAccessException("cannot list the pods of " + key.cacheKey() + ": " + e.getMessage(), e);
        }
    }

    KubernetesClient client() {
        return client;
    }

    private List<Pod> pods(String namespace) {
        var op = client.pods();
        return namespace == null ? op.inAnyNamespace().withLabel(Snapshots.JOBSET_NAME).list().getItems()
                : op.inNamespace(namespace).withLabel(Snapshots.JOBSET_NAME).list().getItems();
    }

    /** Every Workload; none when Kueue's API is not served. */
    private List<GenericKubernetesResource> workloads(String namespace) {
        try {
            var op = client.genericKubernetesResources(ClusterWatch.WORKLOAD_API, "Workload");
            return namespace == null ? op.inAnyNamespace().list().getItems() : op.inNamespace(namespace).list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return List.of();
            }
            throw e;
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
