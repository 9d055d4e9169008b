package dev.trainyard.compiler.secrets;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A Kubernetes Secret before a {@link SecretSealer} turns it into the object committed to Git.
 *
 * <pre>
 * new UnsealedSecret("team-a", "demo-3f2a9c-ssh", "kubernetes.io/ssh-auth",
 *     Map.of("app.kubernetes.io/managed-by", "trainyard"), Map.of("trainyard.dev/source-commit", "9fceb02"),
 *     Map.of("ssh-privatekey", pair.privateKeyOpenSsh(), "ssh-publickey", pair.publicKeyAuthorized()), true)
 * </pre>
 *
 * @param namespace the Secret's namespace, non-empty (strict SealedSecret scope binds to it)
 * @param name the Secret's name, non-empty (strict SealedSecret scope binds to it)
 * @param type the Secret type, e.g. {@code kubernetes.io/ssh-auth} or {@code Opaque}
 * @param labels metadata labels, copied sorted by key
 * @param annotations metadata annotations (provenance), copied sorted by key
 * @param data the Secret's values as UTF-8 text, copied sorted by key; sealers base64-encode them
 * @param immutable whether the Secret is {@code immutable: true} (Kubeflow Trainer's SSH Secret is)
 */
public record UnsealedSecret(
    String namespace,
    String name,
    String type,
    SortedMap<String, String> labels,
    SortedMap<String, String> annotations,
    SortedMap<String, String> data,
    boolean immutable) {

  public UnsealedSecret {
    requireText(namespace, "namespace");
    requireText(name, "name");
    requireText(type, "type");
    labels = sortedCopy(labels);
    annotations = sortedCopy(annotations);
    data = sortedCopy(data);
  }

  /** The same, taking unsorted maps. */
  public UnsealedSecret(
      String namespace,
      String name,
      String type,
      Map<String, String> labels,
      Map<String, String> annotations,
      Map<String, String> data,
      boolean immutable) {
    this(
        namespace,
        name,
        type,
        new TreeMap<>(labels),
        new TreeMap<>(annotations),
        new TreeMap<>(data),
        immutable);
  }

  /** Hides the values so that a logged Secret never leaks them. */
  @Override
  public String toString() {
    return "UnsealedSecret["
        + namespace
        + "/"
        + name
        + ", type "
        + type
        + ", keys "
        + data.keySet()
        + "]";
  }

  private static void requireText(String value, String field) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("Secret " + field + " must be non-empty");
    }
  }

  private static SortedMap<String, String> sortedCopy(Map<String, String> map) {
    Objects.requireNonNull(map, "map");
    return Collections.unmodifiableSortedMap(new TreeMap<>(map));
  }
}
