package dev.trainyard.compiler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.cluster.ClusterDryRun.ClusterUnavailableException;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client configuration shared by every command that talks to a cluster, read from a real
 * kubeconfig file without contacting a server: contexts, files that are YAML but not kubeconfigs,
 * the time limits, and the words of environment errors (never a value of the file, which can hold a
 * token).
 */
class ClientConfigTest {
  private static final String TWO_CONTEXTS =
      String.join(
          "\n",
          "apiVersion: v1",
          "kind: Config",
          "current-context: b",
          "clusters:",
          "- name: a",
          "  cluster: {server: 'https://127.0.0.1:6443'}",
          "- name: c",
          "  cluster: {server: 'https://127.0.0.1:7443'}",
          "users:",
          "- name: u",
          "  user: {token: t0ken}",
          "contexts:",
          "- name: b",
          "  context: {cluster: c, user: u}",
          "- name: a",
          "  context: {cluster: a, user: u}",
          "");
  @TempDir Path temp;

  private Path kubeconfig(String text) throws IOException {
    return Files.writeString(temp.resolve("config"), text);
  }

  private ClusterUnavailableException refused(Path file, Optional<String> context) {
    return assertThrows(
        ClusterUnavailableException.class,
        () -> ClusterDryRun.clientConfig(Optional.of(file), context));
  }

  @Test
  @DisplayName(
      "without --context the kubeconfig's current context is used; a named context selects its cluster")
  void contextChoice() throws Exception {
    Path file = kubeconfig(TWO_CONTEXTS);
    var current = ClusterDryRun.clientConfig(Optional.of(file), Optional.empty());
    assertEquals("b", current.getCurrentContext().getName());
    assertEquals("https://127.0.0.1:7443/", current.getMasterUrl());
    var named = ClusterDryRun.clientConfig(Optional.of(file), Optional.of("a"));
    assertEquals("a", named.getCurrentContext().getName());
    assertEquals("https://127.0.0.1:6443/", named.getMasterUrl());
  }

  @Test
  @DisplayName(
      "a context the kubeconfig lacks is an environment error listing the contexts it has, sorted")
  void missingContextListed() throws Exception {
    ClusterUnavailableException e = refused(kubeconfig(TWO_CONTEXTS), Optional.of("prod"));
    assertEquals("kubeconfig has no context \"prod\" (it has: a, b)", e.getMessage());
    assertTrue(e.getCause() instanceof IOException, String.valueOf(e.getCause()));
  }

