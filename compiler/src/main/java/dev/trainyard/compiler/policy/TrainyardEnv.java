package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.runtime.Framework;
import dev.trainyard.compiler.runtime.MpiSettings;
import dev.trainyard.compiler.runtime.MpiSettings.MpiImplementation;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The exact environment names a job's processes get from Trainyard, Kubernetes and the launcher,
 * per framework: what {@code render}'s plugins set (the neutral names, torchrun's {@code PET_*},
 * JAX's three names, an MPI implementation's own variables), what Kubernetes sets in an Indexed Job
 * ({@code JOB_COMPLETION_INDEX}), and what a launcher sets per process (torchrun's {@code RANK},
 * {@code WORLD_SIZE}, …; mpirun's {@code OMPI_COMM_WORLD_*}). Exact names, not prefixes: a script's
 * own {@code JAX_COORDINATOR_PORT} or {@code PET_MAX_RESTARTS} is the user's to set. {@code
 * TRAINYARD_*} stays reserved as a whole: it is this product's own namespace.
 *
 * <p>{@code TrainyardEnvTest} compiles every built-in runtime and checks this table against the env
 * the JobSet really carries, so the two cannot drift apart.
 */
final class TrainyardEnv {
  /** Trainyard's own prefix, reserved as a whole. */
  static final String OWN_PREFIX = "TRAINYARD_";

  private static final List<String> EVERY_POD =
      List.of(
          "GIT_COMMIT",
          "GIT_REPO",
          "HOME",
          "JOB_COMPLETION_INDEX",
          "MASTER_ADDR",
          "MASTER_PORT",
          "NNODES",
          "GPUS_PER_NODE",
          "TRAINYARD_RUN",
          "TRAINYARD_SETUP");

  /** Set per process by torchrun, accelerate and deepspeed; never at pod level (skypilot#3656). */
  private static final List<String> PER_PROCESS =
      List.of("LOCAL_RANK", "LOCAL_WORLD_SIZE", "RANK", "WORLD_SIZE");

  private static final List<String> TORCH =
      List.of(
          "NODE_RANK",
          "PET_MASTER_ADDR",
          "PET_MASTER_PORT",
          "PET_NNODES",
          "PET_NODE_RANK",
          "PET_NPROC_PER_NODE",
          "PET_RDZV_ENDPOINT");
  private static final List<String> JAX =
      List.of("NODE_RANK", "JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID");

  /** mpirun sets these in every rank (Open MPI "mpirun(1)", ENVIRONMENT VARIABLES). */
  private static final List<String> MPI_RANK =
      List.of(
          "HOSTFILE",
          "OMPI_COMM_WORLD_LOCAL_RANK",
          "OMPI_COMM_WORLD_LOCAL_SIZE",
          "OMPI_COMM_WORLD_NODE_RANK",
          "OMPI_COMM_WORLD_RANK",
          "OMPI_COMM_WORLD_SIZE",
          "OMPI_UNIVERSE_SIZE",
          "PMIX_RANK");

  private static final List<String> OPEN_MPI =
      List.of(
          "OMPI_MCA_orte_default_hostfile",
          "OMPI_MCA_orte_keep_fqdn_hostnames",
          "OMPI_MCA_orte_set_default_slots",
          "OMPI_MCA_plm_rsh_args",
          "PRTE_MCA_plm_ssh_args",
          "PRTE_MCA_prte_default_hostfile",
          "PRTE_MCA_prte_keep_fqdn_hostnames",
          "PRTE_MCA_prte_set_default_slots");
  private static final List<String> INTEL =
      List.of("I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS", "I_MPI_HYDRA_HOST_FILE", "I_MPI_PERHOST");
  private static final List<String> MPICH = List.of("HYDRA_HOST_FILE", "HYDRA_LAUNCH_EXTRA_ARGS");

  /**
   * {@code void} on every pod that requests no GPU (a CUDA image would otherwise show it all of the
   * node's GPUs); reserved on GPU pods too, where a user's value would hide the GPUs the pod was
   * given.
   */
  private static final String GPU_VISIBILITY = "NVIDIA_VISIBLE_DEVICES";

  /**
   * What a run with {@code checkpoint} gets besides {@code TRAINYARD_ATTEMPT}
   * (docs/checkpoints.md).
   */
  private static final List<String> CHECKPOINT = List.of("CHECKPOINT_DIR", "RESUME_FROM");

  private TrainyardEnv() {}

  /**
   * Every name {@code job}'s processes get without the user asking, sorted; with platform.yaml's
   * {@code progressPush} also Kubeflow's progress-push names.
   */
  static Set<String> names(ResolvedJob job) {
    Set<String> names = names(job.runtime().framework(), job.runtime().mpi());
    if (job.platform().progressPush().enabled()) {
      names.addAll(Platform.ProgressPush.ENV_NAMES);
    }
    if (job.checkpoint().isPresent()) {
      names.addAll(CHECKPOINT);
    }
    return names;
  }

  /**
   * Every name a runtime of {@code framework} (with {@code mpi} settings for MPI frameworks) sets,
   * sorted.
   */
  static Set<String> names(Framework framework, Optional<MpiSettings> mpi) {
    Set<String> names = new TreeSet<>(EVERY_POD);
    names.addAll(PER_PROCESS);
    names.add(GPU_VISIBILITY);
    switch (framework) {
      case TORCH -> names.addAll(TORCH);
      case JAX -> names.addAll(JAX);
      case PLAIN -> names.add("NODE_RANK");
      case MPI, DEEPSPEED, MLX -> names.addAll(mpiNames(mpi));
    }
    return names;
  }

  /**
   * The names a shell running {@code run} sees: for torch, JAX and plain runtimes {@code run}
   * starts at pod level, before any launcher set its per-process names; under MPI it runs in every
   * rank.
   */
  static Set<String> seenByRun(ResolvedJob job) {
    Set<String> names = names(job);
    if (!job.runtime().framework().usesMpi()) {
      PER_PROCESS.forEach(names::remove);
    }
    return names;
  }

  /** Whether {@code name} is one Trainyard sets for {@code job} (or in Trainyard's own prefix). */
  static boolean isReserved(ResolvedJob job, String name) {
    return name.startsWith(OWN_PREFIX) || names(job).contains(name);
  }

  private static Set<String> mpiNames(Optional<MpiSettings> mpi) {
    Set<String> names = new TreeSet<>(MPI_RANK);
    MpiImplementation impl =
        mpi.map(MpiSettings::implementation).orElse(MpiImplementation.OPEN_MPI);
    names.addAll(
        switch (impl) {
          case OPEN_MPI -> OPEN_MPI;
          case INTEL -> INTEL;
          case MPICH -> MPICH;
        });
    return names;
  }
}
