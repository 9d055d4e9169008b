package dev.trainyard.compiler.spec;

import java.util.List;
import java.util.Optional;

/**
 * train.yaml's {@code checkpoint} field as written; defaults are the resolve stage's.
 *
 * <pre>
 * checkpoint:
 *   path: /checkpoints        # mount path; CHECKPOINT_DIR lies below it
 *   keep: 3                   # complete checkpoints kept
 *   saveSeconds: 120          # time a save on SIGTERM takes, sizes terminationGracePeriodSeconds
 *   recoverOnExitCodes: [75]  # exits that restart from the checkpoint instead of failing
 * </pre>
 *
 * @param path absolute mount path, if written
 * @param keep complete checkpoints kept (1–1000), if written
 * @param saveSeconds seconds a save takes at most (0–3600), if written
 * @param recoverOnExitCodes exit codes (1–255) that mean "restart from the checkpoint", as written
 */
public record CheckpointSpec(
    Optional<String> path,
    Optional<Integer> keep,
    Optional<Integer> saveSeconds,
    List<Integer> recoverOnExitCodes) {
  public CheckpointSpec {
    recoverOnExitCodes = List.copyOf(recoverOnExitCodes);
  }
}
