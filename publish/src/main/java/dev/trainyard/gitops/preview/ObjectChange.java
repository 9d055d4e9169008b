package dev.trainyard.gitops.preview;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How one file (one Kubernetes object) of a run differs between before and after.
 *
 * @param file the file's name in the run folder ({@code jobset-demo-3fa2c1.yaml}); for a file of
 *     several YAML documents, one change per object, named {@code extra.yaml (object 2 of 3)}
 * @param kind the object's {@code kind} ({@code "?"} when unreadable)
 * @param name {@code <namespace>/<name>} or {@code <name>}
 * @param status added, changed, removed or unchanged
 * @param secret how the object carries Secret data (masked whenever it is not {@link
 *     SecretForm#NONE})
 * @param immutable the object (after, else before) says {@code immutable: true}: the API server
 *     refuses data changes
 * @param fields the changed fields of a changed object (empty for an added or removed one)
 * @param yaml an added object in full as YAML, Secret data masked; empty otherwise
 * @param unreadable the file is not a YAML object: its text is never shown (it might hold Secret
 *     data)
 */
public record ObjectChange(
    String file,
    String kind,
    String name,
    Status status,
    SecretForm secret,
    boolean immutable,
    List<FieldChange> fields,
    Optional<String> yaml,
    boolean unreadable) {
  /** What happened to an object. */
  public enum Status {
    ADDED,
    CHANGED,
    REMOVED,
    UNCHANGED
  }

  /**
   * How an object holds Secret data: not at all, as a plain {@code Secret} (base64 is not
   * encryption), as a {@code SealedSecret}, or SOPS-encrypted. An unreadable file counts as {@link
   * #UNKNOWN} and is never shown.
   */
  public enum SecretForm {
    NONE,
    PLAIN,
    SEALED,
    SOPS,
    UNKNOWN
  }

  public ObjectChange {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(secret, "secret");
    fields = List.copyOf(fields);
    Objects.requireNonNull(yaml, "yaml");
  }

  /** {@code Kind namespace/name}, as headings show it. */
  public String title() {
    return kind + " " + name;
  }
}
