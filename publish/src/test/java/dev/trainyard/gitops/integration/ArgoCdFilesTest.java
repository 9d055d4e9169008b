package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Argo CD files in {@code examples/gitops/argocd/}: kinds and API versions, sync policy, the
 * git directories generators checked against the folders the compiler really writes (every {@code
 * golden/} output tree), the projects' whitelists against the kinds found there, and the argocd-cm
 * health key.
 */
class ArgoCdFilesTest {
  static final String DIR = "examples/gitops/argocd/";
  static final String ARGO = "argoproj.io/v1alpha1";

  @Test
  @DisplayName(
      "argocd-cm holds exactly health/jobset.lua under resource.customizations.health.jobset.x-k8s.io_JobSet")
  void argocdCmHoldsTheLua() {
    JsonNode cm = RepoFiles.yaml(DIR + "argocd-cm.yaml");
    assertEquals("v1", cm.path("apiVersion").asText());
    assertEquals("ConfigMap", cm.path("kind").asText());
    assertEquals("argocd-cm", cm.at("/metadata/name").asText());
    assertEquals("argocd", cm.at("/metadata/namespace").asText());
    assertEquals(
        List.of("resource.customizations.health.jobset.x-k8s.io_JobSet"),
        fieldNames(cm.path("data")));
    assertEquals(
        RepoFiles.text(DIR + "health/jobset.lua"),
        cm.at("/data/resource.customizations.health.jobset.x-k8s.io_JobSet").asText());
  }

  @Test
  @DisplayName(
      "the Application syncs clusters/local automatically with prune and selfHeal, never Replace or Force")
  void application() {
    JsonNode app = RepoFiles.yaml(DIR + "application.yaml");
    assertEquals(ARGO, app.path("apiVersion").asText());
    assertEquals("Application", app.path("kind").asText());
    assertEquals("argocd", app.at("/metadata/namespace").asText());
    assertEquals("clusters/local", app.at("/spec/source/path").asText());
    assertEquals("trainyard", app.at("/spec/project").asText());
    assertAutomatedPruneSelfHeal(app.at("/spec/syncPolicy"));
    // One app for the whole tree: a sync applies only what git changed, not every JobSet again.
    assertEquals(
        "[\"ApplyOutOfSyncOnly=true\"]", app.at("/spec/syncPolicy/syncOptions").toString());
    // The domain-qualified form (a foreground cascade, as the bare name): the API server warns
    // about the bare one.
    assertEquals(
        "[\"resources-finalizer.argocd.argoproj.io/foreground\"]",
        app.at("/metadata/finalizers").toString());
    for (JsonNode doc : RepoFiles.yamlDocuments(DIR + "applicationset.yaml")) {
      if ("ApplicationSet".equals(doc.path("kind").asText())
          && doc.at("/spec/template/metadata/finalizers").isArray()) {
        for (JsonNode f : doc.at("/spec/template/metadata/finalizers")) {
          assertTrue(
              f.asText().contains("/"),
              "domain-qualified finalizer in " + doc.at("/metadata/name") + ": " + f);
        }
      }
    }
  }

  @Test
  @DisplayName("no Argo CD file sets Replace, Force or a TTL anywhere outside comments")
  void noReplaceOrForce() {
    for (String file : List.of("application.yaml", "applicationset.yaml", "appprojects.yaml")) {
      for (JsonNode doc : RepoFiles.yamlDocuments(DIR + file)) {
        String json = RepoFiles.json(doc);
        for (String banned : List.of("Replace=", "Force=", "ttlSecondsAfterFinished")) {
          assertFalse(json.contains(banned), file + " sets " + banned);
        }
      }
    }
  }

