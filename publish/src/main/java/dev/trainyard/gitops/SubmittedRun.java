package dev.trainyard.gitops;

import dev.trainyard.compiler.resolve.ResolvedJob;

/**
 * One train.yaml's run in a submit.
 *
 * @param folder where the run lives in the GitOps tree
 * @param trainYaml the train.yaml as the user named it
 * @param outcome what the submit did with it
 * @param job the resolved job (runtime, topology, queue, source) for summaries
 */
public record SubmittedRun(RunFolder folder, String trainYaml, Outcome outcome, ResolvedJob job) {
  /** What happened to a run. */
  public enum Outcome {
    /** Written in this commit: Flux or Argo CD will start it. */
    NEW,
    /**
     * The GitOps repo already holds this run (same source commit, train.yaml and attempt): nothing
     * changed.
     */
    EXISTS,
    /** This run already ran and was pruned: not started again (use {@code --rerun}). */
    PRUNED
  }
}
