package dev.trainyard.compiler.spec;

import java.util.Objects;

/**
 * One entry of {@code volumes:}: an existing PersistentVolumeClaim mounted on every node.
 *
 * <pre>
 * volumes:
 *   - {claim: datasets, path: /data, readOnly: true}
 * </pre>
 *
 * @param claim the PVC name
 * @param path absolute mount path in the container
 * @param readOnly mount read-only (default false)
 */
public record VolumeMount(String claim, String path, boolean readOnly) {
  public VolumeMount {
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(path, "path");
  }
}
