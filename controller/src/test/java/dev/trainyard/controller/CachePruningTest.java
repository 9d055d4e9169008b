package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CachePruningTest {

  static final String BIG_JOBSET =
      SnapshotsTest.JOBSET
          .replace(
              "  labels: {kueue.x-k8s.io/queue-name: gpu}",
              "  labels: {kueue.x-k8s.io/queue-name: gpu}\n  resourceVersion: \"42\"\n  annotations:\n"
                  + "    trainyard.dev/source-commit: abc\n    kubectl.kubernetes.io/last-applied-configuration: '{}'")
          .replace(
              "template: {spec: {parallelism: 4, completions: 4}}",
              "template: {spec: {parallelism: 4, completions: 4, template: {spec: {containers:"
                  + " [{name: node, image: x, env: [{name: A, value: b}, {name: PET_NPROC_PER_NODE,"
                  + " value: \"8\"}]}]}}}}");

  @Test
  @DisplayName("a pruned JobSet, pod or Workload gives exactly the snapshot of the full object")
  void sameSnapshots() {
    GenericKubernetesResource js =
        Serialization.unmarshal(BIG_JOBSET, GenericKubernetesResource.class);
    assertEquals(Snapshots.jobSet(js), Snapshots.jobSet(CachePruning.jobSet(js)));
    Pod pod = Serialization.unmarshal(SnapshotsTest.POD, Pod.class);
    assertEquals(Snapshots.pod(pod), Snapshots.pod(CachePruning.pod(pod)));
    GenericKubernetesResource wl =
        Serialization.unmarshal(SnapshotsTest.WORKLOAD, GenericKubernetesResource.class);
    assertEquals(Snapshots.workload(wl), Snapshots.workload(CachePruning.workload(wl)));
    assertEquals(RunKeys.owner(wl), RunKeys.owner(CachePruning.workload(wl)));
  }

  @Test
  @DisplayName(
      "pruning drops pod templates and last-applied, keeps provenance, labels and resource version")
  void drops() {
    GenericKubernetesResource js =
        CachePruning.jobSet(Serialization.unmarshal(BIG_JOBSET, GenericKubernetesResource.class));
    String yaml = Serialization.asYaml(js);
    assertFalse(yaml.contains("name: A"), yaml);
    assertFalse(yaml.contains("image"), yaml);
    assertEquals(
        8, Snapshots.jobSet(js).settings().processesPerNode(), "only PET_NPROC_PER_NODE is kept");
    assertFalse(yaml.contains("last-applied"), yaml);
    assertEquals("abc", js.getMetadata().getAnnotations().get("trainyard.dev/source-commit"));
    assertEquals("42", js.getMetadata().getResourceVersion());
    assertEquals("gpu", js.getMetadata().getLabels().get("kueue.x-k8s.io/queue-name"));
    assertTrue(yaml.contains("restarts: 1"), yaml);
    assertEquals(
        10,
        Snapshots.jobSet(js).expectedNodes(),
        "the launcher's runs-ranks mark survives pruning");
  }

  @Test
  @DisplayName("the informer store keeps the pruned copy under namespace/name")
  void store() {
    BasicItemStore<GenericKubernetesResource> store = CachePruning.store(CachePruning::jobSet);
    GenericKubernetesResource js =
        Serialization.unmarshal(BIG_JOBSET, GenericKubernetesResource.class);
    assertNull(store.put(store.getKey(js), js));
    GenericKubernetesResource kept = store.get("team-a/llama-ft-7f3a9c");
    assertFalse(Serialization.asYaml(kept).contains("name: A"));
    assertFalse(Serialization.asYaml(kept).contains("image"));
    assertEquals(1, store.size());
  }
}