  @Test
  @DisplayName(
      "a context asked of a kubeconfig with no contexts at all is named alone, without an empty list")
  void missingContextNoneThere() throws Exception {
    Path file =
        kubeconfig(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {server: 'https://127.0.0.1:6443'}\n");
    assertEquals(
        "kubeconfig has no context \"prod\"", refused(file, Optional.of("prod")).getMessage());
  }

  @Test
  @DisplayName(
      "without --context, a current-context the kubeconfig lacks, or none, is an environment error naming the file and the contexts it has (fabric8 alone fell back to https://kubernetes.default.svc)")
  void currentContextMissing() throws Exception {
    Path file = kubeconfig(TWO_CONTEXTS.replace("current-context: b", "current-context: nope"));
    assertEquals(
        file
            + ": the kubeconfig's current-context \"nope\" is none of its contexts (it has: a, b):"
            + " pick one with --context or `kubectl config use-context`",
        refused(file, Optional.empty()).getMessage());
    assertEquals(
        "https://127.0.0.1:6443/",
        ClusterDryRun.clientConfig(Optional.of(file), Optional.of("a")).getMasterUrl(),
        "--context still chooses");
    Path unset = kubeconfig(TWO_CONTEXTS.replace("current-context: b\n", ""));
    assertEquals(
        unset
            + ": the kubeconfig sets no current-context (it has: a, b): pick one with --context or"
            + " `kubectl config use-context`",
        refused(unset, Optional.empty()).getMessage());
    Path none =
        kubeconfig(
            "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: a\n  cluster: {server: 'https://127.0.0.1:6443'}\n");
    assertEquals(
        none
            + ": the kubeconfig's current-context \"x\" is none of its contexts and has no contexts",
        refused(none, Optional.empty()).getMessage());
  }

  @Test
  @DisplayName(
      "the current context naming a cluster the kubeconfig lacks, or one without a server, is named (fabric8 fell back to the in-cluster address, or failed with a NullPointerException's words)")
  void contextClusterMissing() throws Exception {
    Path lacks =
        kubeconfig(
            TWO_CONTEXTS.replace(
                "context: {cluster: c, user: u}", "context: {cluster: zz, user: u}"));
    assertEquals(
        lacks + ": the kubeconfig's context \"b\" names cluster \"zz\", which it does not define",
        refused(lacks, Optional.empty()).getMessage());
    assertEquals(
        "https://127.0.0.1:6443/",
        ClusterDryRun.clientConfig(Optional.of(lacks), Optional.of("a")).getMasterUrl(),
        "another context is still usable");
    Path none =
        kubeconfig(TWO_CONTEXTS.replace("context: {cluster: c, user: u}", "context: {user: u}"));
    assertEquals(
        none + ": the kubeconfig's context \"b\" names no cluster",
        refused(none, Optional.empty()).getMessage());
    Path bare =
        kubeconfig(
            TWO_CONTEXTS.replace("- name: b\n  context: {cluster: c, user: u}", "- name: b"));
    assertEquals(
        bare + ": the kubeconfig's context \"b\" names no cluster",
        refused(bare, Optional.empty()).getMessage(),
        "a context entry without its context mapping");
    Path nameOnly =
        kubeconfig(
            TWO_CONTEXTS.replace(
                "- name: c\n  cluster: {server: 'https://127.0.0.1:7443'}", "- name: c"));
    assertEquals(
        nameOnly + ": the kubeconfig's cluster \"c\" has no server",
        refused(nameOnly, Optional.empty()).getMessage(),
        "a cluster entry without its cluster mapping");
    Path serverless =
        kubeconfig(
            TWO_CONTEXTS.replace("cluster: {server: 'https://127.0.0.1:7443'}", "cluster: {}"));
    assertEquals(
        serverless + ": the kubeconfig's cluster \"c\" has no server",
        refused(serverless, Optional.empty()).getMessage());
  }

  @Test
  @DisplayName(
      "a kubeconfig that is YAML but not a kubeconfig names the file and what is wrong, with every quoted value masked")
  void notAKubeconfig() throws Exception {
    Path file = kubeconfig("apiVersion: v1\nclusters:\n- name: a\n  cluster: 'secret-value'\n");
    ClusterUnavailableException e = refused(file, Optional.empty());
    assertEquals(
        "kubeconfig "
            + file
            + " is not a valid kubeconfig: Cannot construct instance of `io.fabric8.kubernetes.api.model.Cluster`"
            + " (although at least one Creator exists): no String-argument constructor/factory method to deserialize from String value ('…'",
        e.getMessage());
    Path flag =
        kubeconfig(
            "apiVersion: v1\nclusters:\n- name: a\n  cluster: {server: x, insecure-skip-tls-verify: maybe-t0ken}\n");
    String message = refused(flag, Optional.empty()).getMessage();
    assertEquals(
        "kubeconfig "
            + flag
            + " is not a valid kubeconfig: Cannot deserialize value of type `java.lang.Boolean` from String '…'",
        message);
    assertFalse(message.contains("t0ken"), message);
  }

  @Test
  @DisplayName(
      "the dry run's client waits at most 10 s to connect and 30 s for an answer, and never retries")
  void limits() throws Exception {
    var config =
        ClusterDryRun.limited(
            ClusterDryRun.clientConfig(Optional.of(kubeconfig(TWO_CONTEXTS)), Optional.empty()));
    assertEquals(10_000, config.getConnectionTimeout());
    assertEquals(30_000, config.getRequestTimeout());
    assertEquals(0, config.getRequestRetryBackoffLimit());
  }

  @Test
  @DisplayName(
      "an environment error keeps only the first line of the innermost message, cut before Jackson's source excerpt and at its first quote")
  void safeWords() {
    Exception multiLine =
        new RuntimeException(
            "outer",
            new IllegalStateException(
                "bad value 'abc' for \"key\"\n at [Source: (String)\"x\"; line: 1]"));
    assertEquals("bad value '…'", ClusterDryRun.safeRootMessage(multiLine));
    Exception oneLine =
        new RuntimeException(
            "outer",
            new IllegalStateException(
                "Unexpected character ('t' (code 116)) at [Source: token: t0ken; line: 3]"));
    assertEquals("Unexpected character ('…'", ClusterDryRun.safeRootMessage(oneLine));
    // A value holding a quote: masking quoted pairs would pair its quote with Jackson's and leak
    // the
    // rest (found by KubeconfigFuzzTest).
    assertEquals(
        "from String value ('…'",
        ClusterDryRun.safeRootMessage(
            new IllegalStateException("from String value ('a-id' b tok-SECRET-01')")));
    assertEquals("plain words", ClusterDryRun.safeRootMessage(new RuntimeException("plain words")));
  }

  @Test
  @DisplayName(
      "an environment error names the innermost cause: its message, or its class when it has none")
  void innermostCause() {
    assertEquals(
        "Connection refused",
        ClusterDryRun.rootMessage(
            new RuntimeException(
                "outer", new IOException("middle", new ConnectException("Connection refused")))));
    assertEquals(
        "java.io.EOFException",
        ClusterDryRun.rootMessage(new RuntimeException("outer", new EOFException())));
    assertEquals("alone", ClusterDryRun.rootMessage(new IOException("alone")));
  }

  @Test
  @DisplayName(
      "a dry run that got no HTTP answer or a 401 is the cluster's fault; any other status is the server judging the object")
  void environmentFailures() {
    assertTrue(ClusterDryRun.environmentFailure(0));
    assertTrue(ClusterDryRun.environmentFailure(401));
    for (int judged : new int[] {400, 403, 404, 409, 422, 500}) {
      assertFalse(ClusterDryRun.environmentFailure(judged), Integer.toString(judged));
    }
  }

  private static String oneCluster(String server) {
    return String.join(
        "\n",
        "apiVersion: v1",
        "kind: Config",
        "current-context: a",
        "clusters:",
        "- name: a",
        "  cluster: {server: '" + server + "'}",
        "users:",
        "- name: u",
        "  user: {token: t0ken}",
        "contexts:",
        "- name: a",
        "  context: {cluster: a, user: u}",
        "");
  }

  @Test
  @DisplayName(
      "a server URL's user:password@ moves to basic auth, so no message naming the server can print the password")
  void userInfoMovesToBasicAuth() throws Exception {
    var config =
        ClusterDryRun.clientConfig(
            Optional.of(kubeconfig(oneCluster("https://admin:S3%40CRET@127.0.0.1:26999"))),
            Optional.empty());
    assertEquals("https://127.0.0.1:26999/", config.getMasterUrl());
    assertEquals("admin", config.getUsername());
    assertEquals("S3@CRET", config.getPassword());
    var userOnly =
        ClusterDryRun.clientConfig(
            Optional.of(kubeconfig(oneCluster("https://admin@127.0.0.1:26999"))), Optional.empty());
    assertEquals("https://127.0.0.1:26999/", userOnly.getMasterUrl());
    assertEquals("admin", userOnly.getUsername());
    assertEquals(null, userOnly.getPassword());
  }

  @Test
  @DisplayName(
      "basic-auth credentials the kubeconfig's user sets win over a server URL's user info, which is still removed")
  void userEntryWins() throws Exception {
    String text =
        oneCluster("https://admin:S3CRET@127.0.0.1:26999")
            .replace("user: {token: t0ken}", "user: {username: ops, password: pw}");
    var config = ClusterDryRun.clientConfig(Optional.of(kubeconfig(text)), Optional.empty());
    assertEquals("https://127.0.0.1:26999/", config.getMasterUrl());
    assertEquals("ops", config.getUsername());
    assertEquals("pw", config.getPassword());
  }

  @Test
  @DisplayName(
      "a server that is no URL is an environment error naming the file and the character, never quoting the value")
  void serverNotAUrl() throws Exception {
    Path file = kubeconfig(oneCluster("https://admin:S3CRET@127.0.0.1:26443/a b"));
    ClusterUnavailableException e = refused(file, Optional.empty());
    assertEquals(
        "kubeconfig "
            + file
            + ": the cluster's server is not a URL (Illegal character in path at character 39)",
        e.getMessage());
    assertFalse(e.getMessage().contains("S3CRET"), e.getMessage());
    Path noHost = kubeconfig(oneCluster("https:///api"));
    assertEquals(
        "kubeconfig "
            + noHost
            + ": the cluster's server names no host or a port over 65535 (expected https://HOST[:PORT])",
        refused(noHost, Optional.empty()).getMessage());
    Path bigPort = kubeconfig(oneCluster("https://admin:S3CRET@127.0.0.1:99999"));
    ClusterUnavailableException port = refused(bigPort, Optional.empty());
    assertEquals(
        "kubeconfig "
            + bigPort
            + ": the cluster's server names no host or a port over 65535 (expected https://HOST[:PORT])",
        port.getMessage());
    assertFalse(port.getMessage().contains("S3CRET"), port.getMessage());
  }

  @Test
  @DisplayName(
      "the edges of a server URL: port 65535 is a port, user info that is only :password gives an empty user")
  void serverEdges() throws Exception {
    var highest =
        ClusterDryRun.clientConfig(
            Optional.of(kubeconfig(oneCluster("https://127.0.0.1:65535"))), Optional.empty());
    assertEquals("https://127.0.0.1:65535/", highest.getMasterUrl());
    var passwordOnly =
        ClusterDryRun.clientConfig(
            Optional.of(kubeconfig(oneCluster("https://:S3CRET@127.0.0.1:26999"))),
            Optional.empty());
    assertEquals("https://127.0.0.1:26999/", passwordOnly.getMasterUrl());
    assertEquals("", passwordOnly.getUsername());
    assertEquals("S3CRET", passwordOnly.getPassword());
  }

  @Test
  @DisplayName("a context asked of a kubeconfig without a current context is still checked by name")
  void namedContextWithoutCurrent() throws Exception {
    Path file = kubeconfig(TWO_CONTEXTS.replace("current-context: b\n", ""));
    assertEquals(
        "a",
        ClusterDryRun.clientConfig(Optional.of(file), Optional.of("a"))
            .getCurrentContext()
            .getName());
    assertEquals(
        "kubeconfig has no context \"prod\" (it has: a, b)",
        refused(file, Optional.of("prod")).getMessage());
  }

  @Test
  @DisplayName(
      "a root message that starts with its source excerpt or a line break keeps nothing of the excerpt")
  void safeWordsAtTheStart() {
    assertEquals(
        "",
        ClusterDryRun.safeRootMessage(
            new RuntimeException(" at [Source: (String)\"token: s3cret\"; line: 1]")));
    assertEquals("", ClusterDryRun.safeRootMessage(new RuntimeException("\ntoken: s3cret")));
  }
}
