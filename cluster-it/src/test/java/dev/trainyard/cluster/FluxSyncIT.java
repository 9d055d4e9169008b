package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real GitOps loop: the GitOps repo is a bare repo served by {@link GitHttpServer} (basic auth
 * on, as a private forge repo), Flux's source-controller and kustomize-controller ({@link
 * FluxControllers}) sync it with the shipped {@code examples/gitops/flux} objects (URL, cluster,
 * namespace and intervals adapted), and runs are submitted and pruned with {@code trainyard
 * submit}/{@code prune} ({@link TrainyardCliPublisher}). The JobSet runs to {@code Completed}
 * through the JobSet controller, the Job controller and kwok; after the prune, Flux deletes it and
 * a further reconcile of the same commit does not bring it back.
 *
 * <p>Logs: {@code target/cluster/flux/logs/} (controllers) and {@code target/cluster/flux-git/}
 * (git http-backend).
 *
 * <p>Reported as not run (an assumption naming the reason from {@code scripts/flux-testbin}'s
 * marker) when the Flux controllers are not built.
 */
@ExtendWith(KubeClusterExtension.class)
class FluxSyncIT {

  static final String CLUSTER = "flux-it";
  static final Duration INTERVAL = Duration.ofSeconds(5);
  static final Duration SYNC_TIMEOUT = Duration.ofSeconds(120);
  static final Duration STAYS_GONE = Duration.ofSeconds(15);
  static final GitHttpServer.Credentials CREDENTIALS =
      new GitHttpServer.Credentials("flux", "it-" + UUID.randomUUID());

  private FluxBinaries binaries;

  /** Before the cluster parameter is resolved, so a missing Flux build costs no cluster start. */
  @BeforeEach
  void fluxIsBuilt() {
    binaries = FluxBinaries.locate();
    assumeTrue(binaries.missing().isEmpty(), () -> "NOT RUN: " + binaries.missing().orElseThrow());
  }

  @Test
  @DisplayName(
      "a submitted run is synced by Flux to a JobSet that completes; after prune Flux deletes it and does not re-create it")
  void submitSyncCompletePrune(KubeCluster cluster, @TempDir Path temp) throws Exception {
    String namespace = cluster.newNamespace();
    Path platform = platform(temp, namespace);
    Path trainYaml =
        SourceRepo.withTrainYaml(
            temp.resolve("src"), "flux-sync", "runtime: plain\nrun: python train.py\nnodes: 2\n");
    try (GitHttpServer git =
            GitHttpServer.start(
                KubeClusterExtension.workDir("flux-git"), Optional.of(CREDENTIALS));
        FluxControllers flux =
            FluxControllers.start(binaries, cluster, KubeClusterExtension.workDir("flux"))) {
      String url = seed(git, platform, temp.resolve("seed"));
      FluxObjects objects = new FluxObjects(cluster.client());
      installExamples(objects, url, namespace);
      TrainyardCliPublisher publisher = new TrainyardCliPublisher(url, CREDENTIALS);
      var status = new SyncStatus(cluster, objects, flux, namespace);

      String run = submitAndAwaitCompleted(publisher, trainYaml, status);
      pruneAndAwaitGone(publisher, run, git.repo("gitops.git"), status);
      status.uninstall(FluxExamples.objects(url, CLUSTER, namespace));
    }
  }

  /** Submits the run; Flux must create its JobSet, which completes with both node pods run. */
  private static String submitAndAwaitCompleted(
      TrainyardCliPublisher publisher, Path trainYaml, SyncStatus status) {
    long start = System.nanoTime();
    String run = publisher.submit(trainYaml);
    Resource<GenericKubernetesResource> jobSet = status.jobSet(run);
    status.await(
        "Flux creates JobSet " + status.namespace() + "/" + run, () -> jobSet.get() != null);
    status.mark("JobSet created by Flux", start);
    JobSetLifecycleIT.awaitCompleted(status.cluster(), status.namespace(), run);
    status.mark("JobSet Completed", start);
    assertEquals(
        2,
        JobSetLifecycleIT.pods(status.cluster(), status.namespace(), run).size(),
        "node pods of the 2-node run");
    return run;
  }

  /**
   * Prunes the run; Flux must apply that commit and delete the JobSet and pods, and not re-create
   * them.
   */
  private static void pruneAndAwaitGone(
      TrainyardCliPublisher publisher, String run, Path bareRepo, SyncStatus status) {
    long start = System.nanoTime();
    publisher.prune(run);
    String pruned = GitCli.run(bareRepo, GitCli.isolatedEnv(bareRepo), "rev-parse", "main").trim();
    Resource<GenericKubernetesResource> jobSet = status.jobSet(run);
    status.await(
        "Flux applies the prune commit " + pruned + " and deletes the JobSet",
        () -> jobSet.get() == null && FluxObjects.appliedAndReady(status.runs().get(), pruned));
    status.mark("JobSet deleted by Flux", start);
    status.await(
        "the run's pods deleted with its JobSet",
        () -> JobSetLifecycleIT.pods(status.cluster(), status.namespace(), run).isEmpty());
    status.reconcileNowAndAwait();
    assertNull(jobSet.get(), "JobSet re-created by a reconcile of the prune commit");
    Eventually.sleep(STAYS_GONE);
    assertNull(
        jobSet.get(), "JobSet re-created within " + STAYS_GONE.toSeconds() + "s after the prune");
  }

