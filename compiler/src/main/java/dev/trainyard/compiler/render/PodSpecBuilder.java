package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.ResolveStage;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.spec.SecretRef;
import dev.trainyard.compiler.spec.VolumeMount;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The parts every training pod shares: the code-sync init container that clones the source repo at
 * the exact commit, the {@code node} container with resources, a writable {@code HOME}
 * (kubeflow/sdk#89) unless the image owns it (then only scratch space at {@code HOME/.cache}, so
 * the image's {@code pip --user} stack stays visible), a memory-backed {@code /dev/shm}
 * (torchx#428), the user's PVCs and Secrets, and the security context.
 */
final class PodSpecBuilder {
  static final String CONTAINER = "node";

  /** The init container that fetches the user's commit; the Job's pod failure policy names it. */
  static final String CODE_SYNC = "code-sync";

  private static final String WORKSPACE = ResolveStage.WORKSPACE;

  private final ResolvedJob job;

  PodSpecBuilder(ResolvedJob job) {
    this.job = job;
  }

  /**
   * A pod spec whose {@code node} container runs {@code command}.
   *
   * @param env the container's env
   * @param command the container command (argv)
   * @param withGpus whether this pod runs ranks and so requests the node's GPUs, CPU and memory
   */
  ObjectNode podSpec(EnvList env, List<String> command, boolean withGpus) {
    ObjectNode spec = CanonicalJson.mapper().createObjectNode();
    spec.put("restartPolicy", "Never");
    securityContext(spec);
    spec.putArray("initContainers").add(codeSync());
    ObjectNode container = spec.putArray("containers").addObject();
    container
        .put("name", CONTAINER)
        .put("image", job.command().image())
        .put("imagePullPolicy", "IfNotPresent");
    command.forEach(container.withArray("command")::add);
    container.put("workingDir", job.command().workdir());
    container.set("env", podEnv(env, withGpus).toArray());
    container.set("resources", resources(withGpus));
    container.set("volumeMounts", mounts());
    restrictedContainer(container, job.runtime().security().addCapabilities());
    spec.set("volumes", volumes());
    nodeSelector(spec);
    return spec;
  }

  /** The env every node container gets: provenance, HOME, user env and Secret references. */
  EnvList baseEnv() {
    EnvList env = new EnvList();
    env.put("GIT_REPO", job.source().repoUrl()).put("GIT_COMMIT", job.source().commit());
    env.put("HOME", job.runtime().user().home());
    job.command().env().forEach(env::put);
    for (SecretRef s : job.secrets()) {
      if (s.env().isPresent()) {
        env.putSecretKey(s.env().get(), s.name(), s.key().orElseThrow());
      }
    }
    if (job.platform().progressPush().enabled()) {
      TrainerStatusPush.env(
          env, job.platform().progressPush(), job.target().namespace(), job.naming().runName());
    }
    return env;
  }

  /**
   * {@code env} plus, for a pod that requests no GPU, {@code NVIDIA_VISIBLE_DEVICES=void}: CUDA
   * images bake in {@code all}, so on a node with the NVIDIA runtime such a pod would see every GPU
   * of the node (NVIDIA/k8s-device-plugin#61, #87); {@code void} gives it no GPU and no driver
   * (NVIDIA container toolkit). A pod that requests GPUs gets its devices from the device plugin,
   * and its node's name for the GPU start-up check.
   */
  private EnvList podEnv(EnvList env, boolean withGpus) {
    if (withGpus && job.resources().gpus() > 0) {
      // Names the node in the GPU start-up check's message (GpuCheck).
      return new EnvList().putAll(env).putFieldRef(GpuCheck.NODE_ENV, "spec.nodeName");
    }
    return new EnvList().putAll(env).put("NVIDIA_VISIBLE_DEVICES", "void");
  }

  /**
   * The pod's user; for a runtime that meets Pod Security "restricted" also {@code runAsNonRoot}
   * and the {@code RuntimeDefault} seccomp profile (kubernetes.io "Pod Security Standards").
   */
  private void securityContext(ObjectNode spec) {
    long uid = job.runtime().user().uid();
    ObjectNode sc = spec.putObject("securityContext").put("runAsUser", uid);
    if (uid != 0) {
      sc.put("runAsGroup", uid).put("fsGroup", uid);
    }
    if (job.runtime().security().restricted()) {
      sc.put("runAsNonRoot", true);
      sc.putObject("seccompProfile").put("type", "RuntimeDefault");
    }
  }

  /**
   * Restricted runtimes: no privilege escalation and every capability dropped, {@code add} (at most
   * NET_BIND_SERVICE, the one restricted allows) kept. Baseline runtimes (root images) are left as
   * they are: dropping root's capabilities breaks an ordinary {@code setup} such as {@code apt-get
   * install}.
   */
  private void restrictedContainer(ObjectNode container, List<String> add) {
    if (!job.runtime().security().restricted()) {
      return;
    }
    ObjectNode sc = container.withObject("securityContext").put("allowPrivilegeEscalation", false);
    ObjectNode caps = sc.putObject("capabilities");
    if (!add.isEmpty()) {
      add.forEach(caps.putArray("add")::add);
    }
    caps.putArray("drop").add("ALL");
  }

  private ObjectNode codeSync() {
    Platform.CodeSync sync = job.platform().codeSync();
    ObjectNode c = CanonicalJson.mapper().createObjectNode();
    c.put("name", CODE_SYNC).put("image", sync.image());
    ArrayNode args = c.putArray("args");
    // $(VAR) is expanded by the kubelet from env: repo and commit stay data, never shell text.
    for (String a :
        new String[] {
          "--repo=$(GIT_REPO)",
          "--ref=$(GIT_COMMIT)",
          "--root=" + WORKSPACE,
          "--link=src",
          "--one-time",
          "--depth=1"
        }) {
      args.add(a);
    }
    EnvList env =
        new EnvList()
            .put("GIT_REPO", job.source().repoUrl())
            .put("GIT_COMMIT", job.source().commit());
    sync.credentialSecret()
        .ifPresent(
            s ->
                env.putSecretKey("GITSYNC_USERNAME", s, "username")
                    .putSecretKey("GITSYNC_PASSWORD", s, "password"));
    c.set("env", env.toArray());
    // Limits too: a namespace whose ResourceQuota counts limits.cpu/limits.memory rejects a pod
    // with any container (init containers included) that sets none. A depth-1 clone stays far
    // below them; a CPU limit only slows it.
    ObjectNode resources = c.putObject("resources");
    ObjectNode requests = resources.putObject("requests").put("cpu", "100m").put("memory", "128Mi");
    ObjectNode limits = resources.putObject("limits").put("cpu", "1").put("memory", "512Mi");
    ephemeralStorage(requests, limits);
    c.putObject("securityContext").put("runAsUser", job.runtime().user().uid());
    restrictedContainer(c, List.of());
    c.putArray("volumeMounts").addObject().put("name", "workspace").put("mountPath", WORKSPACE);
    return c;
  }

  private ObjectNode resources(boolean withGpus) {
    ObjectNode r = CanonicalJson.mapper().createObjectNode();
    ResolvedJob.NodeResources res = job.resources();
    String cpu = withGpus ? res.cpu() : job.runtime().resources().launcherCpu();
    String memory = withGpus ? res.memory() : job.runtime().resources().launcherMemory();
    ObjectNode requests = r.putObject("requests").put("cpu", cpu).put("memory", memory);
    ObjectNode limits = r.putObject("limits").put("memory", memory);
    if (withGpus && res.gpus() > 0) {
      String gpu = job.platform().gpu().resourceName();
      requests.put(gpu, Integer.toString(res.gpus()));
      limits.put(gpu, Integer.toString(res.gpus()));
    }
    ephemeralStorage(requests, limits);
    return r;
  }

  /**
   * platform.yaml's {@code ephemeralStorage}, the same on the code-sync and the node container
   * ({@link Platform.EphemeralStorage} says why): the node disk the clone, HOME or its cache (pip,
   * Hugging Face, torch), {@code /tmp}, packages installed into the image and the logs take.
   */
  private void ephemeralStorage(ObjectNode requests, ObjectNode limits) {
    Platform.EphemeralStorage disk = job.platform().ephemeralStorage();
    disk.request().ifPresent(q -> requests.put(Platform.EphemeralStorage.RESOURCE, q));
    disk.limit().ifPresent(q -> limits.put(Platform.EphemeralStorage.RESOURCE, q));
  }

  private ArrayNode mounts() {
    ArrayNode m = CanonicalJson.mapper().createArrayNode();
    m.addObject().put("name", "workspace").put("mountPath", WORKSPACE);
    m.addObject().put("name", homeVolume()).put("mountPath", homeMountPath());
    m.addObject().put("name", "dshm").put("mountPath", "/dev/shm");
    for (int i = 0; i < job.volumes().size(); i++) {
      VolumeMount v = job.volumes().get(i);
      m.addObject()
          .put("name", "pvc-" + i)
          .put("mountPath", Path.of(v.path()).normalize().toString())
          .put("readOnly", v.readOnly());
    }
    for (int i = 0; i < job.secrets().size(); i++) {
      String name = "secret-" + i;
      job.secrets()
          .get(i)
          .path()
          .ifPresent(
              p ->
                  m.addObject()
                      .put("name", name)
                      .put("mountPath", Path.of(p).normalize().toString())
                      .put("readOnly", true));
    }
    if (job.platform().progressPush().enabled()) {
      TrainerStatusPush.mount(m);
    }
    return m;
  }

  private ArrayNode volumes() {
    ArrayNode v = CanonicalJson.mapper().createArrayNode();
    v.addObject().put("name", "workspace").putObject("emptyDir");
    v.addObject().put("name", homeVolume()).putObject("emptyDir");
    v.addObject()
        .put("name", "dshm")
        .putObject("emptyDir")
        .put("medium", "Memory")
        .put("sizeLimit", job.resources().shm());
    for (int i = 0; i < job.volumes().size(); i++) {
      VolumeMount m = job.volumes().get(i);
      v.addObject()
          .put("name", "pvc-" + i)
          .putObject("persistentVolumeClaim")
          .put("claimName", m.claim())
          .put("readOnly", m.readOnly());
    }
    for (int i = 0; i < job.secrets().size(); i++) {
      SecretRef s = job.secrets().get(i);
      if (s.path().isPresent()) {
        v.addObject().put("name", "secret-" + i).putObject("secret").put("secretName", s.name());
      }
    }
    if (job.platform().progressPush().enabled()) {
      TrainerStatusPush.volume(v, job.platform().progressPush());
    }
    return v;
  }

  /**
   * {@code home}, or {@code cache} when the image owns HOME and only its cache folder is scratch.
   */
  private String homeVolume() {
    return job.runtime().user().imageOwnsHome() ? "cache" : "home";
  }

  private String homeMountPath() {
    String home = job.runtime().user().home();
    return job.runtime().user().imageOwnsHome() ? Path.of(home, ".cache").toString() : home;
  }

  private void nodeSelector(ObjectNode spec) {
    String type = job.resources().gpuType();
    Map<String, String> labels =
        type.isEmpty() ? Map.of() : job.platform().gpu().types().getOrDefault(type, Map.of());
    if (!labels.isEmpty()) {
      ObjectNode sel = spec.putObject("nodeSelector");
      new TreeMap<>(labels).forEach(sel::put);
    }
  }
}
