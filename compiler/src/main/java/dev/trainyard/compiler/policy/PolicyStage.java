package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.ArrayList;
import java.util.List;

/**
 * Stage 4: the cross-field rules that decide whether a resolved job may run, each reported at the
 * user's line: names and the JobSet name budget, reserved and twice-set environment variables, what
 * the queue covers, GPU types, mount paths, processes per node, the secrets policy, what Kueue
 * admits (PodSets, priority classes), the {@code mpi} options, and the {@code run} line against the
 * compiled topology.
 */
public final class PolicyStage {

  /**
   * Checks {@code job}, reading the scripts {@code run} names through {@code scripts} (the {@code
   * run} lint tells a script that joins its process group from one that trains alone); the value is
   * the same job when no rule failed.
   */
  public StageResult<ResolvedJob> check(ResolvedJob job, RunScripts scripts) {
    List<Diagnostic> found = new ArrayList<>();
    found.addAll(NameRules.check(job));
    found.addAll(EnvRules.check(job));
    found.addAll(EnvCredentials.check(job));
    found.addAll(ResourceRules.check(job));
    found.addAll(MountRules.check(job));
    found.addAll(CheckpointRules.check(job));
    found.addAll(RecoverCodeRules.check(job));
    found.addAll(TopologyRules.check(job));
    found.addAll(KueueRules.check(job));
    found.addAll(MpiOptionRules.check(job));
    found.addAll(RunLint.check(job, scripts));
    return StageResult.of(job, found);
  }
}
