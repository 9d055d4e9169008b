package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Issue #19: every hint the lint gives a torch launch line, pasted back into train.yaml, compiles
 * clean and forms one world of 2 on 2 namespace hosts: real torch (scripts/python-envs) on the CPU
 * with gloo, each pod with exactly its compiled command and env. The family is what READMEs and
 * Slurm scripts write: a literal or random rendezvous, {@code --standalone}, a wrong node count or
 * rank, a host variable no pod sets, a positional default, {@code srun} with its Slurm-only
 * assignments, {@code python} without a launcher, a node address overwritten per pod ({@code
 * MASTER_ADDR=$(hostname)}), and the DeepSpeed launcher (local ranks only without a hostfile). The
 * script all-reduces its rank + 1, so only a world of 2 prints {@code sum 3}; a node training alone
 * prints {@code of 1}.
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
          "MASTER_ADDR=$(hostname); torchrun --nnodes 2 --nproc_per_node 1 --master_addr $MASTER_ADDR --master_port 29500 group.py",
          "deepspeed --num_gpus 1 --master_port=29501 group.py");

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
    Set<String> hinted =
        HintedRuns.hinted(TorchHostsIT.TORCH_ENV, FAMILY, TorchHintsHostsIT::files);
    List<String> failures =
        HintedRuns.failures(
            TorchHostsIT.TORCH_ENV,
            hinted,
            TorchHintsHostsIT::files,
            List.of("group rank 0 of 2 sum 3", "group rank 1 of 2 sum 3"));
    assertTrue(failures.isEmpty(), "hints that did not form one world of 2: " + failures);
    assertTrue(hinted.size() >= 4, "the family gives distinct hints: " + hinted);
  }
}
