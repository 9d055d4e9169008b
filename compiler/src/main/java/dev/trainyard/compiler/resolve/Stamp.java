package dev.trainyard.compiler.resolve;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * Facts about the compile itself that go into provenance.
 *
 * @param compilerVersion the Trainyard version, e.g. {@code 0.1.0}
 * @param createdAt when the run was first submitted (UTC, whole seconds), recorded as the {@code
 *     trainyard.dev/created-at} annotation so {@code trainyard prune --older-than} reads a run's
 *     age from the tree, never from a file system clock; absent for a plain {@code compile}, which
 *     has no clock
 */
public record Stamp(String compilerVersion, Optional<Instant> createdAt) {
  public Stamp {
    Objects.requireNonNull(compilerVersion, "compilerVersion");
    createdAt = createdAt.map(t -> t.truncatedTo(ChronoUnit.SECONDS));
  }
}