  /**
   * An empty GitOps repo on the server, seeded with the platform's platform.yaml at its root;
   * returns its URL.
   */
  private static String seed(GitHttpServer git, Path platform, Path dir) throws Exception {
    git.createBareRepo("gitops.git");
    String url = git.url("gitops.git");
    GitOpsCheckout checkout =
        GitOpsCheckout.clone(url, CREDENTIALS, LocalCluster.mkdirs(dir).resolve("gitops"));
    Files.copy(platform, checkout.dir().resolve("platform.yaml"));
    checkout.commitAndPush("platform: clusters, namespaces and queues");
    return url;
  }

  private static void installExamples(FluxObjects objects, String url, String namespace) {
    objects.applyGitSecret("trainyard-gitops-auth", CREDENTIALS);
    List<GenericKubernetesResource> examples = FluxExamples.objects(url, CLUSTER, namespace);
    FluxExamples.shortenIntervals(examples, INTERVAL);
    objects.apply(examples);
  }

  /** A platform with one cluster, the test namespace and a CPU queue named after the namespace. */
  private static Path platform(Path dir, String namespace) throws Exception {
    String queue = "flux-" + namespace;
    Path file = dir.resolve("platform.yaml");
    Files.writeString(
        file,
        "apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: [{name: "
            + CLUSTER
            + "}]\n"
            + "namespaces: [{name: "
            + namespace
            + ", cluster: "
            + CLUSTER
            + ", defaultQueue: "
            + queue
            + "}]\n"
            + "secrets: {policy: plain, allowPlain: true}\n"
            + "queues:\n  resourceFlavors: [{name: "
            + queue
            + "}]\n"
            + "  clusterQueues: [{name: "
            + queue
            + ", flavors: [{name: "
            + queue
            + ", quota: {cpu: \"64\", memory: 256Gi}}]}]\n"
            + "  localQueues: [{name: "
            + queue
            + ", namespace: "
            + namespace
            + ", clusterQueue: "
            + queue
            + "}]\n",
        StandardCharsets.UTF_8);
    return file;
  }

  /**
   * Waits on the sync with the Flux objects' conditions and the controllers' logs in every failure.
   */
  private record SyncStatus(
      KubeCluster cluster, FluxObjects objects, FluxControllers flux, String namespace) {

    Resource<GenericKubernetesResource> jobSet(String run) {
      return JobSets.api(cluster.client()).inNamespace(namespace).withName(run);
    }

    Resource<GenericKubernetesResource> runs() {
      return objects.kustomization(FluxExamples.runsKustomization(namespace));
    }

    private List<Resource<GenericKubernetesResource>> all() {
      return List.of(
          objects.gitRepository(FluxExamples.GIT_REPOSITORY),
          objects.kustomization(FluxExamples.QUEUES),
          runs());
    }

    void await(String what, BooleanSupplier condition) {
      Eventually.await(
          what,
          SYNC_TIMEOUT,
          condition,
          () ->
              objects.describe(all())
                  + "\nsource-controller:\n"
                  + flux.logTail("source-controller", 15)
                  + "\nkustomize-controller:\n"
                  + flux.logTail("kustomize-controller", 15));
    }

    /**
     * Prints how long a step took since {@code start} (for the test report; timings are not
     * asserted).
     */
    void mark(String step, long start) {
      System.out.printf("flux-sync: %s after %.1f s%n", step, (System.nanoTime() - start) / 1e9);
    }

    /**
     * Asks the GitRepository, then the runs' Kustomization, to reconcile now, and waits until both
     * did.
     */
    void reconcileNowAndAwait() {
      for (Resource<GenericKubernetesResource> object : List.of(all().get(0), runs())) {
        String requested = objects.requestReconcile(object);
        await(
            "Flux handles reconcile request " + requested + " of " + object.get().getKind(),
            () -> FluxObjects.handled(object.get(), requested) && FluxObjects.ready(object.get()));
      }
    }

    /**
     * Deletes the Flux objects (Flux then deletes what they applied: queues, LocalQueue) and waits.
     */
    void uninstall(List<GenericKubernetesResource> installed) {
      List<GenericKubernetesResource> reversed = new ArrayList<>(installed);
      Collections.reverse(reversed);
      for (GenericKubernetesResource object : reversed) {
        cluster.client().resource(object).delete();
      }
      await(
          "Flux objects deleted (finalizers done)",
          () -> all().stream().allMatch(o -> o.get() == null));
    }
  }
}
