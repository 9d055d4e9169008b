package dev.trainyard.controller;

import dev.trainyard.compiler.render.Provenance;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * What the informer caches keep of each object: only the fields {@link Snapshots} and the event
 * handlers read (names, labels, the provenance annotations, owner references, resource version,
 * JobSet counts and deadline, the runs-ranks mark of a pod template, and status, pod node,
 * container names and images and status, Workload status and {@code spec.active}). Pod templates,
 * env, managedFields and last-applied annotations are dropped, which is most of a JobSet's bytes;
 * the benchmark measured 10,000 full JobSets overflowing a 128 MiB heap.
 */
final class CachePruning {

  private static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

  private CachePruning() {}

  /** An informer item store keyed namespace/name that stores {@code prune(object)}. */
  static <V extends HasMetadata> BasicItemStore<V> store(UnaryOperator<V> prune) {
    return new BasicItemStore<>(Cache::metaNamespaceKeyFunc) {
      @Override
      public V put(String key, V obj) {
        return super.put(key, prune.apply(obj));
      }
    };
  }

  static GenericKubernetesResource jobSet(GenericKubernetesResource js) {
    Map<String, Object> spec = Snapshots.map(js.getAdditionalProperties().get("spec"));
    Map<String, Object> kept = new LinkedHashMap<>();
    copy(spec, kept, "suspend");
    Object maxRestarts = Snapshots.map(spec.get("failurePolicy")).get("maxRestarts");
    if (maxRestarts != null) {
      kept.put("failurePolicy", Map.of("maxRestarts", maxRestarts));
    }
    List<Map<String, Object>> rjobs = new ArrayList<>();
    for (Object o : Snapshots.list(spec.get("replicatedJobs"))) {
      Map<String, Object> rjob = Snapshots.map(o);
      Map<String, Object> jobSpec = Snapshots.map(Snapshots.map(rjob.get("template")).get("spec"));
      Map<String, Object> counts = new LinkedHashMap<>();
      copy(jobSpec, counts, "parallelism");
      copy(jobSpec, counts, "completions");
      copy(jobSpec, counts, "activeDeadlineSeconds");
      if (!Snapshots.templateRunsRanks(jobSpec)) {
        // Of the pod template only the mark that its pods are no nodes (an MPI launcher).
        counts.put(
            "template",
            Map.of("metadata", Map.of("annotations", Map.of(Provenance.RUNS_RANKS, "false"))));
      } else {
        int procs = Snapshots.processesPerNode(jobSpec);
        if (procs > 0) {
          // Of a node's pod template only its processes per node ("did it train alone?").
          counts.put(
              "template",
              Map.of(
                  "spec",
                  Map.of(
                      "containers",
                      List.of(
                          Map.of(
                              "env",
                              List.of(
                                  Map.of(
                                      "name",
                                      "PET_NPROC_PER_NODE",
                                      "value",
                                      Integer.toString(procs))))))));
        }
      }
      Map<String, Object> r = new LinkedHashMap<>();
      copy(rjob, r, "name");
      copy(rjob, r, "replicas");
      r.put("template", Map.of("spec", counts));
      rjobs.add(r);
    }
    kept.put("replicatedJobs", rjobs);
    return generic(js, kept);
  }

  /** Metadata, status and {@code spec.active} (false: deactivated). */
  static GenericKubernetesResource workload(GenericKubernetesResource wl) {
    Map<String, Object> kept = new LinkedHashMap<>();
    copy(Snapshots.map(wl.getAdditionalProperties().get("spec")), kept, "active");
    return generic(wl, kept);
  }

  /** Metadata only (a LocalQueue: whether it exists is all that is read). */
  static GenericKubernetesResource name(GenericKubernetesResource o) {
    GenericKubernetesResource copy = new GenericKubernetesResource();
    copy.setApiVersion(o.getApiVersion());
    copy.setKind(o.getKind());
    copy.setMetadata(meta(o.getMetadata()));
    return copy;
  }

  static Pod pod(Pod pod) {
    PodBuilder b =
        new PodBuilder()
            .withApiVersion(pod.getApiVersion())
            .withKind(pod.getKind())
            .withMetadata(meta(pod.getMetadata()))
            .withStatus(pod.getStatus());
    if (pod.getSpec() != null) {
      b.withNewSpec()
          .withNodeName(pod.getSpec().getNodeName())
          .withContainers(images(pod.getSpec().getContainers()))
          .withInitContainers(images(pod.getSpec().getInitContainers()))
          .endSpec();
    }
    return b.build();
  }

  private static GenericKubernetesResource generic(
      GenericKubernetesResource o, Map<String, Object> spec) {
    GenericKubernetesResource copy = new GenericKubernetesResource();
    copy.setApiVersion(o.getApiVersion());
    copy.setKind(o.getKind());
    copy.setMetadata(meta(o.getMetadata()));
    if (spec != null) {
      copy.setAdditionalProperty("spec", spec);
    }
    Object status = o.getAdditionalProperties().get("status");
    if (status != null) {
      copy.setAdditionalProperty("status", status);
    }
    return copy;
  }

  private static ObjectMeta meta(ObjectMeta m) {
    Map<String, String> annotations =
        m.getAnnotations() == null ? null : new LinkedHashMap<>(m.getAnnotations());
    if (annotations != null) {
      annotations.remove(LAST_APPLIED);
    }
    return new ObjectMetaBuilder()
        .withName(m.getName())
        .withNamespace(m.getNamespace())
        .withUid(m.getUid())
        .withResourceVersion(m.getResourceVersion())
        .withCreationTimestamp(m.getCreationTimestamp())
        .withDeletionTimestamp(m.getDeletionTimestamp())
        .withLabels(m.getLabels())
        .withAnnotations(annotations)
        .withOwnerReferences(m.getOwnerReferences())
        .build();
  }

  private static List<Container> images(List<Container> containers) {
    return containers == null
        ? List.of()
        : containers.stream()
            .map(c -> new ContainerBuilder().withName(c.getName()).withImage(c.getImage()).build())
            .toList();
  }

  private static void copy(Map<String, Object> from, Map<String, Object> to, String key) {
    if (from.containsKey(key)) {
      to.put(key, from.get(key));
    }
  }
}
