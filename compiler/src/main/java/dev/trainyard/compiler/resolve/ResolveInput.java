package dev.trainyard.compiler.resolve;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.provenance.SourceInfo;
import dev.trainyard.compiler.runtime.RuntimeCatalog;
import dev.trainyard.compiler.spec.TrainSpec;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the resolve stage reads: the user's spec, the platform's runtimes and settings, and
 * facts gathered at the edge (git, the file system).
 *
 * @param spec the bound train.yaml
 * @param catalog installed runtimes
 * @param platform platform.yaml or the embedded default
 * @param source repo URL, commit and train.yaml path
 * @param cluster {@code --target-cluster}, else the platform's first cluster
 * @param namespace {@code --namespace}, else the first namespace of the cluster that allows the
 *     source repo
 * @param attempt re-run counter, 1 for the first run of a commit (part of the run id)
 * @param requirementsTxt whether {@code requirements.txt} exists in the working directory (default
 *     setup)
 * @param stamp compiler version and submit time, stamped into provenance
 * @param checkpointKey what keys the job's checkpoints besides its name and source: the source
 *     branch (or "") and whether this run starts over ({@code --fresh})
 */
public record ResolveInput(
    TrainSpec spec,
    RuntimeCatalog catalog,
    Platform platform,
    SourceInfo source,
    Optional<String> cluster,
    Optional<String> namespace,
    int attempt,
    boolean requirementsTxt,
    Stamp stamp,
    CheckpointKeyInput checkpointKey) {
  public ResolveInput {
    Objects.requireNonNull(spec, "spec");
    Objects.requireNonNull(catalog, "catalog");
    Objects.requireNonNull(platform, "platform");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(checkpointKey, "checkpointKey");
  }

  /**
   * @param branch the source branch, or "" when not known
   * @param fresh whether the run starts over instead of resuming ({@code --fresh})
   */
  public record CheckpointKeyInput(String branch, boolean fresh) {
    /** No branch, resuming. */
    public static final CheckpointKeyInput DEFAULT = new CheckpointKeyInput("", false);
  }
}
