package dev.trainyard.gitops.preview;

import java.util.Objects;
import java.util.Optional;

/**
 * One changed field of an object, by path ({@code spec.replicatedJobs[node].replicas}, {@code
 * metadata.labels["kueue.x-k8s.io/queue-name"]}). Values are as shown to a reviewer: Secret data is
 * already replaced by {@link SecretMask#BEFORE} / {@link SecretMask#AFTER}, so no renderer can leak
 * it.
 *
 * @param path the field's path; list items are named by their {@code name} field when every item
 *     has one
 * @param before the value before, absent for an added field (multi-line strings keep their
 *     newlines)
 * @param after the value after, absent for a removed field
 * @param secret whether the value is Secret data (shown masked)
 */
public record FieldChange(
    String path, Optional<String> before, Optional<String> after, boolean secret) {
  public FieldChange {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(before, "before");
    Objects.requireNonNull(after, "after");
  }
}
