package dev.trainyard.compiler.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.testing.CompileCall;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.TwoClusterPlatform;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A train.yaml cannot escape its team: namespace allow-lists of source repos, and the namespace's
 * queues.
 */
class TargetChoiceTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String REPO = "github.com/acme/llm-training";
  @TempDir Path temp;
  private int projects;

  private CompileCall call(String trainYaml, String namespaces) {
    Path dir = temp.resolve("p" + projects++);
    TrainProject p = TrainProject.create(dir, trainYaml);
    return CompileCall.of(p.trainYaml())
        .platformText(
            dir, PlatformYaml.base().namespaces(namespaces).localQueues(queues(namespaces)).text());
  }

  /** A LocalQueue {@code q} in each namespace of {@code namespaces}. */
  private static String queues(String namespaces) {
    Matcher m = Pattern.compile("name: (team-[a-z])").matcher(namespaces);
    List<String> queues = new ArrayList<>();
    while (m.find()) {
      queues.add("{name: q, namespace: " + m.group(1) + ", clusterQueue: cq}");
    }
    return queues.toString();
  }

  private CompileCall call(String namespaces) {
    return call("run: torchrun train.py\n", namespaces);
  }

  private static Diagnostic only(CompileResult r, DiagnosticCode code) {
    List<Diagnostic> d = TrainProject.withCode(r, code);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(Severity.ERROR, d.get(0).severity());
    assertFalse(r.tree().isPresent());
    return d.get(0);
  }

  private static String namespace(String name, String sources) {
    return "{name: " + name + ", cluster: local, sources: " + sources + ", defaultQueue: q}";
  }

  @Test
  @DisplayName(
      "--namespace naming a namespace whose sources reject the repo is E404 at the file, with the accepted patterns")
  void namespaceRejectsRepo() {
    CompileResult r =
        call("[" + namespace("team-a", "[\"github.com/other/*\", \"gitlab.com/x/*\"]") + "]")
            .namespace("team-a")
            .compile();
    Diagnostic d = only(r, DiagnosticCode.QUEUE_NOT_ALLOWED);
    assertEquals("namespace \"team-a\" does not accept jobs from " + REPO, d.message());
    assertEquals("train.yaml", d.location().file());
    assertEquals(0, d.location().line());
    WORDING.approve(d.hint());
    assertTrue(d.hint().endsWith("platform.yaml)"), d.hint());
  }

  @Test
  @DisplayName(
      "no namespace of the cluster accepting the repo is E310 with the namespaces in the hint")
  void noNamespaceAccepts() {
    CompileResult r =
        call("["
                + namespace("team-a", "[\"github.com/other/*\"]")
                + ", "
                + namespace("team-b", "[\"github.com/b/*\"]")
                + "]")
            .compile();
    Diagnostic d = only(r, DiagnosticCode.UNKNOWN_TARGET);
    assertEquals("no namespace of cluster \"local\" accepts jobs from " + REPO, d.message());
    WORDING.approve(d.hint());
    assertTrue(d.hint().endsWith("platform.yaml"), d.hint());
  }

  @Test
  @DisplayName(
      "without --namespace the first namespace that accepts the repo is chosen, not the first listed")
  void firstAcceptingNamespace() {
    CompileResult r =
        call("["
                + namespace("team-b", "[\"github.com/b/*\"]")
                + ", "
                + namespace("team-a", "[\"github.com/acme/*\"]")
                + "]")
            .compile();
    assertTrue(
        TrainProject.tree(r).files().keySet().stream()
            .anyMatch(f -> f.startsWith("clusters/local/team-a/")),
        TrainProject.tree(r).files().keySet().toString());
  }

  @Test
  @DisplayName(
      "sources globs: '*' alone allows every repo, '*' stays within a path segment, '**' crosses segments")
  void globs() {
    assertTrue(call("[" + namespace("team-a", "[\"*\"]") + "]").compile().tree().isPresent());
    assertTrue(
        call("[" + namespace("team-a", "[\"github.com/**\"]") + "]").compile().tree().isPresent());
    assertTrue(
        call("[" + namespace("team-a", "[\"github.com/*/llm-training\"]") + "]")
            .compile()
            .tree()
            .isPresent());
    only(
        call("[" + namespace("team-a", "[\"github.com/*\"]") + "]").compile(),
        DiagnosticCode.UNKNOWN_TARGET);
    only(
        call("[" + namespace("team-a", "[\"github.com/acme\"]") + "]").compile(),
        DiagnosticCode.UNKNOWN_TARGET);
  }

  @Test
  @DisplayName("--namespace naming no namespace of the cluster is E310 naming the cluster")
  void unknownNamespace() {
    Diagnostic d =
        only(
            call("[" + namespace("team-a", "[\"*\"]") + "]").namespace("team-z").compile(),
            DiagnosticCode.UNKNOWN_TARGET);
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName("--cluster naming no cluster is E310 listing the clusters")
  void unknownCluster() {
    Diagnostic d =
        only(
            call("[" + namespace("team-a", "[\"*\"]") + "]").cluster("prod").compile(),
            DiagnosticCode.UNKNOWN_TARGET);
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "a queue that is not a LocalQueue of the namespace is E404 at the queue line, listing the namespace's queues")
  void queueOfAnotherNamespace() {
    CompileResult r =
        call("run: torchrun train.py\nqueue: other\n", "[" + namespace("team-a", "[\"*\"]") + "]")
            .compile();
    Diagnostic d = only(r, DiagnosticCode.QUEUE_NOT_ALLOWED);
    WORDING.approve(d.message());
    assertEquals("/queue", d.pointer());
    assertEquals(2, d.location().line());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "only the target cluster's namespaces are candidates, and the queue hint lists the namespace's own queues")
  void otherClusterNotCandidate() {
    Path dir = temp.resolve("two");
    TrainProject p = TrainProject.create(dir, "run: torchrun train.py\nqueue: nope\n");
    String text = TwoClusterPlatform.TEXT;
    Diagnostic queue =
        only(
            CompileCall.of(p.trainYaml()).platformText(dir, text).compile(),
            DiagnosticCode.QUEUE_NOT_ALLOWED);
    WORDING.approve(queue.hint());
    String closed =
        text.replace(
            "{name: team-a, cluster: local, sources: [\"*\"]",
            "{name: team-a, cluster: local, sources: [\"x/*\"]");
    Diagnostic none =
        only(
            CompileCall.of(p.trainYaml()).platformText(dir, closed).compile(),
            DiagnosticCode.UNKNOWN_TARGET);
    assertEquals("no namespace of cluster \"local\" accepts jobs from " + REPO, none.message());
    WORDING.approve(none.hint());
  }
}