  @Test
  @DisplayName(
      "ApplicationSets: queues first (wave -1, preserved on deletion), runs pruned with their resources")
  void applicationSets() {
    JsonNode queues = applicationSet("trainyard-local-queues");
    JsonNode runs = applicationSet("trainyard-local-runs");
    assertEquals(true, queues.at("/spec/syncPolicy/preserveResourcesOnDeletion").asBoolean(false));
    assertTrue(
        runs.at("/spec/syncPolicy/preserveResourcesOnDeletion").isBoolean(),
        "runs must choose preserveResourcesOnDeletion explicitly");
    assertFalse(runs.at("/spec/syncPolicy/preserveResourcesOnDeletion").asBoolean(true));
    int queueWave =
        Integer.parseInt(
            queues
                .at("/spec/template/metadata/annotations/argocd.argoproj.io~1sync-wave")
                .asText());
    int runWave =
        Integer.parseInt(
            runs.at("/spec/template/metadata/annotations/argocd.argoproj.io~1sync-wave")
                .asText("0"));
    assertTrue(queueWave < runWave, "queue apps sync in an earlier wave than runs");
    assertEquals("trainyard", queues.at("/spec/template/spec/project").asText());
    assertEquals("trainyard-runs", runs.at("/spec/template/spec/project").asText());
    for (JsonNode set : List.of(queues, runs)) {
      assertTrue(set.at("/spec/goTemplate").asBoolean(false));
      assertEquals("{{ .path.path }}", set.at("/spec/template/spec/source/path").asText());
      assertAutomatedPruneSelfHeal(set.at("/spec/template/spec/syncPolicy"));
    }
    assertEquals(
        "{{ index .path.segments 2 }}",
        runs.at("/spec/template/spec/destination/namespace").asText());
    String runName = runs.at("/spec/template/metadata/name").asText();
    assertTrue(
        runName.contains("{{ index .path.segments 2 }}")
            && runName.endsWith("{{ .path.basename }}"),
        runName);
  }

  @Test
  @DisplayName(
      "the generators give one app per run folder, per queue folder and per checkpoint claim folder of every golden output tree, none twice")
  void generatorsCoverTheCompiledTree() throws IOException {
    Set<String> folders = compiledFolders();
    Set<String> runs = matched(applicationSet("trainyard-local-runs"), folders);
    Set<String> queues = matched(applicationSet("trainyard-local-queues"), folders);
    Set<String> checkpoints = matched(applicationSet("trainyard-local-checkpoints"), folders);
    Set<String> both = new TreeSet<>(runs);
    both.retainAll(queues);
    assertEquals(Set.of(), both);
    Set<String> overlap = new TreeSet<>(checkpoints);
    overlap.retainAll(runs);
    overlap.addAll(queues.stream().filter(checkpoints::contains).toList());
    assertEquals(Set.of(), overlap);
    Set<String> expectedQueues = new TreeSet<>();
    Set<String> expectedRuns = new TreeSet<>();
    Set<String> expectedCheckpoints = new TreeSet<>();
    for (String folder : folders) {
      if (folder.contains("/_checkpoint-")) {
        expectedCheckpoints.add(folder);
        continue;
      }
      (folder.endsWith("/_cluster") || folder.endsWith("/_queues") ? expectedQueues : expectedRuns)
          .add(folder);
    }
    assertFalse(expectedCheckpoints.isEmpty(), "golden trees hold checkpoint claims");
    assertEquals(expectedCheckpoints, checkpoints);
    assertTrue(
        expectedQueues.contains("clusters/local/_cluster"),
        "golden trees hold clusters/local/_cluster");
    assertTrue(expectedRuns.size() >= 10, "golden trees hold runs: " + expectedRuns);
    assertEquals(expectedRuns, runs);
    assertEquals(expectedQueues, queues);
  }

  @Test
  @DisplayName(
      "each project whitelists exactly what its folders hold: runs no cluster-scoped kind, queues the Kueue ones")
  void projectsAllowWhatTheTreeHolds() throws IOException {
    JsonNode platform = project("trainyard");
    JsonNode runs = project("trainyard-runs");
    assertEquals(0, runs.at("/spec/clusterResourceWhitelist").size());
    assertTrue(
        runs.at("/spec/clusterResourceWhitelist").isArray(), "an explicit empty cluster whitelist");
    for (Path file : compiledManifests()) {
      JsonNode object = RepoFiles.parseDocuments(Files.readString(file)).get(0);
      String kind = object.path("kind").asText();
      if (kind.equals("Kustomization")) {
        continue;
      }
      String folder = file.getParent().getFileName().toString();
      String group = group(object.path("apiVersion").asText());
      if (folder.equals("_cluster")) {
        assertTrue(allows(platform, "clusterResourceWhitelist", group, kind), file.toString());
      } else if (folder.equals("_queues")) {
        assertTrue(allows(platform, "namespaceResourceWhitelist", group, kind), file.toString());
      } else {
        assertTrue(allows(runs, "namespaceResourceWhitelist", group, kind), file.toString());
        assertTrue(
            allows(platform, "namespaceResourceWhitelist", group, kind),
            "single-app variant: " + file);
      }
    }
  }

