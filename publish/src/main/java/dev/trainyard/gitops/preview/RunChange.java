package dev.trainyard.gitops.preview;

import dev.trainyard.gitops.RunFolder;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One run the change adds, changes in place or removes.
 *
 * @param status added (a new run folder), changed (a run folder whose files differ) or removed
 * @param folder the run folder
 * @param before the run as it was (a changed or removed run)
 * @param after the run as it will be (an added or changed run)
 * @param previous for an added run: the latest earlier run of the same train.yaml in the base tree
 *     (by {@code created-at}), which its object diffs compare against; empty for a first run
 * @param objects one entry per object file, sorted by file name; unchanged objects are left out
 */
public record RunChange(
    Status status,
    RunFolder folder,
    Optional<RunFacts> before,
    Optional<RunFacts> after,
    Optional<RunFacts> previous,
    List<ObjectChange> objects) {
  /** What happens to the run. */
  public enum Status {
    ADDED,
    CHANGED,
    REMOVED
  }

  public RunChange {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(folder, "folder");
    objects = List.copyOf(objects);
  }

  /**
   * The facts a summary shows: after, else before, else nothing known (neither JobSet file is
   * readable).
   */
  public RunFacts shown() {
    return after.or(() -> before).orElseGet(() -> RunFacts.unknown(folder));
  }

  /**
   * The run to compare runtime and image against: the previous run of an added one, else before.
   */
  public Optional<RunFacts> comparedWith() {
    return status == Status.ADDED ? previous : before;
  }
}
