package dev.trainyard.compiler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.cluster.ClusterDryRun.ClusterUnavailableException;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.WebPageServer;
import dev.trainyard.compiler.testing.Wording;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server-side dry run against a real kube-apiserver with the JobSet and Kueue CRDs (no
 * webhooks): what the server accepts gives no diagnostic, each rejection is an E602 at the
 * train.yaml field behind the rejected one, and an unreachable or misconfigured cluster is an
 * environment error. Not run (an assumption with the reason) when the k8s binaries cache is not
 * built.
 */
class ClusterDryRunTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String TRAIN = "run: torchrun train.py\nnodes: 2\nresources: {cpu: 3}\n";
  private static LocalApiServer server;
  @TempDir Path temp;

  @BeforeAll
  static void startServer() {
    StringBuilder reason = new StringBuilder();
    Optional<Path> cache = LocalApiServer.binaries(reason);
    Assumptions.assumeTrue(cache.isPresent(), "NOT RUN: " + reason);
    server = LocalApiServer.shared(cache.get());
  }

  private static ClusterDryRun connect() {
    return ClusterDryRun.connect(Optional.of(server.kubeconfig()), Optional.empty());
  }

  private CompileResult compile() {
    CompileResult r = TrainProject.create(temp, TRAIN).compile();
    TrainProject.tree(r);
    return r;
  }

  /**
   * {@code tree} with the first match of {@code regex} replaced in the one file whose name starts
   * with {@code prefix}.
   */
  private static OutputTree edited(OutputTree tree, String prefix, String regex, String to) {
    TreeMap<String, String> files = new TreeMap<>(tree.files());
    String key =
        files.keySet().stream()
            .filter(f -> f.substring(f.lastIndexOf('/') + 1).startsWith(prefix))
            .findFirst()
            .orElseThrow();
    String text = files.get(key);
    assertTrue(Pattern.compile(regex).matcher(text).find(), text);
    files.put(key, text.replaceFirst(regex, to));
    return new OutputTree(files, tree.ownedFolders());
  }

  @Test
  @DisplayName(
      "a compiled torch run (JobSet, ClusterQueue, ResourceFlavor, LocalQueue) passes the dry run with no diagnostic")
  void acceptedTree() {
    CompileResult r = compile();
    try (ClusterDryRun dryRun = connect()) {
      assertEquals(List.of(), dryRun.check(r.tree().orElseThrow(), r.job().orElseThrow()));
    }
  }

  @Test
  @DisplayName(
      "with networkPolicy.runs the run's NetworkPolicy passes the dry run beside its JobSet")
  void networkPolicyAccepted() throws IOException {
    String platform;
    try (var in = getClass().getClassLoader().getResourceAsStream(PlatformLoader.EMBEDDED)) {
      platform = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    CompileResult r =
        TrainProject.create(temp, TRAIN)
            .withPlatform(platform + "networkPolicy: {runs: true}\n")
            .compile();
    OutputTree tree = TrainProject.tree(r);
    assertTrue(
        tree.files().keySet().stream().anyMatch(f -> f.contains("/networkpolicy-")),
        tree.files().keySet().toString());
    try (ClusterDryRun dryRun = connect()) {
      assertEquals(List.of(), dryRun.check(tree, r.job().orElseThrow()));
    }
  }

  @Test
  @DisplayName(
      "a value the JobSet CRD schema rejects is E602 naming the field, at train.yaml's resources line with a hint to change it")
  void rejectedField() {
    CompileResult r = compile();
    OutputTree bad = edited(r.tree().orElseThrow(), "jobset-", "cpu: \"?3\"?", "cpu: lots");
    List<Diagnostic> found;
    try (ClusterDryRun dryRun = connect()) {
      found = dryRun.check(bad, r.job().orElseThrow());
    }
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(DiagnosticCode.CLUSTER_REJECTED, d.code());
    assertTrue(d.isError());
    String name = r.job().orElseThrow().naming().runName();
    assertTrue(
        d.message()
            .startsWith(
                "the cluster rejected JobSet "
                    + name
                    + ": spec.replicatedJobs[0].template.spec.template.spec.containers[0].resources."),
        d.message());
    assertEquals("/resources", d.pointer());
    assertEquals(3, d.location().line());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "an object the server has no API for (its CRD not installed) is one E602 at the file, naming the apiVersion, the object and its tree file, never its content")
  void rejectedWithoutCauses() {
    CompileResult r = compile();
    TreeMap<String, String> files = new TreeMap<>(r.tree().orElseThrow().files());
    files.put(
        "clusters/local/default/x/widget-w.yaml",
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\n"
            + "spec: {env: [{name: HF_TOKEN, value: hf_abcdefghijklmnopqrstuvwxyz}]}\n");
    List<Diagnostic> found;
    try (ClusterDryRun dryRun = connect()) {
      found =
          dryRun.check(
              new OutputTree(files, r.tree().orElseThrow().ownedFolders()), r.job().orElseThrow());
    }
    assertEquals(1, found.size(), found.toString());
    Diagnostic d = found.get(0);
    assertEquals(DiagnosticCode.CLUSTER_REJECTED, d.code());
    assertFalse(d.message().contains("hf_abc"), d.message());
    assertFalse(d.message().contains("GenericKubernetesResource"), d.message());
    WORDING.approve(d.message());
    assertEquals("", d.pointer());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "a client-side failure's message is shown up to its first bracket, parenthesis, quote or line break (fabric8 prints the object after them)")
  void clientSideMessage() {
    // fabric8's message as the dry run in rejectedWithoutCauses gets it, the object shortened.
    String recorded =
        "Could not find a registered handler for item: [GenericKubernetesResource(apiVersion=example.com/v1,"
            + " kind=Widget, additionalProperties={spec={env=[{name=HF_TOKEN, value=hf_abc}]}})].";
    assertEquals(
        "Could not find a registered handler for item: …",
        ClusterDryRun.clientSide(new KubernetesClientException(recorded)));
    assertEquals("boom …", ClusterDryRun.clientSide(new KubernetesClientException("boom (x)")));
    assertEquals("boom …", ClusterDryRun.clientSide(new KubernetesClientException("boom 'x'")));
    assertEquals("boom …", ClusterDryRun.clientSide(new KubernetesClientException("boom \"x\"")));
    assertEquals("boom …", ClusterDryRun.clientSide(new KubernetesClientException("boom\nx")));
    assertEquals("boom", ClusterDryRun.clientSide(new KubernetesClientException("boom")));
    assertTrue(ClusterDryRun.unserved(new KubernetesClientException(recorded)));
    assertFalse(ClusterDryRun.unserved(new KubernetesClientException("boom")));
  }

  @Test
  @DisplayName(
      "a value the server cannot even type (a string for an integer) is one E602 at the file with the server's reason")
  void rejectedUntyped() {
    CompileResult r = compile();
    OutputTree bad =
        edited(r.tree().orElseThrow(), "jobset-", "parallelism: 2", "parallelism: \"two\"");
    List<Diagnostic> found;
    try (ClusterDryRun dryRun = connect()) {
      found = dryRun.check(bad, r.job().orElseThrow());
    }
    assertEquals(1, found.size(), found.toString());
    String name = r.job().orElseThrow().naming().runName();
    assertTrue(
        found
            .get(0)
            .message()
            .startsWith(
                "the cluster rejected JobSet "
                    + name
                    + " (clusters/local/default/"
                    + name
                    + "/jobset-"
                    + name
                    + ".yaml): "),
        found.get(0).message());
    assertTrue(found.get(0).message().contains("parallelism"), found.get(0).message());
    assertEquals("", found.get(0).pointer());
  }

  @Test
  @DisplayName(
      "a server that answers with a web page (a wrong port, a proxy's login) is an environment error saying it did not answer as a Kubernetes API server does, not the JSON reader's words")
  void webPage() throws IOException {
    try (WebPageServer web = new WebPageServer()) {
      String url = web.url();
      Path config =
          Files.writeString(
              temp.resolve("web"),
              Files.readString(server.kubeconfig())
                  .replaceAll("server: https://127.0.0.1:\\d+", "server: " + url));
      ClusterUnavailableException e =
          assertThrows(
              ClusterUnavailableException.class,
              () -> ClusterDryRun.connect(Optional.of(config), Optional.empty()));
      assertTrue(
          e.getMessage()
              .endsWith(
                  " did not answer as a Kubernetes API server does (its answer is not Kubernetes"
                      + " JSON: a wrong port, a proxy or a login page?)"),
          e.getMessage());
      assertTrue(e.getMessage().startsWith("the cluster at " + url), e.getMessage());
      assertTrue(ClusterDryRun.notKubernetes(e.getCause()));
      assertFalse(ClusterDryRun.notKubernetes(new IOException("x", new IOException("y"))));
    }
  }

  @Test
  @DisplayName(
      "the current context by name connects; a context the kubeconfig lacks is an environment error naming it and listing the contexts it has")
  void contexts() {
    ClusterDryRun.connect(Optional.of(server.kubeconfig()), Optional.of("local")).close();
    ClusterUnavailableException e =
        assertThrows(
            ClusterUnavailableException.class,
            () -> ClusterDryRun.connect(Optional.of(server.kubeconfig()), Optional.of("prod")));
    assertEquals("kubeconfig has no context \"prod\" (it has: local)", e.getMessage());
  }

  @Test
  @DisplayName(
      "an unreadable kubeconfig, a closed port and a wrong token are environment errors, never rejections")
  void unavailable() throws IOException {
    Path missing = temp.resolve("nope");
    ClusterUnavailableException unreadable =
        assertThrows(
            ClusterUnavailableException.class,
            () -> ClusterDryRun.connect(Optional.of(missing), Optional.empty()));
    assertEquals("--kubeconfig " + missing + ": no such file", unreadable.getMessage());
    String config = Files.readString(server.kubeconfig());
    Path closed =
        Files.writeString(
            temp.resolve("closed"),
            config.replaceAll(
                "server: https://127.0.0.1:\\d+",
                "server: https://127.0.0.1:" + LocalApiServer.freePort()));
    ClusterUnavailableException down =
        assertThrows(
            ClusterUnavailableException.class,
            () -> ClusterDryRun.connect(Optional.of(closed), Optional.empty()));
    assertTrue(
        down.getMessage()
            .matches(
                "the cluster at https://127\\.0\\.0\\.1:\\d+/ did not answer: Connection refused"),
        down.getMessage());
    assertTrue(down.getCause() instanceof IOException, String.valueOf(down.getCause()));
    Path wrongToken =
        Files.writeString(temp.resolve("token"), config.replaceAll("token: .*", "token: wrong"));
    ClusterUnavailableException denied =
        assertThrows(
            ClusterUnavailableException.class,
            () -> ClusterDryRun.connect(Optional.of(wrongToken), Optional.empty()));
    assertTrue(
        denied.getMessage().startsWith("the cluster at https://127.0.0.1:"), denied.getMessage());
    assertTrue(
        denied
            .getMessage()
            .contains("/ did not answer: Failure executing: GET at: https://127.0.0.1:"),
        denied.getMessage());
    assertTrue(denied.getMessage().contains("Message: Unauthorized."), denied.getMessage());
  }

  @Test
  @DisplayName("close releases the client: a closed dry run sends nothing more")
  void closeReleases() {
    CompileResult r = compile();
    ClusterDryRun dryRun = connect();
    dryRun.close();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> dryRun.check(r.tree().orElseThrow(), r.job().orElseThrow()));
    assertEquals("Client is closed", e.getMessage());
  }
}
