package dev.trainyard.cluster;

import static dev.trainyard.cluster.StatusRuns.lines;
import static dev.trainyard.cluster.StatusRuns.posts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.controller.forge.FakeForge;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole loop on the real harness (issue #18, "Tests that must exist"): runs submitted with
 * {@code trainyard submit}, synced by Flux's source- and kustomize-controller with the shipped
 * {@code examples/gitops/flux} files, admitted by Kueue, run by JobSet, the Job controller and
 * kwok, and reported by the status controller (its own process) to the fake GitHub, GitLab and
 * Gitea servers, which refuse what the real forges refuse.
 *
 * <p>kwok runs no container, so how long a pod runs (or that its image cannot be pulled) is chosen
 * by the kwok outcome label and run-for annotation of {@code kwok/pod-outcome-stages.yaml}: each
 * run is submitted to a staging GitOps repo, and its compiled folder is copied to the repo Flux
 * syncs with only those two pod-template keys added, in one commit, so Flux never applies the run
 * without them. Everything else Flux applies is what {@code trainyard submit} wrote.
 */
@ExtendWith(KubeClusterExtension.class)
class InterplayIT {

  static final String CLUSTER = "it";
  static final Duration INTERVAL = Duration.ofSeconds(5);
  static final Duration TIMEOUT = Duration.ofSeconds(240);
  static final GitHttpServer.Credentials CREDENTIALS =
      new GitHttpServer.Credentials("flux", "it-" + UUID.randomUUID());
  static final String KWOK_OUTCOME = "trainyard.dev/kwok-outcome";
  static final String KWOK_RUN_FOR = "trainyard.dev/kwok-run-for";

  private FluxBinaries binaries;
  private final FakeForge forge = FakeForge.start();
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void fluxIsBuilt() {
    binaries = FluxBinaries.locate();
    assumeTrue(binaries.missing().isEmpty(), () -> "NOT RUN: " + binaries.missing().orElseThrow());
  }

  @AfterEach
  void close() throws Exception {
    List<AutoCloseable> reversed = new ArrayList<>(open);
    Collections.reverse(reversed);
    for (AutoCloseable c : reversed) {
      c.close();
    }
    forge.close();
  }

  @Test
  @DisplayName(
      "submitted → synced by Flux → queued → admitted by Kueue after a GitOps quota change → running → succeeded: each forge gets exactly queued, running, succeeded (a 12-node start too), and a forced Flux reconcile does not undo Kueue's unsuspend")
  void submittedRunsSucceed(KubeCluster cluster, @TempDir Path temp) throws Exception {
    requireKueue(cluster);
    Loop loop = loop(cluster, temp, "ipok", "64");
    Map<String, Integer> nodes = Map.of("github", 12, "gitlab", 2, "gitea", 2);
    Map<String, String> runs = new LinkedHashMap<>();
    for (String kind : List.of("github", "gitlab", "gitea")) {
      runs.put(kind, loop.submit(kind, "ok-" + kind, nodes.get(kind)));
    }
    // The synced repo's ClusterQueue gets 100m cpu with the runs (submit refuses a run its queue
    // can
    // never admit, E414, so the staging repo keeps 64): Kueue holds all three.
    loop.publish(runs.values(), "slow", "60s", "100m");
    for (String kind : runs.keySet()) {
      loop.awaitPost(kind + " queued", kind, a -> a.description().startsWith("queued"));
    }
    for (String run : runs.values()) {
      assertTrue(JobSets.suspended(loop.jobSet(run).get()), "held by Kueue: " + run);
    }
    Instant quotaRaised = Instant.now();
    loop.setQuota("64");
    for (String kind : runs.keySet()) {
      loop.awaitPost(kind + " running", kind, a -> a.description().startsWith("running"));
    }
    // Kueue unsuspended the JobSets Flux created without spec.suspend; a reconcile Flux is asked
    // for now applies the same commit again and must leave them running.
    Map<String, String> podUids = new LinkedHashMap<>();
    for (String run : runs.values()) {
      assertFalse(JobSets.suspended(loop.jobSet(run).get()), run);
      podUids.put(run, loop.podUids(run).toString());
    }
    loop.reconcileNow();
    Eventually.sleep(INTERVAL);
    for (String run : runs.values()) {
      GenericKubernetesResource js = loop.jobSet(run).get();
      assertFalse(JobSets.suspended(js), "Flux's reconcile suspended " + JobSets.describe(js));
      assertEquals(podUids.get(run), loop.podUids(run).toString(), "pods of " + run + " replaced");
      assertTrue(
          loop.pods(run).stream().allMatch(p -> "Running".equals(p.getStatus().getPhase())),
          run + " pods still running after Flux's reconcile");
    }
    for (String kind : runs.keySet()) {
      loop.awaitPost(kind + " succeeded", kind, StatusRuns::terminal);
    }
    Eventually.sleep(INTERVAL);
    for (String kind : runs.keySet()) {
      String run = runs.get(kind);
      List<FakeForge.Accepted> posts = loop.posts(kind);
      String detail = kind + ": " + lines(posts);
      System.out.println("[InterplayIT] " + kind + " " + run + " posts: " + lines(posts));
      assertEquals(3, posts.size(), detail);
      assertEquals(
          List.of("pending", kind.equals("gitlab") ? "running" : "pending", "success"),
          posts.stream().map(FakeForge.Accepted::state).toList(),
          detail);
      String lq = loop.localQueue();
      assertTrue(
          // Kueue's words 15 s after the sync: its verdict on the quota, or, for a Workload it has
          // not judged yet under load, "waiting for Kueue to admit it"; never a node count.
          posts.get(0).description().matches("queued in " + lq + ": \\D*(insufficient|waiting).*"),
          detail);
      assertTrue(posts.stream().noneMatch(a -> a.description().contains(",,")), detail);
      int n = nodes.get(kind);
      assertEquals(
          "running: " + n + " of " + n + " nodes ready, attempt 1 of 4",
          posts.get(1).description());
      assertTrue(
          posts.get(2).description().matches("succeeded in (\\d+m )?\\d+s, attempt 1 of 4"),
          detail);
      assertEquals(
          "trainyard/" + CLUSTER + "/" + loop.namespace() + "/" + run, posts.get(2).context());
      loop.reportLatency(kind, run, quotaRaised);
    }
    assertEquals(List.of(), forge.rejected());
    loop.uninstall();
  }

  @Test
  @DisplayName(
      "a running run pruned from the GitOps repo: Flux deletes its JobSet, GitHub and Gitea get error, GitLab canceled, once each, and Flux does not re-create it")
  void deletedMidFlight(KubeCluster cluster, @TempDir Path temp) throws Exception {
    requireKueue(cluster);
    Loop loop = loop(cluster, temp, "ipdel", "64");
    Map<String, String> runs = new LinkedHashMap<>();
    for (String kind : List.of("github", "gitlab", "gitea")) {
      runs.put(kind, loop.submit(kind, "del-" + kind, 2));
    }
    loop.publish(runs.values(), "slow", "600s", null);
    for (String kind : runs.keySet()) {
      loop.awaitPost(kind + " running", kind, a -> a.description().startsWith("running: 2 of 2"));
    }
    for (String run : runs.values()) {
      loop.prune(run);
    }
    for (String kind : runs.keySet()) {
      loop.awaitPost(kind + " closed", kind, StatusRuns::terminal);
    }
    for (String run : runs.values()) {
      loop.await("Flux deleted " + run, () -> loop.jobSet(run).get() == null);
    }
    loop.reconcileNow();
    Eventually.sleep(INTERVAL);
    for (String kind : runs.keySet()) {
      assertNull(loop.jobSet(runs.get(kind)).get(), "re-created: " + runs.get(kind));
      List<FakeForge.Accepted> posts = loop.posts(kind);
      String detail = kind + ": " + lines(posts);
      System.out.println("[InterplayIT] deleted " + kind + ": " + lines(posts));
      FakeForge.Accepted last = posts.get(posts.size() - 1);
      assertEquals(kind.equals("gitlab") ? "canceled" : "error", last.state(), detail);
      assertEquals(
          "deleted before it finished (last: running: 2 of 2 nodes ready, attempt 1 of 4)",
          last.description(),
          detail);
      assertEquals(1, posts.stream().filter(StatusRuns::terminal).count(), detail);
      assertFalse(StatusRuns.hasDuplicate(posts), detail);
    }
    assertEquals(List.of(), forge.rejected());
    loop.uninstall();
  }

  @Test
  @DisplayName(
      "pods that never become ready: Kueue evicts the Workload at its PodsReady timeout, requeues it, then deactivates it at its requeuing limit; the status ends terminal with what the pods showed, and neither Kueue nor Flux re-creates the run")
  void deactivatedAtRequeuingLimit(KubeCluster cluster, @TempDir Path temp) throws Exception {
    requireKueue(cluster);
    Loop loop = loop(cluster, temp, "ipdeact", "64");
    String run = loop.submit("github", "deact", 2);
    loop.publish(List.of(run), "image-pull", null, null);
    loop.await("the JobSet synced", () -> loop.jobSet(run).get() != null);
    String jobSetUid = loop.jobSet(run).get().getMetadata().getUid();
    loop.awaitPost(
        "terminal",
        "github",
        StatusRuns::terminal,
        KueueController.PODS_READY_TIMEOUT
            .multipliedBy(KueueController.BACKOFF_LIMIT_COUNT + 1L)
            .plus(TIMEOUT));
    GenericKubernetesResource wl = loop.workload(run).orElseThrow();
    String wlUid = wl.getMetadata().getUid();
    System.out.println(
        "[InterplayIT] deactivated Workload: spec.active="
            + wl.get("spec", "active")
            + " status="
            + wl.getAdditionalProperties().get("status"));
    assertEquals(Boolean.FALSE, wl.get("spec", "active"), "Kueue deactivated it");
    assertTrue(
        String.valueOf(loop.evictedReason(wl)).startsWith("Deactivated"),
        "Evicted reason: " + loop.evictedReason(wl));
    loop.await("the deactivated run's pods gone", () -> loop.pods(run).isEmpty());
    loop.reconcileNow();
    Eventually.sleep(INTERVAL.multipliedBy(3));
    GenericKubernetesResource js = loop.jobSet(run).get();
    assertNotNull(js, "the deactivated run's JobSet is kept (afterDeactivatedByKueue unset)");
    assertEquals(jobSetUid, js.getMetadata().getUid(), "the JobSet was re-created");
    assertTrue(JobSets.suspended(js), "Kueue never requeues it: " + JobSets.describe(js));
    GenericKubernetesResource after = loop.workload(run).orElseThrow();
    assertEquals(wlUid, after.getMetadata().getUid(), "the Workload was re-created");
    assertEquals(Boolean.FALSE, after.get("spec", "active"));
    assertEquals(List.of(), loop.pods(run), "no pod started again");
    List<FakeForge.Accepted> posts = loop.posts("github");
    String detail = lines(posts).toString();
    System.out.println("[InterplayIT] deactivated: " + detail);
    FakeForge.Accepted last = posts.get(posts.size() - 1);
    assertTrue(List.of("error", "failure").contains(last.state()), detail);
    // Kueue sets spec.active false a moment before it writes the Evicted reason; the status waits
    // for that reason (KueueEnd), so it names the requeuing limit.
    // The plain runtime's image is pinned by digest (plain@3.12-3); the description keeps its
    // 140-character budget by cutting the image's digest, never the attempt.
    assertEquals(
        "failed (platform error): deactivated by Kueue: cannot pull image"
            + " docker.io/library/python:3.12-slim@sha256:229a2c5bfa27522d…, attempt 1 of 4",
        last.description(),
        detail);
    assertEquals(1, posts.stream().filter(StatusRuns::terminal).count(), detail);
    assertEquals(List.of(), forge.rejected());
    loop.uninstall();
  }

  private static void requireKueue(KubeCluster cluster) {
    assumeTrue(
        cluster.runs(Component.KUEUE_CONTROLLER),
        "NOT RUN: Kueue controller not built (see VERSIONS)");
  }

  /**
   * A namespace, the GitOps server with the repo Flux syncs and a staging repo (both seeded with a
   * platform.yaml whose one ClusterQueue has {@code cpuQuota}), Flux with the shipped objects, and
   * the status controller for this tag's forge hosts.
   */
  private Loop loop(KubeCluster cluster, Path temp, String tag, String cpuQuota) throws Exception {
    String namespace = cluster.newNamespace();
    GitHttpServer git =
        GitHttpServer.start(
            KubeClusterExtension.workDir("interplay-git-" + tag), Optional.of(CREDENTIALS));
    open.add(git);
    FluxControllers flux =
        FluxControllers.start(
            binaries, cluster, KubeClusterExtension.workDir("interplay-flux-" + tag));
    open.add(flux);
    Path platform = platform(temp, namespace, cpuQuota);
    String gitops = seed(git, "gitops.git", platform, temp.resolve("seed-gitops"));
    String staging = seed(git, "staging.git", platform, temp.resolve("seed-staging"));
    FluxObjects objects = new FluxObjects(cluster.client());
    objects.applyGitSecret("trainyard-gitops-auth", CREDENTIALS);
    List<GenericKubernetesResource> examples = FluxExamples.objects(gitops, CLUSTER, namespace);
    FluxExamples.shortenIntervals(examples, INTERVAL);
    objects.apply(examples);
    ControllerProcess controller =
        ControllerProcess.start(cluster, forge, tag, namespace, tag + "-0", Duration.ofMinutes(10));
    open.add(controller);
    return new Loop(
        cluster, namespace, tag, temp, git, flux, objects, gitops, staging, examples, controller);
  }

  private static String seed(GitHttpServer git, String repo, Path platform, Path dir) {
    git.createBareRepo(repo);
    String url = git.url(repo);
    GitOpsCheckout checkout =
        GitOpsCheckout.clone(url, CREDENTIALS, LocalCluster.mkdirs(dir).resolve("gitops"));
    copy(platform, checkout.dir().resolve("platform.yaml"));
    checkout.commitAndPush("platform: clusters, namespaces and queues");
    return url;
  }

  private static Path platform(Path dir, String namespace, String cpuQuota) throws IOException {
    String queue = "ip-" + namespace;
    Path file = dir.resolve("platform.yaml");
    Files.writeString(
        file,
        ("apiVersion: trainyard.dev/v1\nkind: Platform\nclusters: [{name: %1$s}]\n"
                + "namespaces: [{name: %2$s, cluster: %1$s, defaultQueue: %3$s}]\n"
                + "secrets: {policy: plain, allowPlain: true}\n"
                + "queues:\n  resourceFlavors: [{name: %3$s}]\n"
                + "  clusterQueues: [{name: %3$s, flavors: [{name: %3$s, quota: {cpu: \"%4$s\","
                + " memory: 256Gi}}]}]\n"
                + "  localQueues: [{name: %3$s, namespace: %2$s, clusterQueue: %3$s}]\n")
            .formatted(CLUSTER, namespace, queue, cpuQuota),
        StandardCharsets.UTF_8);
    return file;
  }

  private static void copy(Path from, Path to) {
    try {
      Files.createDirectories(to.getParent());
      Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One GitOps loop of a test; see {@link #loop}. */
  private final class Loop {
    private final KubeCluster cluster;
    private final String namespace;
    private final String tag;
    private final Path temp;
    private final GitHttpServer git;
    private final FluxControllers flux;
    private final FluxObjects objects;
    private final String gitops;
    private final String staging;
    private final List<GenericKubernetesResource> installed;
    private final ControllerProcess controller;
    private final Map<String, String> shas = new LinkedHashMap<>();
    private final List<String> runs = new ArrayList<>();
    private int checkouts;

    Loop(
        KubeCluster cluster,
        String namespace,
        String tag,
        Path temp,
        GitHttpServer git,
        FluxControllers flux,
        FluxObjects objects,
        String gitops,
        String staging,
        List<GenericKubernetesResource> installed,
        ControllerProcess controller) {
      this.cluster = cluster;
      this.namespace = namespace;
      this.tag = tag;
      this.temp = temp;
      this.git = git;
      this.flux = flux;
      this.objects = objects;
      this.gitops = gitops;
      this.staging = staging;
      this.installed = installed;
      this.controller = controller;
    }

    String namespace() {
      return namespace;
    }

    String localQueue() {
      return "ip-" + namespace;
    }

    /**
     * {@code trainyard submit} of a {@code nodes}-node train.yaml whose source repo is on {@code
     * kind}'s forge host, into the staging repo; returns the run name.
     */
    String submit(String kind, String folder, int nodes) throws Exception {
      Path trainYaml =
          SourceRepo.withTrainYaml(
              temp.resolve("src-" + folder),
              folder,
              "runtime: plain\nrun: python train.py\nnodes: "
                  + nodes
                  + "\nresources: {cpu: 500m, memory: 256Mi}\n",
              "https://" + ControllerProcess.host(kind, tag) + "/acme/" + folder + ".git");
      String run = new TrainyardCliPublisher(staging, CREDENTIALS).submit(trainYaml);
      String sha =
          GitCli.run(
                  trainYaml.getParent().getParent().getParent(),
                  GitCli.isolatedEnv(temp),
                  "rev-parse",
                  "HEAD")
              .trim();
      shas.put(kind, sha);
      runs.add(run);
      return run;
    }

    /**
     * Copies the staging repo's {@code clusters/} to the synced repo with {@code runs}' pod
     * templates given kwok's {@code outcome} (and {@code runFor}) and, unless null, the
     * ClusterQueue's cpu quota set to {@code cpuQuota}, in one pushed commit.
     */
    void publish(Iterable<String> runs, String outcome, String runFor, String cpuQuota) {
      GitOpsCheckout from = checkout(staging);
      GitOpsCheckout to = checkout(gitops);
      Path clusters = from.dir().resolve("clusters");
      try (Stream<Path> files = Files.walk(clusters)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          copy(f, to.dir().resolve(from.dir().relativize(f)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (String run : runs) {
        Path file =
            to.dir()
                .resolve(
                    "clusters/"
                        + CLUSTER
                        + "/"
                        + namespace
                        + "/"
                        + run
                        + "/jobset-"
                        + run
                        + ".yaml");
        List<GenericKubernetesResource> parsed = Manifests.parse(read(file));
        assertEquals(1, parsed.size(), file.toString());
        GenericKubernetesResource js = parsed.get(0);
        JobSets.labelPods(js, KWOK_OUTCOME, outcome);
        if (runFor != null) {
          JobSets.annotatePods(js, KWOK_RUN_FOR, runFor);
        }
        write(file, Serialization.asYaml(js));
      }
      if (cpuQuota != null) {
        quota(to, cpuQuota);
      }
      to.commitAndPush("runs " + runs + " (kwok outcome " + outcome + ")");
    }

    /** The ClusterQueue's cpu quota in the synced repo set to {@code cpu}, pushed. */
    void setQuota(String cpu) {
      GitOpsCheckout to = checkout(gitops);
      quota(to, cpu);
      to.commitAndPush("queues: cpu quota " + cpu);
    }

    private void quota(GitOpsCheckout to, String cpu) {
      Path file =
          to.dir()
              .resolve("clusters/" + CLUSTER + "/_cluster/clusterqueue-" + localQueue() + ".yaml");
      String text = read(file);
      String changed =
          text.replaceFirst("(- name: cpu\\n\\s+nominalQuota: )\"?[0-9m]+\"?", "$1\"" + cpu + "\"");
      assertFalse(text.equals(changed), "no cpu quota in " + file + ":\n" + text);
      write(file, changed);
    }

    /** {@code trainyard prune RUN} on both repos (staging first, so no later copy restores it). */
    void prune(String run) {
      new TrainyardCliPublisher(staging, CREDENTIALS).prune(run);
      new TrainyardCliPublisher(gitops, CREDENTIALS).prune(run);
    }

    private GitOpsCheckout checkout(String url) {
      return GitOpsCheckout.clone(
          url,
          CREDENTIALS,
          LocalCluster.mkdirs(temp.resolve("checkout-" + ++checkouts)).resolve("repo"));
    }

    Resource<GenericKubernetesResource> jobSet(String run) {
      return JobSets.api(cluster.client()).inNamespace(namespace).withName(run);
    }

    List<Pod> pods(String run) {
      return JobSetLifecycleIT.pods(cluster, namespace, run);
    }

    List<String> podUids(String run) {
      return pods(run).stream().map(p -> p.getMetadata().getUid()).sorted().toList();
    }

    Optional<GenericKubernetesResource> workload(String run) {
      return cluster
          .client()
          .genericKubernetesResources("kueue.x-k8s.io/v1beta2", "Workload")
          .inNamespace(namespace)
          .list()
          .getItems()
          .stream()
          .filter(
              w ->
                  w.getMetadata().getOwnerReferences().stream()
                      .anyMatch(o -> run.equals(o.getName())))
          .findFirst();
    }

    Object evictedReason(GenericKubernetesResource wl) {
      Object conditions = wl.get("status", "conditions");
      if (conditions instanceof List<?> list) {
        for (Object c : list) {
          if (c instanceof Map<?, ?> m && "Evicted".equals(m.get("type"))) {
            return m.get("reason");
          }
        }
      }
      return null;
    }

    List<FakeForge.Accepted> posts(String kind) {
      return StatusRuns.posts(forge, shas.get(kind));
    }

    void awaitPost(String what, String kind, Predicate<FakeForge.Accepted> match) {
      awaitPost(what, kind, match, TIMEOUT);
    }

    void awaitPost(
        String what, String kind, Predicate<FakeForge.Accepted> match, Duration timeout) {
      Eventually.await(
          what,
          timeout,
          () -> {
            controller.requireAlive();
            return posts(kind).stream().anyMatch(match);
          },
          () ->
              "posts: "
                  + lines(posts(kind))
                  + "\nrejected: "
                  + forge.rejected()
                  + "\n"
                  + describeRuns()
                  + "\nFlux:"
                  + objects.describe(fluxObjects())
                  + "\nkustomize-controller:\n"
                  + flux.logTail("kustomize-controller", 15)
                  + "\ncontroller log:\n"
                  + controller.log());
    }

    /** Each run this loop submitted, as {@link RunDiagnosis} sees it on the cluster. */
    String describeRuns() {
      return runs.stream()
          .map(run -> RunDiagnosis.describe(cluster, namespace, run))
          .collect(Collectors.joining("\n"));
    }

    void await(String what, BooleanSupplier condition) {
      Eventually.await(
          what,
          TIMEOUT,
          condition,
          () ->
              describeRuns()
                  + "\nFlux:"
                  + objects.describe(fluxObjects())
                  + "\nkustomize-controller:\n"
                  + flux.logTail("kustomize-controller", 15));
    }

    private List<Resource<GenericKubernetesResource>> fluxObjects() {
      return List.of(
          objects.gitRepository(FluxExamples.GIT_REPOSITORY),
          objects.kustomization(FluxExamples.QUEUES),
          objects.kustomization(FluxExamples.runsKustomization(namespace)));
    }

    /** Asks the GitRepository, then the runs' Kustomization, to reconcile now; waits for both. */
    void reconcileNow() {
      for (Resource<GenericKubernetesResource> object :
          List.of(fluxObjects().get(0), fluxObjects().get(2))) {
        String requested = objects.requestReconcile(object);
        await(
            "Flux handles reconcile request " + requested + " of " + object.get().getKind(),
            () -> FluxObjects.handled(object.get(), requested) && FluxObjects.ready(object.get()));
      }
    }

    /**
     * Prints, per post of {@code kind}'s run, the time from the state change it reports (the Kueue,
     * pod or JobSet condition time, whole seconds) to the forge accepting it.
     */
    void reportLatency(String kind, String run, Instant quotaRaised) {
      List<FakeForge.Accepted> all = forge.accepted();
      List<Instant> times = forge.acceptedTimes();
      List<Instant> mine = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        if (all.get(i).sha().equals(shas.get(kind))) {
          mine.add(times.get(i));
        }
      }
      GenericKubernetesResource js = jobSet(run).get();
      Instant completed = conditionTime(js, "Completed");
      System.out.printf(
          "[InterplayIT] latency %s (%s): %d posts; running posted %.1f s after the quota commit;"
              + " succeeded posted %.1f s after JobSet Completed (%s, whole seconds)%n",
          kind,
          run,
          mine.size(),
          Duration.between(quotaRaised, mine.get(1)).toMillis() / 1000.0,
          Duration.between(completed, mine.get(2)).toMillis() / 1000.0,
          completed);
    }

    private Instant conditionTime(GenericKubernetesResource object, String type) {
      Object conditions = object.get("status", "conditions");
      if (conditions instanceof List<?> list) {
        for (Object c : list) {
          if (c instanceof Map<?, ?> m && type.equals(m.get("type"))) {
            return Instant.parse(String.valueOf(m.get("lastTransitionTime")));
          }
        }
      }
      throw new AssertionError("no " + type + " condition: " + JobSets.describe(object));
    }

    /** Deletes the Flux objects (Flux prunes what they applied) and waits. */
    void uninstall() {
      List<GenericKubernetesResource> reversed = new ArrayList<>(installed);
      Collections.reverse(reversed);
      for (GenericKubernetesResource object : reversed) {
        cluster.client().resource(object).delete();
      }
      await(
          "Flux objects deleted (finalizers done)",
          () -> fluxObjects().stream().allMatch(o -> o.get() == null));
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
