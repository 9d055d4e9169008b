package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.spec.SecretRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * User env must not set what Trainyard sets or what launchers set per process: torchrun's {@code PET_*}
 * and rank variables (Kubeflow Trainer rejects PET_* in user env), MPI's {@code OMPI_*}/{@code PRTE_*}
 * (trainer commit 85bbe58d0), JAX's coordinator variables, and the neutral names.
 */
final class EnvRules {
  /** Exact names Trainyard sets or launchers set per process. */
  static final Set<String> RESERVED =
      new TreeSet<>(Set.of(
          "NNODES", "NODE_RANK", "GPUS_PER_NODE", "MASTER_ADDR", "MASTER_PORT", "GIT_COMMIT", "GIT_REPO",
          "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "HOME", "HOSTFILE", "JOB_NAME",
          "JOB_COMPLETION_INDEX", "TRAINYARD_RUN", "TRAINYARD_SETUP"));
  /** Prefixes reserved as a whole. */
  static final List<String> RESERVED_PREFIXES = List.of("PET_", "OMPI_", "PRTE_", "PMIX_", "JAX_", "TRAINYARD_");

  private EnvRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    for (String name : job.command().env().keySet()) {
      if (isReserved(name)) {
        out.add(reserved(job, "/env/" + name, name));
      }
    }
    for (int i = 0; i < job.secrets().size(); i++) {
      SecretRef s = job.secrets().get(i);
      if (s.env().isPresent() && (isReserved(s.env().get()) || job.command().env().containsKey(s.env().get()))) {
        out.add(reserved(job, "/secrets/" + i + "/env", s.env().get()));
      }
    }
    return out;
  }

  static boolean isReserved(String name) {
    return RESERVED.contains(name) || RESERVED_PREFIXES.stream().anyMatch(name::startsWith);
  }

  private static Diagnostic reserved(ResolvedJob job, String pointer, String name) {
    return Diagnostic.error(DiagnosticCode.RESERVED_ENV, job.spec().document().map().keyAt(pointer), pointer,
            "environment variable `" + name + "` is reserved: Trainyard or the launcher sets it")
        .withHint("reserved names: " + String.join(", ", RESERVED) + ", and every name starting with "
            + String.join(", ", RESERVED_PREFIXES) + "; pick another name, or read the value Trainyard sets");
  }
}
