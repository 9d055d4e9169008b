package dev.trainyard.compiler.local;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the processes of a local run formed the world train.yaml promises. The evidence is what
 * the libraries themselves report after their own set-up, one line per process, written by the
 * probe {@code run --local} puts on {@code PYTHONPATH} ({@code sitecustomize.py}): {@code torch
 * rank=1 world=2 pid=4711} after {@code torch.distributed.init_process_group}, {@code jax rank=0
 * world=2 pid=…} after {@code jax.distributed.initialize}; under an MPI runtime each rank's launch
 * wrapper writes {@code mpi rank=3 world=4 pid=…} with the rank and size mpirun gave it ({@link
 * MpiLaunch}). torch's or JAX's lines win over MPI's when a process wrote both.
 *
 * <pre>{@code
 * WorldCheck.Verdict v = WorldCheck.check(2, Map.of("node-0", lines0, "node-1", lines1));
 * v.line(); // "world check: 2 of 2 ranks formed one torch world (ranks 0-1)"
 * }</pre>
 */
public final class WorldCheck {
  private static final Pattern LINE =
      Pattern.compile("^(torch|jax|mpi) rank=(\\d+) world=(\\d+) pid=\\d+$");

  private WorldCheck() {}

  /** The outcome, worst first. */
  public enum Outcome {
    /** A rank's world is smaller than promised: it trained alone or in a smaller group. */
    ALONE,
    /** Ranks repeat or are missing: the processes did not form one world. */
    SPLIT,
    /** No process reported a world (no torch.distributed or jax.distributed set-up was seen). */
    NOT_CHECKED,
    /** Every promised rank joined one world of the promised size. */
    FORMED
  }

  /**
   * @param outcome what was seen
   * @param worldSeen the largest world size a process reported, empty when none reported
   * @param line one sentence for the user, starting {@code world check:}
   */
  public record Verdict(Outcome outcome, Optional<Integer> worldSeen, String line) {
    /** Whether the run must not count as a success (a world other than the promised one). */
    public boolean wrong() {
      return outcome == Outcome.ALONE || outcome == Outcome.SPLIT;
    }
  }

  /**
   * @param expected the world size train.yaml promises (nodes × processes per node)
   * @param probes the probe lines of each node, by node name; lines not in the probe's format are
   *     ignored
   */
  public static Verdict check(int expected, Map<String, List<String>> probes) {
    String only = library(probes);
    List<String> alone = new ArrayList<>();
    List<Integer> ranks = new ArrayList<>();
    int largest = 0;
    String library = "";
    for (Map.Entry<String, List<String>> node : new TreeMap<>(probes).entrySet()) {
      for (String line : node.getValue()) {
        Matcher m = LINE.matcher(line.strip());
        if (!m.matches() || !m.group(1).equals(only)) {
          continue;
        }
        library = m.group(1);
        int rank = Integer.parseInt(m.group(2));
        int world = Integer.parseInt(m.group(3));
        largest = Math.max(largest, world);
        ranks.add(rank);
        if (world < expected) {
          alone.add(node.getKey() + " (rank " + rank + " of " + world + ")");
        }
      }
    }
    return verdict(expected, library, largest, ranks, alone);
  }

  /**
   * The library whose lines count: torch's or JAX's when a process reported one (a program under
   * mpirun that sets up torch.distributed, as DeepSpeed does, reports both), else MPI's (the line
   * each rank's launch wrapper writes).
   */
  private static String library(Map<String, List<String>> probes) {
    String found = "";
    for (List<String> lines : probes.values()) {
      for (String line : lines) {
        Matcher m = LINE.matcher(line.strip());
        if (m.matches() && (found.isEmpty() || found.equals("mpi"))) {
          found = m.group(1);
        }
      }
    }
    return found;
  }

  private static Verdict verdict(
      int expected, String library, int largest, List<Integer> ranks, List<String> alone) {
    if (ranks.isEmpty()) {
      return new Verdict(
          Outcome.NOT_CHECKED,
          Optional.empty(),
          "world check: not checked (no process set up torch.distributed or jax.distributed)");
    }
    if (!alone.isEmpty()) {
      String who = String.join(", ", alone);
      return new Verdict(
          Outcome.ALONE,
          Optional.of(largest),
          "world check: FAILED: train.yaml promises a world of "
              + expected
              + ", but "
              + who
              + (largest == 1 ? " trained alone" : " joined a smaller world")
              + "; launch with torchrun (it reads PET_*) or pass the world from the environment");
    }
    SortedSet<Integer> distinct = new TreeSet<>(ranks);
    if (distinct.size() != expected || ranks.size() != expected) {
      return new Verdict(
          Outcome.SPLIT,
          Optional.of(largest),
          "world check: FAILED: "
              + ranks.size()
              + " process(es) reported ranks "
              + distinct
              + " of a "
              + library
              + " world of "
              + largest
              + "; expected each of the "
              + expected
              + " ranks once");
    }
    return new Verdict(
        Outcome.FORMED,
        Optional.of(largest),
        "world check: "
            + expected
            + " of "
            + expected
            + " ranks formed one "
            + library
            + " world (ranks 0-"
            + (expected - 1)
            + ")");
  }
}