  @Test
  @DisplayName("every app points at one GitOps repo and revision that its project allows")
  void sourcesMatchProjects() {
    List<JsonNode> sources = new ArrayList<>();
    sources.add(RepoFiles.yaml(DIR + "application.yaml").at("/spec/source"));
    for (JsonNode set : RepoFiles.yamlDocuments(DIR + "applicationset.yaml")) {
      sources.add(set.at("/spec/template/spec/source"));
      for (JsonNode generator : set.at("/spec/generators")) {
        assertEquals(
            sources.get(0).path("repoURL").asText(), generator.at("/git/repoURL").asText());
        assertEquals(
            sources.get(0).path("targetRevision").asText(), generator.at("/git/revision").asText());
      }
    }
    for (JsonNode source : sources) {
      assertEquals(sources.get(0).path("repoURL").asText(), source.path("repoURL").asText());
      assertEquals("main", source.path("targetRevision").asText());
      for (String name : List.of("trainyard", "trainyard-runs")) {
        assertEquals(
            source.path("repoURL").asText(), project(name).at("/spec/sourceRepos/0").asText());
      }
    }
  }

  private static void assertAutomatedPruneSelfHeal(JsonNode syncPolicy) {
    assertTrue(syncPolicy.at("/automated/prune").asBoolean(false), "prune: true");
    assertTrue(syncPolicy.at("/automated/selfHeal").asBoolean(false), "selfHeal: true");
  }

  private static JsonNode applicationSet(String name) {
    for (JsonNode doc : RepoFiles.yamlDocuments(DIR + "applicationset.yaml")) {
      assertEquals(ARGO, doc.path("apiVersion").asText());
      assertEquals("ApplicationSet", doc.path("kind").asText());
      if (name.equals(doc.at("/metadata/name").asText())) {
        return doc;
      }
    }
    throw new AssertionError("no ApplicationSet " + name);
  }

  private static JsonNode project(String name) {
    for (JsonNode doc : RepoFiles.yamlDocuments(DIR + "appprojects.yaml")) {
      assertEquals(ARGO, doc.path("apiVersion").asText());
      assertEquals("AppProject", doc.path("kind").asText());
      if (name.equals(doc.at("/metadata/name").asText())) {
        return doc;
      }
    }
    throw new AssertionError("no AppProject " + name);
  }

  /**
   * The folders a git directories generator picks: a folder matching an include path and no exclude
   * path. Argo CD matches each path with Go's path.Match, whose {@code *} never crosses {@code /};
   * Java's glob matcher has the same rule.
   */
  private static Set<String> matched(JsonNode applicationSet, Set<String> folders) {
    List<PathMatcher> include = new ArrayList<>();
    List<PathMatcher> exclude = new ArrayList<>();
    for (JsonNode directory : applicationSet.at("/spec/generators/0/git/directories")) {
      PathMatcher matcher =
          FileSystems.getDefault().getPathMatcher("glob:" + directory.path("path").asText());
      (directory.path("exclude").asBoolean(false) ? exclude : include).add(matcher);
    }
    Set<String> out = new TreeSet<>();
    for (String folder : folders) {
      Path p = Path.of(folder);
      if (include.stream().anyMatch(m -> m.matches(p))
          && exclude.stream().noneMatch(m -> m.matches(p))) {
        out.add(folder);
      }
    }
    return out;
  }

  /**
   * Every folder that holds manifests (a kustomize root) in the golden output trees, relative to
   * the tree root.
   */
  private static Set<String> compiledFolders() throws IOException {
    Set<String> out = new TreeSet<>();
    for (Path manifest : compiledManifests()) {
      out.add(treeRoot(manifest).relativize(manifest.getParent()).toString().replace('\\', '/'));
    }
    return out;
  }

  private static List<Path> compiledManifests() throws IOException {
    try (Stream<Path> files = Files.walk(RepoFiles.path("golden"))) {
      return files
          .filter(f -> f.toString().replace('\\', '/').contains("/expected/clusters/local/"))
          .filter(f -> f.toString().endsWith(".yaml"))
          .sorted()
          .toList();
    }
  }

  private static Path treeRoot(Path manifest) {
    Path p = manifest;
    while (!p.getFileName().toString().equals("expected")) {
      p = p.getParent();
    }
    return p;
  }

  private static boolean allows(JsonNode project, String list, String group, String kind) {
    for (JsonNode entry : project.at("/spec/" + list)) {
      if (entry.path("group").asText().equals(group) && entry.path("kind").asText().equals(kind)) {
        return true;
      }
    }
    return false;
  }

  private static String group(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
