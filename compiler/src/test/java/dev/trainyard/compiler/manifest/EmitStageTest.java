package dev.trainyard.compiler.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * EmitStage on hand-built sets: one file per object, a kustomization.yaml per folder, and the
 * folders a compile owns.
 */
class EmitStageTest {
  private static Manifest object(String kind, String name, String namespace) {
    return Manifest.of(Manifest.skeleton("v1", kind, name, namespace));
  }

  private static ManifestSet set(List<Manifest> clusterQueues, List<Manifest> localQueues) {
    return new ManifestSet(
        "prod",
        "team-a",
        "demo-1a2b3c",
        List.of(
            object("JobSet", "demo-1a2b3c", "team-a"),
            object("ConfigMap", "demo-1a2b3c-mpi", "team-a")),
        clusterQueues,
        localQueues);
  }

  @Test
  @DisplayName(
      "the run, the cluster's queue objects and the namespace's LocalQueues each get a folder with a kustomization.yaml")
  void layout() {
    OutputTree tree =
        new EmitStage()
            .emit(
                set(
                    List.of(object("ClusterQueue", "cq", "")),
                    List.of(object("LocalQueue", "q", "team-a"))));
    assertEquals(
        List.of(
            "clusters/prod/_cluster/clusterqueue-cq.yaml",
            "clusters/prod/_cluster/kustomization.yaml",
            "clusters/prod/team-a/_queues/kustomization.yaml",
            "clusters/prod/team-a/_queues/localqueue-q.yaml",
            "clusters/prod/team-a/demo-1a2b3c/configmap-demo-1a2b3c-mpi.yaml",
            "clusters/prod/team-a/demo-1a2b3c/jobset-demo-1a2b3c.yaml",
            "clusters/prod/team-a/demo-1a2b3c/kustomization.yaml"),
        List.copyOf(tree.files().keySet()));
    assertEquals(
        List.of(
            "clusters/prod/team-a/demo-1a2b3c",
            "clusters/prod/_cluster",
            "clusters/prod/team-a/_queues"),
        tree.ownedFolders());
  }

  @Test
  @DisplayName(
      "each object file is the object's YAML; a cluster-scoped object has no metadata.namespace")
  void objectFiles() {
    OutputTree tree =
        new EmitStage().emit(set(List.of(object("ClusterQueue", "cq", "")), List.of()));
    assertEquals(
        "apiVersion: v1\nkind: ClusterQueue\nmetadata:\n  name: cq\n",
        tree.files().get("clusters/prod/_cluster/clusterqueue-cq.yaml"));
    assertEquals(
        "apiVersion: v1\nkind: JobSet\nmetadata:\n  name: demo-1a2b3c\n  namespace: team-a\n",
        tree.files().get("clusters/prod/team-a/demo-1a2b3c/jobset-demo-1a2b3c.yaml"));
  }

  @Test
  @DisplayName("a folder's kustomization.yaml lists its files sorted")
  void runKustomization() {
    OutputTree tree = new EmitStage().emit(set(List.of(), List.of()));
    assertEquals(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
            + "- configmap-demo-1a2b3c-mpi.yaml\n- jobset-demo-1a2b3c.yaml\n",
        tree.files().get("clusters/prod/team-a/demo-1a2b3c/kustomization.yaml"));
  }

  @Test
  @DisplayName(
      "without queue objects there are no queue folders, and the compile owns the run folder only")
  void noQueueFolders() {
    OutputTree tree = new EmitStage().emit(set(List.of(), List.of()));
    assertEquals(3, tree.files().size(), tree.files().keySet().toString());
    assertEquals(List.of("clusters/prod/team-a/demo-1a2b3c"), tree.ownedFolders());
  }

  @Test
  @DisplayName(
      "runFolder is clusters/<cluster>/<namespace>/<run>; kustomization sorts what it is given")
  void helpers() {
    assertEquals(
        "clusters/prod/team-a/demo-1a2b3c", TreeLayout.runFolder("prod", "team-a", "demo-1a2b3c"));
    assertEquals(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- a\n- b/\n- c.yaml\n",
        EmitStage.kustomization(List.of("c.yaml", "a", "b/")));
  }

  @Test
  @DisplayName(
      "Manifest: file name <kind>-<name>.yaml in lower case; skeleton leaves out an empty namespace; of() reads identity back")
  void manifestBasics() {
    ObjectNode o = Manifest.skeleton("kueue.x-k8s.io/v1beta2", "ResourceFlavor", "gpu", "");
    assertEquals(
        "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"ResourceFlavor\",\"metadata\":{\"name\":\"gpu\"}}",
        o.toString());
    Manifest m = Manifest.of(o);
    assertEquals(new Manifest("kueue.x-k8s.io/v1beta2", "ResourceFlavor", "gpu", "", o), m);
    assertEquals("resourceflavor-gpu.yaml", m.fileName());
    Manifest namespaced = object("LocalQueue", "q", "team-a");
    assertEquals("team-a", namespaced.namespace());
  }

  @Test
  @DisplayName(
      "Manifest and OutputTree hand out copies: changing what a caller got changes nothing inside")
  void copies() {
    Manifest m = object("ConfigMap", "c", "team-a");
    m.object().put("kind", "Secret");
    assertEquals("ConfigMap", m.object().path("kind").asText());
    ObjectNode source = Manifest.skeleton("v1", "ConfigMap", "c", "team-a");
    Manifest wrapped = Manifest.of(source);
    source.put("kind", "Secret");
    assertEquals("ConfigMap", wrapped.object().path("kind").asText());
  }
}
