package dev.trainyard.compiler.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kubeconfig lookup and reading cases {@code KubeconfigsTest} leaves out, each with the exact
 * message.
 */
class KubeconfigsEdgesTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "--kubeconfig naming a folder says so; blank $KUBECONFIG entries are skipped, not read as the cwd")
  void folderFlagAndBlankEntries() throws Exception {
    var folder =
        assertThrows(
            ClusterDryRun.ClusterUnavailableException.class,
            () -> Kubeconfigs.locate(Optional.of(temp), Map.of(), temp));
    assertEquals("--kubeconfig " + temp + ": is a folder, not a file", folder.getMessage());
    Path b = Files.writeString(temp.resolve("b"), "apiVersion: v1\n");
    assertEquals(
        List.of(b), Kubeconfigs.locate(Optional.empty(), Map.of("KUBECONFIG", "::  :" + b), temp));
    var blank =
        assertThrows(
            ClusterDryRun.ClusterUnavailableException.class,
            () ->
                Kubeconfigs.locate(
                    Optional.empty(),
                    Map.of("KUBECONFIG", "  ", "KUBERNETES_SERVICE_HOST", " "),
                    temp));
    assertEquals(
        "no kubeconfig found; looked at --kubeconfig (not given), $KUBECONFIG (not set), "
            + temp.resolve(".kube/config")
            + " (no such file), the in-cluster service account (KUBERNETES_SERVICE_HOST"
            + " not set); pass --kubeconfig FILE or set KUBECONFIG",
        blank.getMessage());
  }

  @Test
  @DisplayName("$KUBECONFIG naming a folder is not a kubeconfig; ~/.kube/config is used instead")
  void kubeconfigFolderSkipped() throws Exception {
    Files.createDirectories(temp.resolve(".kube"));
    Path home = Files.writeString(temp.resolve(".kube/config"), "apiVersion: v1\n");
    assertEquals(
        List.of(home),
        Kubeconfigs.locate(Optional.empty(), Map.of("KUBECONFIG", temp.toString()), temp));
  }

  @Test
  @DisplayName(
      "reading: a valid kubeconfig is returned as written; anchors and duplicate keys are kubectl's call")
  void readKeepsText() throws Exception {
    String text = "apiVersion: v1\nusers:\n- &u {name: a}\nkind: Config\nkind: Config\n";
    Path k = Files.writeString(temp.resolve("config"), text);
    assertEquals(text, Kubeconfigs.read(k));
  }

  @Test
  @DisplayName(
      "reading: an empty file, a list, a lone value (never quoted: it may be a token), a server without http(s) (fabric8 would probe it) and tab indentation are not valid YAML kubeconfigs, at their line")
  void readBroken() throws Exception {
    Path empty = Files.writeString(temp.resolve("empty"), "");
    assertEquals(
        empty + ": the kubeconfig is not valid YAML: the file is empty",
        assertThrows(ClusterDryRun.ClusterUnavailableException.class, () -> Kubeconfigs.read(empty))
            .getMessage());
    Path list = Files.writeString(temp.resolve("list"), "- a\n");
    assertEquals(
        list
            + ":1:1: the kubeconfig is not valid YAML: the top level must be a mapping of fields"
            + " (`key: value` lines), got a list",
        assertThrows(ClusterDryRun.ClusterUnavailableException.class, () -> Kubeconfigs.read(list))
            .getMessage());
    Path token = Files.writeString(temp.resolve("token"), "eyJhbGciOiJSUzI1NiJ9.tok-SECRET\n");
    assertEquals(
        token
            + ":1:1: the kubeconfig is not valid YAML: the top level must be a mapping of fields"
            + " (`key: value` lines), got a plain value (not shown: it may be a credential)",
        assertThrows(ClusterDryRun.ClusterUnavailableException.class, () -> Kubeconfigs.read(token))
            .getMessage());
    Path scheme =
        Files.writeString(
            temp.resolve("scheme"),
            "clusters:\n- name: dev\n  cluster: {server: 1ttps://h;6443}\n");
    assertEquals(
        scheme
            + ": the kubeconfig's cluster \"dev\" has a server that is not an https:// or http://"
            + " URL",
        assertThrows(
                ClusterDryRun.ClusterUnavailableException.class,
                () -> ClusterDryRun.clientConfig(Optional.of(scheme), Optional.empty()))
            .getMessage());
    Path quoted =
        Files.writeString(temp.resolve("quoted"), "clusters:\n- tok-SECRET n at [Source x\n");
    String message =
        assertThrows(
                ClusterDryRun.ClusterUnavailableException.class,
                () -> ClusterDryRun.clientConfig(Optional.of(quoted), Optional.empty()))
            .getMessage();
    assertFalse(message.contains("tok-SECRET"), message);
    Path tab = Files.writeString(temp.resolve("tab"), "a:\n\tb: 1\n");
    assertEquals(
        tab + ":2:1: the kubeconfig is not valid YAML: tab character in indentation",
        assertThrows(ClusterDryRun.ClusterUnavailableException.class, () -> Kubeconfigs.read(tab))
            .getMessage());
  }

  @Test
  @DisplayName("reading a folder is an environment error naming the file and the failure")
  void readFolder() {
    var e =
        assertThrows(ClusterDryRun.ClusterUnavailableException.class, () -> Kubeconfigs.read(temp));
    assertEquals("cannot read kubeconfig " + temp + ": IOException", e.getMessage());
  }
}
