package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue #19: every hint the lint gives a torchtune launch line ({@code tune run}), pasted back into
 * train.yaml, compiles clean and forms one world of 2 on 2 namespace hosts with the real torchtune
 * CLI (torchtune 0.6.1 over torch 2.13 CPU, scripts/python-envs). {@code tune run} wraps torchrun
 * but runs standalone whenever no {@code --rdzv_endpoint} is given (torchtune {@code _cli/run.py},
 * {@code _run_distributed}), and runs a single process without torchrun when no torchrun flag is
 * given; each line here hangs or trains alone as written. The recipe is a custom one ({@code
 * group.py}, which tune runs as {@code python -m group --config c.yaml}): it all-reduces its rank +
 * 1, so only a world of 2 prints {@code sum 3}.
 */
class TuneHintsHostsIT {
  static final String TUNE_ENV = "torchtune-0.6.1-torch-2.13.0";

  /** Lines of the torchtune family, each wrong for a 2-node run of 1 process per node. */
  static final List<String> FAMILY =
      List.of(
          "tune run group.py --config c.yaml",
          "tune run --nnodes 2 --nproc_per_node 1 group.py --config c.yaml",
          "tune run --standalone --nnodes 2 --nproc_per_node 1 group.py --config c.yaml",
          "tune run --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d --rdzv_endpoint localhost:29500 group.py --config c.yaml",
          "srun tune run --nnodes $SLURM_NNODES --nproc_per_node 1 group.py --config c.yaml");

  private static Map<String, String> files(String run) {
    return Map.of(
        "group.py",
        TorchHostsIT.GROUP,
        "c.yaml",
        "# a custom recipe's config: group.py reads none of it\nseed: 1\n",
        "train.yaml",
        "nodes: 2\nprocsPerNode: 1\nrun: '" + run.replace("'", "''") + "'\n");
  }

  @Test
  @DisplayName(
      "issue #19: each hint the lint gives a tune run line on 2 CPU nodes compiles clean and trains as one world of 2 under the real torchtune CLI (all_reduce 1+2 = 3)")
  void everyTuneHintFormsTheWorld() throws Exception {
    Set<String> hinted = HintedRuns.hinted(TUNE_ENV, FAMILY, TuneHintsHostsIT::files);
    List<String> failures =
        HintedRuns.failures(
            TUNE_ENV,
            hinted,
            TuneHintsHostsIT::files,
            List.of("Running with torchrun", "group rank 0 of 2 sum 3", "group rank 1 of 2 sum 3"));
    System.out.println("tune run hints trained as one world of 2: " + hinted);
    assertTrue(failures.isEmpty(), "hints that did not form one world of 2: " + failures);
    // tune run's hint names the whole group from the pods' variables, so every line gets the same.
    assertEquals(
        Set.of(
            "tune run --nnodes $PET_NNODES --nproc_per_node $PET_NPROC_PER_NODE --rdzv_backend c10d"
                + " --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT group.py --config c.yaml"),
        hinted);
  }
}
