package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue #19: every hint the lint gives a torch launch line, pasted back into train.yaml, compiles
 * clean and forms one world of 2 on 2 namespace hosts: real torch (scripts/python-envs) on the CPU
 * with gloo, each pod with exactly its compiled command and env. The family is what READMEs and
 * Slurm scripts write: a literal or random rendezvous, {@code --standalone}, a wrong node count or
 * rank, a host variable no pod sets, a positional default, {@code srun} with its Slurm-only
 * assignments, {@code python} without a launcher, and a node address overwritten per pod ({@code
 * MASTER_ADDR=$(hostname)}). The script all-reduces its rank + 1, so only a world of 2 prints
 * {@code sum 3}; a node training alone prints {@code of 1}.
 */
class TorchHintsHostsIT {

  /** Lines of the torch family, each wrong for a 2-node run of 1 process per node. */
  static final List<String> FAMILY =
      List.of(
          "torchrun --nnodes 1 --node_rank 0 --master_addr 10.0.0.1 --nproc_per_node 1 group.py",
          "torchrun --standalone --nproc_per_node 1 group.py",
          "torchrun --nnodes 2 --nproc_per_node 1 --rdzv_id $RANDOM --rdzv_backend c10d --rdzv_endpoint $HEAD_IP:29500 group.py",
          "torchrun --nnodes 2 --nproc_per_node ${2:-4} group.py",
          "srun torchrun --nnodes $SLURM_NNODES --node_rank $SLURM_NODEID --nproc_per_node 1 --master_addr $head_node_ip --master_port 29500 group.py",
          "nodes=( $( scontrol show hostnames $SLURM_JOB_NODELIST ) ); head_node=${nodes[0]}; "
              + "head_node_ip=$(srun --nodes=1 --ntasks=1 -w \"$head_node\" hostname --ip-address); "
              + "srun torchrun --nnodes 2 --nproc_per_node 1 --rdzv_id $RANDOM --rdzv_backend c10d"
              + " --rdzv_endpoint $head_node_ip:29500 group.py",
          "srun -N 2 --ntasks-per-node=1 python -u alone.py",
          "MASTER_ADDR=$(hostname); torchrun --nnodes 2 --nproc_per_node 1 --master_addr $MASTER_ADDR --master_port 29500 group.py");

  private static final Pattern RUN = Pattern.compile("`run: ([^`\"]*)`");

  private static Map<String, String> files(String run) {
    return Map.of(
        "group.py",
        TorchHostsIT.GROUP,
        "alone.py",
        "import group\n",
        "train.yaml",
        "nodes: 2\nprocsPerNode: 1\nrun: '" + run.replace("'", "''") + "'\n");
  }

  @Test
  @DisplayName(
      "issue #19: each hint the lint gives a torch or Slurm launch line on 2 CPU nodes compiles clean and trains as one world of 2 (all_reduce 1+2 = 3)")
  void everyTorchHintFormsTheWorld() throws Exception {
    Set<String> hinted = new LinkedHashSet<>();
    try (PythonHosts lint = PythonHosts.open(TorchHostsIT.TORCH_ENV, "torch-lint")) {
      int i = 0;
      for (String line : FAMILY) {
        List<Diagnostic> found =
            CompiledProject.diagnose(lint.work().resolve("lint-" + i++), "t", files(line)).stream()
                .filter(d -> d.pointer().equals("/run"))
                .toList();
        assertFalse(found.isEmpty(), "the lint must refuse: " + line);
        Set<String> own = new LinkedHashSet<>();
        for (Diagnostic d : found) {
          Matcher m = RUN.matcher(d.hint());
          assertTrue(m.find(), "a hint with a run line: " + d);
          own.add(m.group(1));
        }
        assertEquals(1, own.size(), "every hint of `" + line + "` gives one command: " + found);
        hinted.addAll(own);
      }
    }
    List<String> failures = new ArrayList<>();
    for (String run : hinted) {
      String all = "";
      // Each hinted run on hosts of its own, closed before the next starts.
      try (PythonHosts one = PythonHosts.open(TorchHostsIT.TORCH_ENV, "torch-hint")) {
        CompiledProject project =
            CompiledProject.compile(one.work().resolve("repo"), "t", files(run), Optional.empty());
        for (RunningPod pod : one.start(project, "node")) {
          assertEquals(0, pod.requireExit(PythonHosts.TRAIN_TIMEOUT), run + "\n" + pod.output());
          all += pod.output();
        }
      }
      if (!all.contains("group rank 0 of 2 sum 3") || !all.contains("group rank 1 of 2 sum 3")) {
        failures.add(run + "\n" + all);
      }
    }
    assertTrue(failures.isEmpty(), "hints that did not form one world of 2: " + failures);
    assertTrue(hinted.size() >= 4, "the family gives distinct hints: " + hinted);
  }
}
