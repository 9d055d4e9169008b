package dev.trainyard.compiler.render;

import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;
import java.util.Optional;

/**
 * One process per node with the neutral env only ({@code NNODES}, {@code NODE_RANK}, {@code
 * MASTER_ADDR}, …).
 */
final class PlainPlugin implements FrameworkPlugin {
  @Override
  public FrameworkOutput render(ResolvedJob job, JobLayout layout, RenderServices services) {
    PodSpecBuilder pods = new PodSpecBuilder(job);
    var node = layout.job(JobLayout.NODE).orElseThrow();
    var spec = pods.podSpec(RankEnv.neutral(job, pods), RankEnv.command(job), true);
    return new FrameworkOutput(
        List.of(new ReplicatedJobPart(node, spec, Optional.empty())), List.of(), List.of());
  }
}
