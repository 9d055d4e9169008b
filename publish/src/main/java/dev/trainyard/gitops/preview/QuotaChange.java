package dev.trainyard.gitops.preview;

import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A ClusterQueue's nominal quota of one resource that a GitOps pull request changes through
 * platform.yaml, with what that does to the runs committed in the GitOps repo.
 *
 * <pre>
 * | team-a | nvidia.com/gpu | 8 → 1 | 3 | 2 never admitted |
 * </pre>
 *
 * @param clusterQueue the ClusterQueue's name
 * @param resource the resource ({@code nvidia.com/gpu}, {@code cpu}, {@code memory})
 * @param before nominal quota summed over the queue's flavors at the base; empty when the queue did
 *     not exist or did not cover the resource
 * @param after the same at head
 * @param cohort the queue's cohort at head, from which it may borrow
 * @param runs the runs in git whose LocalQueue points at this ClusterQueue at head
 * @param neverAdmitted those that fitted at the base and will never be admitted at head (this
 *     resource over the quota, and over the whole cohort's when it has one), sorted
 * @param borrowing those that fitted on their own at the base and now fit only by borrowing, sorted
 */
public record QuotaChange(
    String clusterQueue,
    String resource,
    Optional<BigDecimal> before,
    Optional<BigDecimal> after,
    Optional<String> cohort,
    int runs,
    List<String> neverAdmitted,
    List<String> borrowing) {
  public QuotaChange {
    Objects.requireNonNull(clusterQueue, "clusterQueue");
    Objects.requireNonNull(resource, "resource");
    neverAdmitted = List.copyOf(neverAdmitted);
    borrowing = List.copyOf(borrowing);
  }

  /** {@code 8 → 1}, with {@code none} for a quota that is not there. */
  public String shown() {
    return show(before) + " → " + show(after);
  }

  private String show(Optional<BigDecimal> value) {
    return value.map(v -> Quantity.show(resource, v)).orElse("none");
  }
}
