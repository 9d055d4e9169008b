package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Objects;

/**
 * One Kubernetes object Trainyard emits, as a Jackson tree.
 *
 * @param apiVersion e.g. {@code jobset.x-k8s.io/v1alpha2}
 * @param kind e.g. {@code JobSet}
 * @param name {@code metadata.name}
 * @param namespace {@code metadata.namespace}, or "" for a cluster-scoped object
 * @param object the whole object
 */
public record Manifest(
    String apiVersion, String kind, String name, String namespace, ObjectNode object) {
  public Manifest {
    Objects.requireNonNull(apiVersion, "apiVersion");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    object = object.deepCopy();
  }

  /** A copy of the object tree; callers may change it. */
  @Override
  public ObjectNode object() {
    return object.deepCopy();
  }

  /**
   * The object tree itself, without the copy {@link #object()} makes, for the stages of this
   * package that only read it (check, emit): a deep copy per read was ~7 % of a warm compile. Never
   * hand it out or change it.
   */
  ObjectNode tree() {
    return object;
  }

  /** The file name in the output tree: {@code <kind>-<name>.yaml}, lower case (kustomize style). */
  public String fileName() {
    return kind.toLowerCase(Locale.ROOT) + "-" + name + ".yaml";
  }

  /** Starts an object with apiVersion, kind and metadata name/namespace. */
  public static ObjectNode skeleton(String apiVersion, String kind, String name, String namespace) {
    ObjectNode o = CanonicalJson.mapper().createObjectNode();
    o.put("apiVersion", apiVersion).put("kind", kind);
    ObjectNode meta = o.putObject("metadata").put("name", name);
    if (!namespace.isEmpty()) {
      meta.put("namespace", namespace);
    }
    return o;
  }

  /** Wraps a tree built with {@link #skeleton}, reading the identifying fields back from it. */
  public static Manifest of(ObjectNode o) {
    return new Manifest(
        o.path("apiVersion").asText(),
        o.path("kind").asText(),
        o.path("metadata").path("name").asText(),
        o.path("metadata").path("namespace").asText(""),
        o);
  }
}
