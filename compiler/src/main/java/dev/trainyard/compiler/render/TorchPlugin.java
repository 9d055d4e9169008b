package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;
import java.util.Optional;

/**
 * torchrun on every node. torchrun reads {@code PET_<FLAG>} as defaults for its flags (torch {@code
 * distributed/run.py}), so {@code torchrun train.py} works unmodified: {@code PET_NNODES}, {@code
 * PET_NPROC_PER_NODE} (a number from the merged resources, never {@code auto} without GPUs:
 * trainer#2407, #3974), {@code PET_NODE_RANK} from the completion index, {@code PET_MASTER_ADDR}
 * node 0's DNS name, {@code PET_MASTER_PORT} 29500, and {@code PET_RDZV_ENDPOINT} node 0's name and
 * that port. The same set for {@code nodes: 1} (skypilot#3656).
 *
 * <p>Why {@code PET_RDZV_ENDPOINT}: torch's {@code get_rdzv_endpoint} uses {@code
 * master_addr:master_port} only for the {@code static} backend; with {@code --rdzv_backend c10d}
 * and no {@code --rdzv_endpoint} the endpoint is empty and c10d meets at {@code localhost:29400}
 * (torch {@code elastic/rendezvous/c10d_rendezvous_backend.py}, default port 29400), so every node
 * waits alone. With it, a README's {@code torchrun --rdzv_backend=c10d train.py} and the lint's
 * hints that keep c10d form the run's group unchanged; node 0 hosts the store because its own name
 * resolves to its address (torch {@code _matches_machine_hostname}). For {@code static} it is the
 * same address as {@code PET_MASTER_ADDR:PET_MASTER_PORT}; a {@code --rdzv_endpoint} on the command
 * line still wins.
 */
final class TorchPlugin implements FrameworkPlugin {
  @Override
  public FrameworkOutput render(ResolvedJob job, JobLayout layout, RenderServices services) {
    PodSpecBuilder pods = new PodSpecBuilder(job);
    EnvList env = RankEnv.neutral(job, pods);
    env.put("PET_NNODES", Integer.toString(job.topology().nodes()));
    env.put("PET_NPROC_PER_NODE", Integer.toString(job.topology().procsPerNode()));
    env.putFieldRef("PET_NODE_RANK", EnvList.COMPLETION_INDEX);
    env.put("PET_MASTER_ADDR", RankEnv.masterAddr(job));
    env.put("PET_MASTER_PORT", RankEnv.MASTER_PORT);
    env.put("PET_RDZV_ENDPOINT", RankEnv.masterAddr(job) + ":" + RankEnv.MASTER_PORT);
    var node = layout.job(JobLayout.NODE).orElseThrow();
    var spec = RankEnv.podSpec(job, pods, env);
    ((ObjectNode) spec.withArray("containers").get(0))
        .withArray("ports")
        .insertObject(0)
        .put("name", "c10d")
        .put("containerPort", 29500);
    return new FrameworkOutput(
        List.of(new ReplicatedJobPart(node, spec, Optional.empty())), List.of(), List.of());
  }
}
