package dev.trainyard.compiler.resolve;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A run's checkpoint volume and contract with every default filled in.
 *
 * <p>The volume is keyed by the job, not the run: {@link #key} ({@code <job>-<6 hex>}, the hex over
 * the namespace, the source repo, the train.yaml path and the source branch) names the claim that
 * every run of the job on that branch mounts, so a restart, a re-submit and a resize find the same
 * checkpoints. Each run writes below its own folder ({@link #dir}, {@code <path>/<run id>}); a run
 * resumes from the newest complete checkpoint of any run of the job, or, started with {@code
 * --fresh}, only from its own.
 *
 * @param key the checkpoint key; also the claim's name when {@link #ownClaim}
 * @param claim the PersistentVolumeClaim mounted: {@link #key} or the namespace's shared claim
 * @param ownClaim whether this compile writes the claim (into the GitOps repo, {@code
 *     _checkpoint-<key>}); false for the namespace's existing claim, mounted with {@code subPath}
 *     {@link #key}
 * @param storageClass StorageClass of an own claim; empty: the cluster's default
 * @param size quantity text of an own claim, "" for a shared one
 * @param accessMode the claim's access mode
 * @param path the mount path ({@code /checkpoints})
 * @param dir {@code CHECKPOINT_DIR}: {@code <path>/<run id>}
 * @param fresh whether the run starts over ({@code --fresh}): {@code RESUME_FROM} is then looked
 *     for only in {@link #dir}
 * @param keep complete checkpoints kept
 * @param saveSeconds seconds a save on SIGTERM may take
 * @param recoverOnExitCodes sorted exit codes (1–255) that restart the run instead of failing it
 * @param sameNode whether the platform says every pod of a run lands on one node, so a {@code
 *     ReadWriteOnce} volume serves every node of the run
 */
public record ResolvedCheckpoint(
    String key,
    String claim,
    boolean ownClaim,
    Optional<String> storageClass,
    String size,
    String accessMode,
    String path,
    String dir,
    boolean fresh,
    int keep,
    int saveSeconds,
    List<Integer> recoverOnExitCodes,
    boolean sameNode) {

  /** Default mount path. */
  public static final String DEFAULT_PATH = "/checkpoints";

  /** Default number of complete checkpoints kept. */
  public static final int DEFAULT_KEEP = 3;

  /** Default seconds a save may take. */
  public static final int DEFAULT_SAVE_SECONDS = 60;

  /** The file whose presence makes a checkpoint folder complete (written last, after the save). */
  public static final String COMPLETE_MARKER = "COMPLETE";

  public ResolvedCheckpoint {
    Objects.requireNonNull(key, "key");
    recoverOnExitCodes = List.copyOf(recoverOnExitCodes);
  }
}
