package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard validate --cluster}: the compiled objects go to the real API server (JobSet and
 * Kueue CRDs and webhooks) as a server-side apply with {@code dryRun=All}; accepted objects are not
 * stored, and a rejection is a diagnostic, exit 1.
 */
@ExtendWith(KubeClusterExtension.class)
class ValidateClusterIT {

  @Test
  @DisplayName(
      "an MPI job is accepted by the real server-side dry run, exit 0, and nothing is stored")
  void acceptedAndNotStored(KubeCluster cluster, @TempDir Path temp) throws Exception {
    String namespace = cluster.newNamespace();
    Path trainYaml =
        SourceRepo.withTrainYaml(
            temp.resolve("src"), "dry", "runtime: deepspeed\nrun: python train.py\nnodes: 2\n");
    Path platform = platform(temp, namespace);
    Run r =
        run(
            "validate",
            trainYaml.toString(),
            "--platform",
            platform.toString(),
            "--cluster",
            "--kubeconfig",
            cluster.kubeconfig().toString());
    assertEquals(0, r.exit, r.err + r.out);
    assertTrue(
        cluster
            .client()
            .genericKubernetesResources("jobset.x-k8s.io/v1alpha2", "JobSet")
            .inNamespace(namespace)
            .list()
            .getItems()
            .isEmpty(),
        "a dry run stores nothing");
  }

  @Test
  @DisplayName("a namespace the cluster does not have is reported as a cluster rejection, exit 1")
  void rejectionIsDiagnostic(KubeCluster cluster, @TempDir Path temp) throws Exception {
    Path trainYaml =
        SourceRepo.withTrainYaml(temp.resolve("src"), "dry", "run: torchrun train.py\n");
    Path platform = platform(temp, "no-such-namespace-" + Long.toHexString(System.nanoTime()));
    Run r =
        run(
            "validate",
            trainYaml.toString(),
            "--platform",
            platform.toString(),
            "--cluster",
            "--kubeconfig",
            cluster.kubeconfig().toString());
    assertEquals(1, r.exit, r.err);
    assertTrue(r.err.contains("error[E602]: the cluster rejected"), r.err);
    assertTrue(r.err.contains("not found"), r.err);
  }

  @Test
  @DisplayName("an unreachable cluster is an environment error, exit 3")
  void unreachable(@TempDir Path temp) throws Exception {
    Path trainYaml =
        SourceRepo.withTrainYaml(temp.resolve("src"), "dry", "run: torchrun train.py\n");
    Path kubeconfig = temp.resolve("kubeconfig");
    int port = LoopbackPorts.free();
    Files.writeString(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:"
            + port
            + "\"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n",
        StandardCharsets.UTF_8);
    Run r =
        run("validate", trainYaml.toString(), "--cluster", "--kubeconfig", kubeconfig.toString());
    assertEquals(3, r.exit, r.err);
    assertTrue(r.err.startsWith("trainyard: error: the cluster at"), r.err);
  }

  private static Path platform(Path dir, String namespace) throws Exception {
    Path file = dir.resolve("platform.yaml");
    Files.writeString(
        file,
        "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: [{name: it}]\n"
            + "namespaces: [{name: "
            + namespace
            + ", cluster: it, defaultQueue: it}]\n"
            + "secrets: {policy: plain, allowPlain: true}\n"
            + "queues:\n  resourceFlavors: [{name: it-flavor}]\n"
            + "  clusterQueues: [{name: it-dry-run, flavors: [{name: it-flavor, quota: {cpu: \"64\", memory: 256Gi, nvidia.com/gpu: \"8\"}}]}]\n"
            + "  localQueues: [{name: it, namespace: "
            + namespace
            + ", clusterQueue: it-dry-run}]\n",
        StandardCharsets.UTF_8);
    return file;
  }

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Run(exit, out.toString(), err.toString());
  }
}
