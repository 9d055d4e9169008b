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
 * node 0's DNS name, {@code PET_MASTER_PORT} 29500. The same set for {@code nodes: 1}
 * (skypilot#3656).
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
    var node = layout.job(JobLayout.NODE).orElseThrow();
    var spec = pods.podSpec(env, RankEnv.command(job), true);
    ((ObjectNode) spec.withArray("containers").get(0))
        .putArray("ports")
        .addObject()
        .put("name", "c10d")
        .put("containerPort", 29500);
    return new FrameworkOutput(
        List.of(new ReplicatedJobPart(node, spec, Optional.empty())), List.of(), List.of());
  }
}
