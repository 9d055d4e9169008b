package dev.trainyard.cluster.netns;

import dev.trainyard.cluster.netns.CompiledRun.PodPlan;
import dev.trainyard.cluster.netns.PodVolumes.Mount;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A compiled run's pods as processes on hosts made of network namespaces ({@link HostNetwork}),
 * each pod's main container started as the kubelet would: its own mount and UTS namespace, hostname
 * {@code <jobset>-<rjob>-<j>-<p>}, a per-pod {@code /etc/hosts} that maps the pods' DNS names
 * {@code <hostname>.<subdomain>} (and {@code ....<namespace>.svc.cluster.local}) to their
 * addresses, the image's user in {@code /etc/passwd}, the volumes of {@link PodVolumes} at their
 * mount paths, a private {@code /tmp}, the uid, gid and fsGroup of the pod's {@code
 * securityContext}, and exactly the compiled {@code command}, {@code args}, {@code workingDir} and
 * env ({@link ContainerEnv}). The code-sync init container is played by the real git CLI: the
 * source repo is cloned at the compiled commit into the workspace volume, as git-sync's {@code
 * --root}/{@code --link} layout.
 *
 * <p>DNS: a pod's name resolves on the other hosts once it is {@linkplain #publish published} (at
 * start by default), as a Kubernetes headless-Service record appears when the pod has its IP; a
 * late record is added to every hosts file in place.
 */
final class NamespaceCluster implements AutoCloseable {
  private final CompiledRun run;
  private final ImageStandIn image;
  private final Path work;
  private final Path sourceRepo;
  private final HostNetwork network;
  private final Map<String, HostNetwork.Host> hostOf = new LinkedHashMap<>();
  private final List<String> published = new ArrayList<>();
  private final List<RunningPod> running = new ArrayList<>();
  private final Deque<Path> createdDirs = new ArrayDeque<>();
  private final Optional<PodApiAccess> api;
  private int restartAttempt;

  /**
   * @param work an empty folder for the pods' files (not under /tmp: pods get a private /tmp)
   * @param sourceRepo the git repo the compiled {@code GIT_REPO} stands for
   */
  NamespaceCluster(CompiledRun run, ImageStandIn image, Path work, Path sourceRepo) {
    this(run, image, work, sourceRepo, Map.of(), Optional.empty());
  }

