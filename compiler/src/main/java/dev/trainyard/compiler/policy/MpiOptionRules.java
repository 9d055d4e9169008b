package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.runtime.MpiSettings;
import dev.trainyard.compiler.runtime.MpiSettings.MpiImplementation;
import dev.trainyard.compiler.source.SourceMap;
import dev.trainyard.compiler.spec.MpiOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * train.yaml's {@code mpi} field needs a runtime whose launcher runs Open MPI's {@code mpirun}, and
 * may not set the MCA parameters Trainyard sets itself (the hostfile, default slots, FQDN handling
 * and ssh arguments, in their ORTE and PRTE names: trainer#4028), which would send ranks to the
 * wrong hosts. A parameter in {@code mpi.mca} and as {@code OMPI_MCA_<name>} in {@code env} is set
 * twice (E429 at both).
 */
final class MpiOptionRules {
  /**
   * MCA parameters the launcher's env already sets (see render's MpiPlugin, Open MPI 4 and 5
   * names).
   */
  static final Set<String> SET_BY_TRAINYARD =
      Set.of(
          "orte_default_hostfile",
          "orte_keep_fqdn_hostnames",
          "orte_set_default_slots",
          "plm_rsh_args",
          "prte_default_hostfile",
          "prte_keep_fqdn_hostnames",
          "prte_set_default_slots",
          "plm_ssh_args");

  private MpiOptionRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    job.spec().mpi().ifPresent(mpi -> check(job, mpi, out));
    return out;
  }

  private static void check(ResolvedJob job, MpiOptions mpi, List<Diagnostic> out) {
    SourceMap map = job.spec().document().map();
    MpiImplementation impl = job.runtime().mpi().map(MpiSettings::implementation).orElse(null);
    if (!job.runtime().framework().usesMpi()) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.INVALID_MPI_SETTINGS,
                  map.keyAt("/mpi"),
                  "/mpi",
                  "`mpi` tunes mpirun, but runtime "
                      + job.runtime().name()
                      + " (framework "
                      + job.runtime().framework().id()
                      + ") starts no mpirun")
              .withHint("remove `mpi`, or pick an MPI runtime (mpi, deepspeed, mlx)"));
    } else if (impl != MpiImplementation.OPEN_MPI) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.INVALID_MPI_SETTINGS,
                  map.keyAt("/mpi"),
                  "/mpi",
                  "`mpi` holds Open MPI options, but runtime "
                      + job.runtime().name()
                      + " uses "
                      + impl.id()
                      + " MPI")
              .withHint(
                  "remove `mpi`, or pick a runtime with Open MPI; ask the platform team for "
                      + impl.id()
                      + " tuning in the runtime"));
    }
    for (String name : mpi.mca().keySet()) {
      String env = SourceMap.child("/env", "OMPI_MCA_" + name);
      if (job.command().env().containsKey("OMPI_MCA_" + name)) {
        // mpirun's --mca wins over the env variable, which would be silently unused.
        String pointer = SourceMap.child("/mpi/mca", name);
        out.add(twice(map, pointer, env, "MCA parameter `" + name + "`"));
        out.add(twice(map, env, pointer, "MCA parameter `" + name + "`"));
      }
      if (SET_BY_TRAINYARD.contains(name)) {
        String pointer = SourceMap.child("/mpi/mca", name);
        out.add(
            Diagnostic.error(
                    DiagnosticCode.INVALID_MPI_SETTINGS,
                    map.keyAt(pointer),
                    pointer,
                    "MCA parameter `"
                        + name
                        + "` is set by Trainyard: the launcher's hostfile, slots and ssh arguments depend on it")
                .withHint(
                    "remove it; Trainyard sets "
                        + String.join(", ", new TreeSet<>(SET_BY_TRAINYARD))));
      }
    }
  }

  private static Diagnostic twice(SourceMap map, String pointer, String other, String what) {
    return Diagnostic.error(
            DiagnosticCode.ENV_SET_TWICE,
            map.keyAt(pointer),
            pointer,
            what
                + " is set twice: here and at "
                + other
                + " (line "
                + map.keyAt(other).line()
                + "); mpirun would use only `mpi.mca`")
        .withHint("keep one of them, preferably `mpi.mca`");
  }
}
