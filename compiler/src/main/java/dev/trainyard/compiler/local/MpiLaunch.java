package dev.trainyard.compiler.local;

import dev.trainyard.compiler.render.SetupLine;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The launcher of an MPI runtime ({@code mpi}, {@code deepspeed}, {@code mlx}) for {@code run
 * --local}: the compiled {@code launch.sh}'s own {@code mpirun} line and its {@code forward} block,
 * with the hostfile, {@code -np} and working directory made this machine's, so every rank starts
 * here (Open MPI and MPICH/Intel MPI start the ranks of a {@code localhost} line without ssh). Each
 * rank first appends {@code mpi rank=R world=W pid=P} to {@code $TRAINYARD_LOCAL_PROBE}, R and W as
 * the launcher set them for it ({@code OMPI_COMM_WORLD_RANK}/{@code _SIZE} of Open MPI, {@code
 * PMI_RANK}/{@code PMI_SIZE} of MPICH and Intel MPI), then runs {@code run} as the pod's rank does
 * ({@code /bin/bash -eo pipefail -c "$TRAINYARD_RUN"}). Pure: text in, text out.
 *
 * <pre>{@code
 * compiled: mpirun --hostfile /etc/mpi/hostfile -np 4 --wdir /workspace/src/jobs/a -x PATH ... \
 *               /bin/bash -eo pipefail -c "$TRAINYARD_RUN" &
 * local:    exec mpirun --hostfile "$TRAINYARD_LOCAL_HOSTFILE" -np 4 --wdir "$PWD" -x PATH ... \
 *               /bin/bash -c 'echo "mpi rank=... >>"$TRAINYARD_LOCAL_PROBE"; exec /bin/bash -eo ...'
 * hostfile: localhost slots=4
 * }</pre>
 *
 * @param script the launcher process's bash script: setup, the {@code forward} block, {@code exec
 *     mpirun …}
 * @param hostfile the local hostfile's text: one {@code localhost} line with every slot
 * @param compiledHostfile the hostfile path the pods use, e.g. {@code /etc/mpi/hostfile}; env
 *     values naming it ({@code HOSTFILE}, {@code OMPI_MCA_orte_default_hostfile}) name the local
 *     one instead
 * @param world the ranks mpirun starts: nodes × slots after {@code --nodes}/{@code --procs}
 */
public record MpiLaunch(String script, String hostfile, String compiledHostfile, int world) {

  /** What each rank runs: the probe line, then the pod's rank command. */
  static final String RANK =
      "/bin/bash -c 'echo \"mpi rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}"
          + " world=${OMPI_COMM_WORLD_SIZE:-${PMI_SIZE:-1}} pid=$$\" >>\"$TRAINYARD_LOCAL_PROBE\";"
          + " exec /bin/bash -eo pipefail -c \"$TRAINYARD_RUN\"'";

  private static final Pattern HOSTFILE = Pattern.compile("(--hostfile|-f) (\\S+)");
  private static final Pattern NP = Pattern.compile("-np \\d+");
  private static final Pattern WDIR = Pattern.compile("(--wdir|-wdir) ('(?:[^']|'\\\\'')*'|\\S+)");
  private static final String COMPILED_RANK = "/bin/bash -eo pipefail -c \"$TRAINYARD_RUN\"";
  private static final Pattern SLOTS = Pattern.compile("^\\S+?(?: slots=|:)(\\d+)\\s*$");

  /** The launch, or why the compiled files do not have the shape it knows (one sentence). */
  record Result(Optional<MpiLaunch> launch, Optional<String> problem) {}

  /**
   * @param launchSh the compiled ConfigMap's {@code launch.sh}
   * @param compiledHostfileText its {@code hostfile} (its first line gives the slots per node)
   * @param nodes the nodes to stand for (the compiled count or fewer, {@code --nodes})
   * @param procs slots per node to use instead of the compiled ones ({@code --procs}); 0 keeps
   *     them; more than the compiled slots is a problem (it may only scale down)
   */
  static Result of(String launchSh, String compiledHostfileText, int nodes, int procs) {
    Matcher slots = SLOTS.matcher(compiledHostfileText.lines().findFirst().orElse(""));
    Optional<String> mpirun =
        launchSh.lines().map(String::strip).filter(l -> l.startsWith("mpirun ")).findFirst();
    if (!slots.matches() || mpirun.isEmpty()) {
      return problem("the compiled launch.sh or hostfile has no mpirun line or slots");
    }
    int compiledSlots = Integer.parseInt(slots.group(1));
    if (procs > compiledSlots) {
      return problem(LocalPlanner.tooManyProcs(procs, compiledSlots));
    }
    int perNode = procs > 0 ? procs : compiledSlots;
    int world = nodes * perNode;
    String line = mpirun.get();
    Matcher hostfile = HOSTFILE.matcher(line);
    if (!hostfile.find()
        || !NP.matcher(line).find()
        || !WDIR.matcher(line).find()
        || !line.endsWith(COMPILED_RANK + " &")) {
      return problem("the compiled mpirun line is not in the form run --local knows: " + line);
    }
    String local =
        line.substring(0, line.length() - (COMPILED_RANK + " &").length())
            .replace(hostfile.group(), hostfile.group(1) + " \"$TRAINYARD_LOCAL_HOSTFILE\"");
    local = NP.matcher(local).replaceFirst("-np " + world);
    local = WDIR.matcher(local).replaceFirst("$1 \"\\$PWD\"");
    String script =
        SetupLine.TEXT
            + "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1\n"
            + String.join("\n", forwardBlock(launchSh))
            + "\nexec "
            + local
            + RANK
            + "\n";
    return new Result(
        Optional.of(
            new MpiLaunch(script, "localhost slots=" + world + "\n", hostfile.group(2), world)),
        Optional.empty());
  }

  /**
   * The lines from {@code forward=()} to the {@code done} that ends its loop (the variables set at
   * run time that mpirun forwards), as compiled; none when launch.sh has no such block.
   */
  static List<String> forwardBlock(String launchSh) {
    List<String> block = new ArrayList<>();
    boolean in = false;
    for (String line : launchSh.lines().toList()) {
      in = in || line.startsWith("forward=()");
      if (in) {
        block.add(line);
        if (line.startsWith("done")) {
          return block;
        }
      }
    }
    return List.of("forward=()");
  }

  private static Result problem(String text) {
    return new Result(Optional.empty(), Optional.of(text));
  }
}