  /**
   * @param addresses pod hostname → address (/16) for pods a real cluster already gave an IP;
   *     others get 10.213.0.x/24
   * @param api the test cluster's API server as pods see it (service-account files,
   *     KUBERNETES_SERVICE_*)
   */
  NamespaceCluster(
      CompiledRun run,
      ImageStandIn image,
      Path work,
      Path sourceRepo,
      Map<String, String> addresses,
      Optional<PodApiAccess> api) {
    this.run = run;
    this.image = image;
    this.work = work;
    this.sourceRepo = sourceRepo;
    this.api = api;
    this.network = HostNetwork.create();
    try {
      for (PodPlan pod : run.pods()) {
        String hostname = pod.hostname(run.jobSetName());
        hostOf.put(
            hostname,
            addresses.containsKey(hostname)
                ? network.addHost(addresses.get(hostname), 16)
                : network.addHost());
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  CompiledRun run() {
    return run;
  }

  /**
   * The JobSet restart this cluster's pods belong to: their {@code
   * jobset.sigs.k8s.io/restart-attempt} label, which JobSet sets to {@code status.restarts} when it
   * creates the Jobs (0 by default).
   */
  NamespaceCluster restartAttempt(int attempt) {
    restartAttempt = attempt;
    return this;
  }

  /** The pod of replicated job {@code rjob} with completion index {@code index}. */
  PodPlan pod(String rjob, int index) {
    return run.podsOf(rjob).get(index);
  }

  /** Starts the pod's main container, publishing its DNS name first. */
  RunningPod start(PodPlan pod) {
    return start(pod, true);
  }

  /**
   * Starts the pod's main container; with {@code publish} false its name resolves nowhere until
   * {@link #publish}.
   */
  RunningPod start(PodPlan pod, boolean publish) {
    if (publish) {
      publish(pod);
    }
    String hostname = pod.hostname(run.jobSetName());
    Path podDir = work.resolve("pods").resolve(hostname);
    PodSpec spec = pod.template().getSpec();
    Container container = spec.getContainers().get(0);
    PodVolumes volumes = new PodVolumes(spec, run, podDir, work.resolve("claims"));
    List<Mount> mounts = new ArrayList<>(volumes.materialize(container));
    new CodeSync(sourceRepo).play(spec, volumes);
    Map<String, String> env = env(pod, container, podDir, mounts);
    PodLaunch launch =
        new PodLaunch(hostname, podDir, writeHostsFile(podDir, hostname), image, mounts);
    prepareMountPoints(mounts);
    RunningPod started = launch.start(hostOf.get(hostname), container, user(spec, container), env);
    running.add(started);
    return started;
  }

  /**
   * The container's env over the kubelet's (image ENV, service env); the API server's
   * service-account mount joins {@code mounts} when the cluster has one.
   */
  private Map<String, String> env(
      PodPlan pod, Container container, Path podDir, List<Mount> mounts) {
    String hostname = pod.hostname(run.jobSetName());
    Map<String, String> kubeletEnv = new LinkedHashMap<>(image.env());
    api.ifPresent(
        a -> {
          mounts.add(a.serviceAccountMount(podDir));
          kubeletEnv.putAll(a.serviceEnv());
          a.startRelay(hostOf.get(hostname), podDir);
        });
    Map<String, String> env =
        new LinkedHashMap<>(
            ContainerEnv.of(container, kubeletEnv, hostname, fields(pod, hostname), run.secrets()));
    // The Job controller adds the completion index to every container of an Indexed Job (JobSet's
    // are).
    env.putIfAbsent("JOB_COMPLETION_INDEX", Integer.toString(pod.podIndex()));
    int gpus = requestedGpus(container);
    if (gpus > 0) {
      env.put("PATH", gpuStandIn(podDir, gpus) + ":" + env.getOrDefault("PATH", ImageStandIn.PATH));
    }
    return env;
  }

  private static int requestedGpus(Container container) {
    if (container.getResources() == null || container.getResources().getLimits() == null) {
      return 0;
    }
    var limit = container.getResources().getLimits().get("nvidia.com/gpu");
    return limit == null ? 0 : Integer.parseInt(limit.getAmount());
  }

  /**
   * These hosts have no GPU: a pod that requests {@code gpus} gets an {@code nvidia-smi} stand-in
   * that lists that many devices with a driver above every runtime's floor, as the NVIDIA container
   * toolkit would mount for a scheduled GPU pod. The compiled start-up check then passes, and
   * torch, which asks the driver library and not nvidia-smi, still trains on the CPU with gloo.
   */
  private static Path gpuStandIn(Path podDir, int gpus) {
    Path bin = podDir.resolve("gpu-standin");
    StringBuilder list = new StringBuilder();
    for (int i = 0; i < gpus; i++) {
      list.append("echo 'GPU ")
          .append(i)
          .append(": Stand-in GPU (UUID: GPU-standin-")
          .append(i)
          .append(")'\n");
    }
    String script =
        "#!/bin/bash\ncase \"$*\" in\n  *--query-gpu=driver_version*) echo 999.99.99 ;;\n  *) "
            + "true\n"
            + list
            + " ;;\nesac\n";
    try {
      Files.createDirectories(bin);
      Path smi = bin.resolve("nvidia-smi");
      Files.writeString(smi, script);
      smi.toFile().setExecutable(true, false);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bin;
  }

  /** Makes {@code pod}'s name resolve on every host (now and for pods started later). */
  void publish(PodPlan pod) {
    String hostname = pod.hostname(run.jobSetName());
    if (!published.contains(hostname)) {
      published.add(hostname);
    }
    for (String other : hostOf.keySet()) {
      Path file = work.resolve("pods").resolve(other).resolve("hosts");
      if (Files.exists(file)) {
        write(file, hostsText(other));
      }
    }
  }

  private Path writeHostsFile(Path podDir, String hostname) {
    Path file = podDir.resolve("hosts");
    write(file, hostsText(hostname));
    return file;
  }

  /**
   * The pod's /etc/hosts: localhost, itself (with its short name, as the kubelet writes it),
   * published peers.
   */
  private String hostsText(String self) {
    StringBuilder out = new StringBuilder("127.0.0.1\tlocalhost\n");
    String suffix = "." + run.subdomain();
    String fqdnSuffix = suffix + "." + run.namespace() + ".svc.cluster.local";
    for (String name : hostOf.keySet()) {
      if (name.equals(self) || published.contains(name)) {
        out.append(hostOf.get(name).address())
            .append('\t')
            .append(name)
            .append(fqdnSuffix)
            .append(' ')
            .append(name)
            .append(suffix)
            .append(name.equals(self) ? " " + name : "")
            .append('\n');
      }
    }
    return out.toString();
  }

  private Map<String, String> fields(PodPlan pod, String hostname) {
    Map<String, String> fields = new LinkedHashMap<>();
    fields.put(
        "metadata.annotations['batch.kubernetes.io/job-completion-index']",
        Integer.toString(pod.podIndex()));
    fields.put("metadata.name", hostname + "-harn5");
    fields.put("spec.nodeName", "netns-" + hostname);
    fields.put("metadata.namespace", api.map(PodApiAccess::namespace).orElse(run.namespace()));
    fields.put("status.podIP", hostOf.get(hostname).address());
    fields.put(
        "metadata.labels['jobset.sigs.k8s.io/restart-attempt']", Integer.toString(restartAttempt));
    return fields;
  }

  /**
   * uid, gid and supplementary groups: container securityContext over the pod's (fsGroup joins the
   * groups).
   */
  private static PodLaunch.User user(PodSpec spec, Container container) {
    PodSecurityContext pod =
        Optional.ofNullable(spec.getSecurityContext()).orElse(new PodSecurityContext());
    var c = container.getSecurityContext();
    long uid =
        c != null && c.getRunAsUser() != null
            ? c.getRunAsUser()
            : Optional.ofNullable(pod.getRunAsUser()).orElse(0L);
    long gid =
        c != null && c.getRunAsGroup() != null
            ? c.getRunAsGroup()
            : Optional.ofNullable(pod.getRunAsGroup()).orElse(0L);
    return new PodLaunch.User(uid, gid, Optional.ofNullable(pod.getFsGroup()));
  }

  /**
   * Creates the mount points that are not under another mount (those are made inside the pod),
   * remembering them.
   */
  private void prepareMountPoints(List<Mount> mounts) {
    List<String> targets = new ArrayList<>(mounts.stream().map(Mount::target).toList());
    image.software().forEach(p -> targets.add(p.toString()));
    for (String target : targets) {
      boolean nested =
          mounts.stream()
              .anyMatch(m -> !m.target().equals(target) && target.startsWith(m.target() + "/"));
      boolean podOwn =
          target.startsWith("/run/")
              || target.startsWith("/var/run/")
              || target.startsWith("/tmp/");
      if (!nested && !podOwn) {
        createMissing(Path.of(target));
      }
    }
  }

  private void createMissing(Path dir) {
    Path existing = dir;
    Deque<Path> missing = new ArrayDeque<>();
    while (existing != null && !Files.exists(existing)) {
      missing.push(existing);
      existing = existing.getParent();
    }
    try {
      for (Path p : missing) {
        Files.createDirectory(p);
        createdDirs.push(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kills every pod, deletes the namespaces and the mount points this cluster created. */
  @Override
  public void close() {
    running.forEach(RunningPod::kill);
    network.close();
    while (!createdDirs.isEmpty()) {
      try {
        Files.deleteIfExists(createdDirs.pop());
      } catch (IOException e) {
        // Not empty: something else uses it now; leaving an empty folder is harmless.
      }
    }
  }

  /** Namespaces of this cluster still present (empty after {@link #close()}). */
  List<String> remainingNamespaces() {
    return network.remaining();
  }
}
