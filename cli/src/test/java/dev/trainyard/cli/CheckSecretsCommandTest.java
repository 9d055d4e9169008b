package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.secrets.SshKeyGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard check-secrets}: exit codes, what it prints (file, line, kind), never the key.
 */
class CheckSecretsCommandTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "a key in a ConfigMap: exit 1, file:line error[E809] with the kind, no piece of the key; a clean tree: exit 0")
  void findsAndExits() throws Exception {
    String key = new SshKeyGenerator(new SecureRandom()).generate("c").privateKeyOpenSsh();
    Path run = Files.createDirectories(temp.resolve("tree/clusters/local/default/r"));
    Files.writeString(
        run.resolve("configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  id_ecdsa: |\n    "
            + key.replace("\n", "\n    ")
            + "\n");
    MainTest.Run found = MainTest.run("check-secrets", temp.resolve("tree").toString());
    assertEquals(1, found.exit(), found.err());
    assertTrue(
        found
            .err()
            .contains(
                "clusters/local/default/r/configmap.yaml:5: error[E809]: private key material, OpenSSH private key (PEM), in namespace default, in the data of a ConfigMap (only the data or stringData of a Secret object may hold a key there)"),
        found.err());
    assertTrue(
        found
            .out()
            .contains(
                "checked 1 file(s) under "
                    + temp.resolve("tree")
                    + ": 1 private key(s) where none may be"),
        found.out());
    String body = key.split("\n")[1];
    assertFalse(
        found.err().contains(body.substring(0, 20)) || found.out().contains(body.substring(0, 20)));
    MainTest.Run json =
        MainTest.run("check-secrets", temp.resolve("tree").toString(), "--output", "json");
    assertEquals(1, json.exit());
    assertTrue(
        json.out().contains("\"code\" : \"E809\"") && json.out().contains("\"line\" : 5"),
        json.out());
    Files.delete(run.resolve("configmap.yaml"));
    MainTest.Run clean = MainTest.run("check-secrets", temp.resolve("tree").toString());
    assertEquals(0, clean.exit(), clean.err());
    assertEquals(
        "checked 0 file(s) under "
            + temp.resolve("tree")
            + ": no private key outside an allowed plain Secret\n",
        clean.out());
  }

  @Test
  @DisplayName(
      "symbolic links are not followed (a key file outside the tree stays unread) and the summary and JSON name them")
  void linksNamed() throws Exception {
    String key = new SshKeyGenerator(new SecureRandom()).generate("c").privateKeyOpenSsh();
    Path outside = Files.writeString(temp.resolve("id_ecdsa"), key);
    Path run = Files.createDirectories(temp.resolve("tree/clusters/local/default/r"));
    Files.writeString(run.resolve("job.yaml"), "kind: ConfigMap\n");
    Files.createSymbolicLink(run.resolve("key"), outside);
    Files.createSymbolicLink(temp.resolve("tree/clusters/b-link"), run);
    MainTest.Run r = MainTest.run("check-secrets", temp.resolve("tree").toString());
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        "checked 1 file(s) under "
            + temp.resolve("tree")
            + ": no private key outside an allowed plain Secret\n"
            + "not read: 2 symbolic link(s), not followed (git stores only the name they point to):"
            + " clusters/b-link, clusters/local/default/r/key\n",
        r.out());
    Path keyFile = Files.writeString(run.resolve("id_ecdsa"), key);
    Path linkedTree = Files.createSymbolicLink(temp.resolve("tree-link"), temp.resolve("tree"));
    MainTest.Run viaLink = MainTest.run("check-secrets", linkedTree.toString());
    assertEquals(1, viaLink.exit(), "DIR named through a link is read: " + viaLink.out());
    assertTrue(
        viaLink.out().startsWith("checked 2 file(s) under " + linkedTree + ": 1 private key(s)"),
        viaLink.out());
    Files.delete(keyFile);
    MainTest.Run json =
        MainTest.run("check-secrets", temp.resolve("tree").toString(), "--output", "json");
    assertEquals(0, json.exit(), json.err());
    assertTrue(
        json.out()
            .replaceAll("\\s+", "")
            .contains("\"skippedLinks\":[\"clusters/b-link\",\"clusters/local/default/r/key\"]"),
        json.out());
  }

  @Test
  @DisplayName(
      "a folder that does not exist is exit 3 naming it; a broken --platform is exit 1 with its diagnostics")
  void environmentAndPlatform() throws Exception {
    MainTest.Run missing = MainTest.run("check-secrets", temp.resolve("nope").toString());
    assertEquals(3, missing.exit());
    assertTrue(missing.err().contains("nope: no such folder"), missing.err());
    Path platform = Files.writeString(temp.resolve("platform.yaml"), "kind: Platform\nbogus: 1\n");
    MainTest.Run broken =
        MainTest.run("check-secrets", temp.toString(), "--platform", platform.toString());
    assertEquals(1, broken.exit());
    assertTrue(broken.err().contains("platform.yaml:"), broken.err());
  }

  @Test
  @DisplayName(
      "keys in a plain Secret where platform.yaml allows plain Secrets are counted, not reported; JSON gives files and allowedPlainSecretKeys")
  void allowedPlainSecrets() throws Exception {
    String key = new SshKeyGenerator(new SecureRandom()).generate("c").privateKeyOpenSsh();
    Path tree = temp.resolve("tree");
    Path run = Files.createDirectories(tree.resolve("clusters/local/default/r"));
    Files.writeString(
        run.resolve("secret.yaml"),
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: r-ssh\nstringData:\n  id_ecdsa: |\n    "
            + key.replace("\n", "\n    ")
            + "\n");
    Files.writeString(run.resolve("kustomization.yaml"), "resources: [secret.yaml]\n");
    Files.writeString(
        tree.resolve("platform.yaml"),
        """
        apiVersion: trainyard.dev/v1
        kind: Platform
        secrets: {policy: plain, allowPlain: true}
        clusters: [{name: local}]
        namespaces: [{name: default, cluster: local, defaultQueue: default}]
        queues:
          resourceFlavors: [{name: cpu}]
          clusterQueues: [{name: default, flavors: [{name: cpu, quota: {cpu: "8", memory: 32Gi}}]}]
          localQueues: [{name: default, namespace: default, clusterQueue: default}]
        """);
    MainTest.Run r = MainTest.run("check-secrets", tree.toString());
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        "checked 3 file(s) under "
            + tree
            + ": no private key outside an allowed plain Secret; 1 in plain Secrets that platform.yaml allows\n",
        r.out());
    MainTest.Run json = MainTest.run("check-secrets", tree.toString(), "--output", "json");
    assertEquals(0, json.exit(), json.err());
    JsonNode node = CanonicalJson.mapper().readTree(json.out());
    assertEquals(3, node.path("files").asInt(), json.out());
    assertEquals(1, node.path("allowedPlainSecretKeys").asInt(), json.out());
    assertEquals(0, node.path("errors").asInt(), json.out());

    Files.writeString(
        run.resolve("configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\ndata:\n  id_ecdsa: |\n    "
            + key.replace("\n", "\n    ")
            + "\n");
    MainTest.Run both = MainTest.run("check-secrets", tree.toString());
    assertEquals(1, both.exit(), both.err());
    assertEquals(
        "checked 4 file(s) under "
            + tree
            + ": 1 private key(s) where none may be; 1 in plain Secrets that platform.yaml allows\n",
        both.out());
  }

  @Test
  @DisplayName(
      "without DIR, check-secrets reads the working directory of the call (named '.'); a relative --platform is read there too")
  void workingDirectoryByDefault() throws Exception {
    Path tree = Files.createDirectories(temp.resolve("tree/clusters/local/default/r"));
    Files.writeString(tree.resolve("kustomization.yaml"), "resources: []\n");
    Path root = temp.resolve("tree");
    MainTest.Run r = SubmitCommandTest.runIn(root, Map.of(), "check-secrets");
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        "checked 1 file(s) under .: no private key outside an allowed plain Secret\n", r.out());
    Files.writeString(root.resolve("broken.yaml"), "kind: Platform\nbogus: 1\n");
    MainTest.Run broken =
        SubmitCommandTest.runIn(root, Map.of(), "check-secrets", "--platform", "broken.yaml");
    assertEquals(1, broken.exit(), broken.err());
    assertTrue(broken.err().contains("broken.yaml:"), broken.err());
  }
}
