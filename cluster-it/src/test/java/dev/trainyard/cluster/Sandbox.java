package dev.trainyard.cluster;

import dev.trainyard.controller.forge.FakeForge;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The process behind {@code scripts/sandbox up}: the whole loop on 127.0.0.1 from the cluster
 * tests' own harness, kept running until SIGTERM ({@code scripts/sandbox down}).
 *
 * <pre>
 * java -cp CLUSTER_IT_TEST_CLASSPATH -Dtrainyard.k8s.dir=… -Dtrainyard.flux.dir=… \
 *     -Dtrainyard.repo.root=REPO dev.trainyard.cluster.Sandbox STATE_DIR
 * </pre>
 *
 * <p>Starts, in order: etcd, kube-apiserver, the JobSet controller, kube-controller-manager,
 * kube-scheduler, kwok with {@value FakeNodes#CPU_NODES} CPU and {@value FakeNodes#GPU_NODES} GPU
 * nodes ({@value FakeNodes#GPUS_PER_NODE} {@code nvidia.com/gpu} each), Kueue ({@link
 * LocalCluster}); a fake forge for github.com, gitlab.com and codeberg.org repos ({@link
 * FakeForge}) and its pages ({@link ForgePages}); the GitOps repo {@code gitops.git} over HTTP with
 * a random token ({@link GitHttpServer}), seeded with the sandbox's platform.yaml; Flux's source-
 * and kustomize-controller with the shipped {@code examples/gitops/flux} objects at a 5 s interval
 * ({@link FluxControllers}); the status controller ({@link ControllerProcess}); and a demo source
 * repo. Then it writes into STATE_DIR: {@code sandbox.env} (export lines), {@code processes} (name
 * and pid of every process, itself first), {@code ready} (the summary {@code up} prints, the last
 * file written). Any failure prints one line to stderr and exits 1 after stopping what started.
 */
public final class Sandbox {

  static final String CLUSTER = "sandbox";
  static final String NAMESPACE = "default";
  static final String GIT_USER = "x-access-token";
  static final String DEMO_ORIGIN = "https://github.com/acme/sandbox-demo.git";
  static final Duration INTERVAL = Duration.ofSeconds(5);

  private final Path dir;
  private final List<AutoCloseable> open = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Long> pids = new LinkedHashMap<>();
  private final Map<String, Duration> times = new LinkedHashMap<>();

  private Sandbox(Path dir) {
    this.dir = dir;
  }

  /** {@code Sandbox STATE_DIR}; returns only through SIGTERM or a failed start (exit 1). */
  public static void main(String[] args) throws InterruptedException {
    if (args.length != 1) {
      System.err.println("usage: Sandbox STATE_DIR");
      System.exit(2);
    }
    Sandbox sandbox = new Sandbox(Path.of(args[0]).toAbsolutePath());
    // Where the harness classes put their state (KubeClusterExtension.workDir).
    System.setProperty("trainyard.work.dir", sandbox.dir.toString());
    Runtime.getRuntime().addShutdownHook(new Thread(sandbox::down, "sandbox-down"));
    long start = System.nanoTime();
    try {
      sandbox.up(start);
    } catch (RuntimeException | Error e) {
      System.err.println("sandbox: the start failed: " + e.getMessage());
      System.exit(1);
    }
    new CountDownLatch(1).await();
  }

  private void up(long start) {
    K8sBinaries k8s = K8sBinaries.locate();
    if (!k8s.has(Component.KUEUE_CONTROLLER.binary())) {
      throw new IllegalStateException(
          "no Kueue binary in " + k8s.bin("kueue").getParent() + "; run scripts/k8s-testbin");
    }
    FluxBinaries fluxBinaries = FluxBinaries.locate();
    fluxBinaries.missing().ifPresent(m -> fail("Flux controllers not built: " + m));
    LocalCluster cluster =
        step(
            "cluster",
            () ->
                keep(
                    LocalCluster.start(
                        k8s,
                        emptied("cluster"),
                        EnumSet.complementOf(EnumSet.of(Component.ETCD)))));
    cluster.processes().forEach(p -> pids.put(p.name(), p.pid()));
    FakeForge forge = keep(FakeForge.start());
    ForgePages pages = keep(ForgePages.start(forge));
    GitHttpServer.Credentials credentials = new GitHttpServer.Credentials(GIT_USER, newToken());
    GitHttpServer git = keep(GitHttpServer.start(emptied("git"), Optional.of(credentials)));
    Path platform = write(dir.resolve("platform.yaml"), platform(forge, pages));
    String gitops = step("gitops repo", () -> seed(git, credentials, platform));
    FluxControllers flux =
        step("flux", () -> keep(FluxControllers.start(fluxBinaries, cluster, emptied("flux"))));
    flux.processes().forEach(p -> pids.put(p.name(), p.pid()));
    stepDone("flux objects", () -> installFlux(cluster, gitops, credentials));
    ControllerProcess controller =
        step(
            "controller",
            () ->
                keep(
                    ControllerProcess.startWithPlatform(
                        cluster, emptied("controller"), platform, NAMESPACE, "sandbox-0")));
    pids.put("trainyard-controller", controller.pid());
    Path demo = step("demo repo", this::demoRepo);
    writeState(cluster, gitops, credentials, pages, demo, start);
  }

  /** The sandbox's platform.yaml: one cluster and namespace, a CPU and GPU queue, the forges. */
  static String platform(FakeForge forge, ForgePages pages) {
    return """
        # The Trainyard sandbox's platform (scripts/sandbox): written by `up`, seeded into the GitOps repo.
        apiVersion: trainyard.dev/v1
        kind: Platform
        clusters: [{name: %1$s}]
        namespaces: [{name: %2$s, cluster: %1$s, defaultQueue: sandbox}]
        secrets: {policy: plain, allowPlain: true}
        queues:
          resourceFlavors: [{name: sandbox}]
          clusterQueues:
          - name: sandbox
            flavors: [{name: sandbox, quota: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "16"}}]
          localQueues: [{name: sandbox, namespace: %2$s, clusterQueue: sandbox}]
        status:
          forges:
          - {source: github.com, kind: github, api: %3$s, token: {secret: forge-tokens, key: github}}
          - {source: gitlab.com, kind: gitlab, api: %4$s, token: {secret: forge-tokens, key: gitlab}}
          - {source: codeberg.org, kind: gitea, api: %5$s, token: {secret: forge-tokens, key: gitea}}
          targetUrl: %6$s/commit/{commit}
        """
        .formatted(
            CLUSTER,
            NAMESPACE,
            forge.githubApi(),
            forge.gitlabApi(),
            forge.giteaApi(),
            pages.url());
  }

  private String seed(GitHttpServer git, GitHttpServer.Credentials credentials, Path platform) {
    git.createBareRepo("gitops.git");
    String url = git.url("gitops.git");
    GitOpsCheckout checkout =
        GitOpsCheckout.clone(url, credentials, emptied("seed").resolve("gitops"));
    copy(platform, checkout.dir().resolve("platform.yaml"));
    checkout.commitAndPush("platform: the sandbox's cluster, namespace, queues and forges");
    return url;
  }

  private static void installFlux(
      KubeCluster cluster, String url, GitHttpServer.Credentials credentials) {
    FluxObjects objects = new FluxObjects(cluster.client());
    objects.applyGitSecret("trainyard-gitops-auth", credentials);
    List<GenericKubernetesResource> examples = FluxExamples.objects(url, CLUSTER, NAMESPACE);
    FluxExamples.shortenIntervals(examples, INTERVAL);
    objects.apply(examples);
  }

  /** {@code STATE/demo}: the pytorch-ddp example's code with a two-node, one-GPU train.yaml. */
  private Path demoRepo() {
    Path demo = emptied("demo");
    Path example = K8sBinaries.repoRoot().resolve("examples/pytorch-ddp");
    copy(example.resolve("train.py"), demo.resolve("train.py"));
    copy(example.resolve("requirements.txt"), demo.resolve("requirements.txt"));
    write(
        demo.resolve("train.yaml"),
        """
        # The sandbox's demo run: 2 nodes with 1 GPU each, on kwok's fake GPU nodes (kwok runs no code:
        # each pod "completes" at once; the loop around it is real).
        run: torchrun train.py --epochs 5
        nodes: 2
        resources: {gpus: 1}
        """);
    Map<String, String> env = GitCli.isolatedEnv(dir);
    GitCli.run(demo, env, "init", "--quiet", "--initial-branch=main");
    GitCli.run(demo, env, "config", "user.name", "Sandbox User");
    GitCli.run(demo, env, "config", "user.email", "user@sandbox.test");
    GitCli.run(demo, env, "remote", "add", "origin", DEMO_ORIGIN);
    GitCli.run(demo, env, "add", "--all");
    GitCli.run(demo, env, "commit", "--quiet", "-m", "demo: pytorch-ddp on 2 GPU nodes");
    // As if pushed: the sandbox's pods clone nothing (kwok runs no container), and submit would
    // otherwise warn (W316) that pods cannot check out a commit no remote has.
    GitCli.run(demo, env, "update-ref", "refs/remotes/origin/main", "HEAD");
    return demo;
  }

  private void writeState(
      LocalCluster cluster,
      String gitops,
      GitHttpServer.Credentials credentials,
      ForgePages pages,
      Path demo,
      long start) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("KUBECONFIG", cluster.kubeconfig().toString());
    env.put("TRAINYARD_GITOPS_TOKEN", credentials.token());
    env.put("SANDBOX_GITOPS", gitops);
    env.put("SANDBOX_FORGE", pages.url());
    env.put("SANDBOX_DEMO", demo.toString());
    write(
        dir.resolve("sandbox.env"),
        env.entrySet().stream()
            .map(e -> "export " + e.getKey() + "=" + shellQuoted(e.getValue()) + "\n")
            .collect(Collectors.joining()));
    StringBuilder processes = new StringBuilder("sandbox " + ProcessHandle.current().pid() + "\n");
    pids.forEach((name, pid) -> processes.append(name).append(' ').append(pid).append('\n'));
    write(dir.resolve("processes"), processes.toString());
    String seconds = "%.1f".formatted((System.nanoTime() - start) / 1e9);
    // Written last and renamed into place: `up` waits for this file and prints it whole.
    Path ready =
        write(
            dir.resolve("ready.tmp"), summary(cluster, gitops, credentials, pages, demo, seconds));
    try {
      Files.move(ready, dir.resolve("ready"), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String summary(
      LocalCluster cluster,
      String gitops,
      GitHttpServer.Credentials credentials,
      ForgePages pages,
      Path demo,
      String seconds) {
    String steps =
        times.entrySet().stream()
            .map(e -> e.getKey() + " %.1f s".formatted(e.getValue().toMillis() / 1000.0))
            .collect(Collectors.joining(", "));
    String trainyard = K8sBinaries.repoRoot().resolve("trainyard").toString();
    return String.join(
        "\n",
        "sandbox up in " + seconds + " s (" + steps + "); state and logs in " + dir,
        "",
        "  kubeconfig   " + cluster.kubeconfig(),
        "               etcd, kube-apiserver, controller-manager, scheduler, JobSet, Kueue, kwok ("
            + FakeNodes.CPU_NODES
            + " CPU nodes, "
            + FakeNodes.GPU_NODES
            + " nodes with "
            + FakeNodes.GPUS_PER_NODE
            + " nvidia.com/gpu)",
        "  GitOps repo  " + gitops + "   (Flux syncs clusters/" + CLUSTER + "/ every 5 s)",
        "  token        " + credentials.token() + "   (user " + GIT_USER + ")",
        "  forge pages  "
            + pages.url()
            + "/   (statuses of github.com, gitlab.com, codeberg.org"
            + " commits)",
        "  demo repo    " + demo + "   (origin " + DEMO_ORIGIN + ")",
        "",
        "Next, in this shell (the first line sets KUBECONFIG, TRAINYARD_GITOPS_TOKEN, SANDBOX_*):",
        "  eval \"$(scripts/sandbox env)\"",
        "  " + trainyard + " submit \"$SANDBOX_DEMO/train.yaml\" --gitops \"$SANDBOX_GITOPS\"",
        "  curl -s \"$SANDBOX_FORGE/commit/$(git -C \"$SANDBOX_DEMO\" rev-parse HEAD)?wait=300\""
            + "   # the commit's statuses, once final",
        "  " + trainyard + " status -n " + NAMESPACE + "   # the runs as the cluster shows them",
        "scripts/sandbox status says what runs; scripts/sandbox down stops it all.",
        "");
  }

  /** Stops everything started, newest first (the shutdown hook). */
  private void down() {
    List<AutoCloseable> newestFirst;
    synchronized (open) {
      newestFirst = new ArrayList<>(open);
    }
    Collections.reverse(newestFirst);
    for (AutoCloseable c : newestFirst) {
      try {
        c.close();
      } catch (Exception e) {
        System.err.println("sandbox: stopping " + c.getClass().getSimpleName() + ": " + e);
      }
    }
  }

  private <T> T step(String name, Supplier<T> action) {
    long start = System.nanoTime();
    T result = action.get();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    times.put(name, took);
    System.out.printf("sandbox: %s up (%.1f s)%n", name, took.toMillis() / 1000.0);
    return result;
  }

  private void stepDone(String name, Runnable action) {
    step(
        name,
        () -> {
          action.run();
          return null;
        });
  }

  private <T extends AutoCloseable> T keep(T closeable) {
    open.add(closeable);
    return closeable;
  }

  private static Path emptied(String name) {
    return KubeClusterExtension.workDir(name);
  }

  private static String newToken() {
    byte[] bytes = new byte[20];
    new SecureRandom().nextBytes(bytes);
    return "sandbox-" + HexFormat.of().formatHex(bytes);
  }

  /** {@code 'value'} with every {@code '} written {@code '\''}: one shell word, never code. */
  static String shellQuoted(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }

  private static void fail(String message) {
    throw new IllegalStateException(message);
  }

  private static Path write(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void copy(Path from, Path to) {
    try {
      Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
