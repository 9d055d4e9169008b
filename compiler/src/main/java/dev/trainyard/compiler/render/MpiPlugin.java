package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.runtime.MpiSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * MPI runtimes (Open MPI, DeepSpeed, MLX): node pods serve sshd, one launcher runs {@code mpirun}
 * over the hostfile. The node job comes first with a TCP readiness probe on the sshd port and the
 * launcher {@code dependsOn} it being Ready (trainer#2751, #3748); both use the same image
 * (trainer#4030) and carry the user env (trainer#3427). Key file modes depend on the uid: root
 * 0600, others 0640 with {@code fsGroup} (trainer#3262, mpi-operator#429).
 */
final class MpiPlugin implements FrameworkPlugin {
  private static final int MODE_0600 = 0600;
  private static final int MODE_0640 = 0640;
  private static final int MODE_0644 = 0644;
  private static final int MODE_0444 = 0444;

  @Override
  public FrameworkOutput render(ResolvedJob job, JobLayout layout, RenderServices services) {
    MpiFiles files = new MpiFiles(job, layout);
    PodSpecBuilder pods = new PodSpecBuilder(job);
    EnvList env = sharedEnv(job, files, pods);
    List<String> forwarded = forwarded(job, env);
    String run = job.naming().runName();
    List<ReplicatedJobPart> parts = new ArrayList<>();
    layout
        .job(JobLayout.NODE)
        .ifPresent(
            node ->
                parts.add(new ReplicatedJobPart(node, nodeSpec(job, pods, env), Optional.empty())));
    Optional<String> dependsOn = layout.job(JobLayout.NODE).map(n -> JobLayout.NODE);
    parts.add(
        new ReplicatedJobPart(
            layout.job(JobLayout.LAUNCHER).orElseThrow(),
            launcherSpec(job, pods, env, files),
            dependsOn));
    ObjectNode configMap =
        Manifest.skeleton("v1", "ConfigMap", run + "-mpi", job.target().namespace());
    ObjectNode data = configMap.putObject("data");
    data.put("hostfile", files.hostfile())
        .put("launch.sh", files.launchScript(forwarded))
        .put("node.sh", files.nodeScript())
        .put("sshd_config", files.sshdConfig());
    Manifest secret =
        services.sshSecret(
            job.target().namespace(),
            RenderServices.sshSecretName(run),
            Provenance.labels(job),
            Provenance.annotations(job));
    return new FrameworkOutput(
        parts, List.of(Manifest.of(configMap), secret), List.of(JobLayout.LAUNCHER));
  }

  /** Env of both launcher and node containers: the neutral names, the user's env, and setup/run. */
  private static EnvList sharedEnv(ResolvedJob job, MpiFiles files, PodSpecBuilder pods) {
    EnvList env = pods.baseEnv();
    env.put("NNODES", Integer.toString(job.topology().nodes()));
    env.put("GPUS_PER_NODE", Integer.toString(job.resources().gpus()));
    env.put("MASTER_ADDR", files.hosts().get(0));
    env.put("MASTER_PORT", RankEnv.MASTER_PORT);
    env.put("HOSTFILE", MpiFiles.HOSTFILE);
    env.put("TRAINYARD_RUN", job.command().run());
    if (!job.command().setup().isEmpty()) {
      env.put("TRAINYARD_SETUP", job.command().setup());
    }
    job.checkpoint().ifPresent(c -> CheckpointParts.env(env, c));
    return env;
  }

  /**
   * What mpirun exports by name to every rank (sshd gives ranks it starts a fresh environment, so
   * only exported names arrive: trainer#3427; horovod docs/mpi.rst forwards PATH and
   * LD_LIBRARY_PATH): PATH, the user's env and secrets, the neutral names, and every env name the
   * runtime's JobSet template sets on a container. {@code LD_LIBRARY_PATH} and {@code NCCL_*} are
   * left out here: launch.sh forwards whichever of them are set in its container at run time
   * ({@link MpiFiles#launchScript}), since the image or the node may set them and the compiler
   * cannot know. With {@code checkpoint}, the contract's {@code CHECKPOINT_DIR}, {@code
   * TRAINYARD_ATTEMPT} and {@code RESUME_FROM} (which launch.sh exports before mpirun, {@link
   * CheckpointParts#SCRIPT}) too; Trainyard's other {@code TRAINYARD_*} names serve the scripts
   * only.
   */
  static List<String> forwarded(ResolvedJob job, EnvList env) {
    Set<String> names = new TreeSet<>(env.names());
    names.addAll(templateEnvNames(job.runtime().skeleton()));
    if (job.checkpoint().isPresent()) {
      names.addAll(CheckpointParts.FORWARDED);
    }
    List<String> out = new ArrayList<>(List.of("PATH"));
    names.stream()
        .filter(
            n ->
                (!n.startsWith("TRAINYARD_") || CheckpointParts.FORWARDED.contains(n))
                    && !n.equals("PATH")
                    && !MpiFiles.forwardedWhenSet(n))
        .forEach(out::add);
    return out;
  }

  /** Names of every {@code env} entry on the containers of the skeleton's replicated jobs. */
  static Set<String> templateEnvNames(ObjectNode skeleton) {
    Set<String> names = new TreeSet<>();
    for (JsonNode rjob : skeleton.path("spec").path("replicatedJobs")) {
      for (JsonNode container :
          rjob.path("template").path("spec").path("template").path("spec").path("containers")) {
        container.path("env").forEach(e -> names.add(e.path("name").asText()));
      }
    }
    names.remove("");
    return names;
  }

  private static ObjectNode nodeSpec(ResolvedJob job, PodSpecBuilder pods, EnvList env) {
    ObjectNode spec = pods.podSpec(env, List.of("/bin/bash", MpiFiles.DIR + "/node.sh"), true);
    MpiSettings mpi = job.runtime().mpi().orElseThrow();
    ObjectNode container = ((ObjectNode) spec.withArray("containers").get(0));
    container.putArray("ports").addObject().put("name", "ssh").put("containerPort", mpi.sshPort());
    container
        .putObject("readinessProbe")
        .put("periodSeconds", 2)
        .put("failureThreshold", 3)
        .putObject("tcpSocket")
        .put("port", mpi.sshPort());
    mountMpi(job, spec);
    job.checkpoint().ifPresent(c -> CheckpointParts.mount(spec, c));
    return spec;
  }

  private static ObjectNode launcherSpec(
      ResolvedJob job, PodSpecBuilder pods, EnvList shared, MpiFiles files) {
    MpiSettings mpi = job.runtime().mpi().orElseThrow();
    EnvList env = new EnvList().putAll(shared);
    launcherMpiEnv(env, job, files);
    MpirunOptions.putEnv(job, env);
    // A launcher that runs no ranks requests no GPU, so PodSpecBuilder hides the node's GPUs from
    // it
    // (NVIDIA_VISIBLE_DEVICES=void; mpi-operator#476, #628 blank it, which leaves some runtimes
    // showing all).
    ObjectNode spec =
        pods.podSpec(env, List.of("/bin/bash", MpiFiles.DIR + "/launch.sh"), mpi.launcherAsNode());
    mountMpi(job, spec);
    job.checkpoint().ifPresent(c -> CheckpointParts.mount(spec, c));
    return spec;
  }

  /**
   * The implementation's own variables. Open MPI gets both the ORTE (v4) and the PRTE (v5) names,
   * with PRTE's keep-FQDN off (trainer#4028, PR #4029). With {@code checkpoint}, Open MPI's {@code
   * odls_base_sigkill_timeout} is {@code saveSeconds}: on SIGTERM mpirun sends every rank SIGTERM
   * and SIGKILL that many seconds later (mpirun(1), "Signal Propagation"; {@code ompi_info --all}
   * of Open MPI 4.1: "Time to wait for a process to die after issuing a kill signal to it", default
   * 1), so a rank's save on SIGTERM gets its time, not one second. PRRTE (Open MPI 5) keeps the
   * framework's parameter name under its own prefix.
   */
  private static void launcherMpiEnv(EnvList env, ResolvedJob job, MpiFiles files) {
    String slots = Integer.toString(job.topology().procsPerNode());
    MpiSettings.MpiImplementation impl = job.runtime().mpi().orElseThrow().implementation();
    if (impl == MpiSettings.MpiImplementation.OPEN_MPI) {
      job.checkpoint()
          .map(c -> Integer.toString(c.saveSeconds()))
          .ifPresent(
              s ->
                  env.put("OMPI_MCA_odls_base_sigkill_timeout", s)
                      .put("PRTE_MCA_odls_base_sigkill_timeout", s));
    }
    switch (impl) {
      case OPEN_MPI ->
          env.put("OMPI_MCA_orte_default_hostfile", MpiFiles.HOSTFILE)
              .put("OMPI_MCA_orte_keep_fqdn_hostnames", "true")
              .put("OMPI_MCA_orte_set_default_slots", slots)
              .put("OMPI_MCA_plm_rsh_args", files.sshArgs())
              .put("PRTE_MCA_prte_default_hostfile", MpiFiles.HOSTFILE)
              .put("PRTE_MCA_prte_keep_fqdn_hostnames", "false")
              .put("PRTE_MCA_prte_set_default_slots", slots)
              .put("PRTE_MCA_plm_ssh_args", files.sshArgs());
      case INTEL ->
          env.put("I_MPI_HYDRA_HOST_FILE", MpiFiles.HOSTFILE)
              .put("I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", files.sshArgs())
              .put("I_MPI_PERHOST", slots);
      case MPICH ->
          env.put("HYDRA_HOST_FILE", MpiFiles.HOSTFILE)
              .put("HYDRA_LAUNCH_EXTRA_ARGS", files.sshArgs());
    }
  }

  /** The ConfigMap at /etc/mpi and the SSH key at ~/.ssh, with modes by uid. */
  private static void mountMpi(ResolvedJob job, ObjectNode spec) {
    String run = job.naming().runName();
    boolean root = job.runtime().user().isRoot();
    ArrayNode volumes = spec.withArray("volumes");
    ObjectNode cm = volumes.addObject().put("name", "mpi").putObject("configMap");
    cm.put("name", run + "-mpi").put("defaultMode", MODE_0444);
    ObjectNode secret = volumes.addObject().put("name", "ssh").putObject("secret");
    secret.put("secretName", run + "-ssh").put("defaultMode", MODE_0444);
    ArrayNode items = secret.putArray("items");
    items
        .addObject()
        .put("key", "ssh-privatekey")
        .put("path", MpiFiles.KEY_FILE)
        .put("mode", root ? MODE_0600 : MODE_0640);
    items
        .addObject()
        .put("key", "ssh-publickey")
        .put("path", MpiFiles.KEY_FILE + ".pub")
        .put("mode", MODE_0644);
    items
        .addObject()
        .put("key", "ssh-publickey")
        .put("path", "authorized_keys")
        .put("mode", MODE_0644);
    ArrayNode mounts = ((ObjectNode) spec.withArray("containers").get(0)).withArray("volumeMounts");
    mounts.addObject().put("name", "mpi").put("mountPath", MpiFiles.DIR).put("readOnly", true);
    mounts
        .addObject()
        .put("name", "ssh")
        .put("mountPath", job.runtime().user().home() + "/.ssh")
        .put("readOnly", true);
  }
}
