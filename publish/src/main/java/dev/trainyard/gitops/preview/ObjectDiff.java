package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.YamlWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Compares two versions of one object file field by field (YAML-aware: key order and line wrapping do not
 * count, only values), masking Secret data as it goes: real values are compared here and dropped, only
 * masks leave this class.
 */
final class ObjectDiff {
  private final YamlTrees yaml;

  ObjectDiff(YamlTrees yaml) {
    this.yaml = yaml;
  }

  /** The change from {@code before} to {@code after} (either absent: the object was added or removed). */
  ObjectChange diff(String file, Optional<String> before, Optional<String> after) {
    Optional<JsonNode> old = before.flatMap(t -> parse(file, t));
    Optional<JsonNode> now = after.flatMap(t -> parse(file, t));
    boolean unreadable = before.isPresent() && old.isEmpty() || after.isPresent() && now.isEmpty();
    JsonNode any = now.or(() -> old).orElse(null);
    String kind = any == null ? "?" : any.path("kind").asText("?");
    String name = any == null ? file : nameOf(any, file);
    ObjectChange.SecretForm form = unreadable ? ObjectChange.SecretForm.UNKNOWN : any == null ? ObjectChange.SecretForm.NONE : form(any);
    boolean secret = form != ObjectChange.SecretForm.NONE || old.map(SecretMask::sensitive).orElse(false);
    boolean immutable = any != null && (any.path("immutable").asBoolean(false) || any.path("spec").path("template").path("immutable").asBoolean(false));
    if (unreadable) {
      ObjectChange.Status status = before.isEmpty() ? ObjectChange.Status.ADDED : after.isEmpty() ? ObjectChange.Status.REMOVED
          : before.equals(after) ? ObjectChange.Status.UNCHANGED : ObjectChange.Status.CHANGED;
      return new ObjectChange(file, kind, name, status, form, false, List.of(), Optional.empty(), true);
    }
    if (old.isEmpty()) {
      return new ObjectChange(file, kind, name, ObjectChange.Status.ADDED, form, immutable, List.of(),
          Optional.of(YamlWriter.write(SecretMask.maskedCopy(now.get()))), false);
    }
    if (now.isEmpty()) {
      return new ObjectChange(file, kind, name, ObjectChange.Status.REMOVED, form, immutable, List.of(), Optional.empty(), false);
    }
    List<FieldChange> fields = fields(leaves(old.get(), secret), leaves(now.get(), secret), secret);
    ObjectChange.Status status = fields.isEmpty() ? ObjectChange.Status.UNCHANGED : ObjectChange.Status.CHANGED;
    return new ObjectChange(file, kind, name, status, form, immutable, fields, Optional.empty(), false);
  }

  private static ObjectChange.SecretForm form(JsonNode object) {
    if (object.has("sops")) {
      return ObjectChange.SecretForm.SOPS;
    }
    return switch (object.path("kind").asText("")) {
      case "Secret" -> ObjectChange.SecretForm.PLAIN;
      case "SealedSecret" -> ObjectChange.SecretForm.SEALED;
      default -> ObjectChange.SecretForm.NONE;
    };
  }

  private static Map<String, String> leaves(JsonNode object, boolean secret) {
    return FieldPaths.flatten(object, secret);
  }

  /** The fields that differ, masked; after's order, then fields only before had. */
  private static List<FieldChange> fields(Map<String, String> old, Map<String, String> now, boolean sensitive) {
    Set<String> paths = new LinkedHashSet<>(now.keySet());
    paths.addAll(old.keySet());
    List<FieldChange> out = new ArrayList<>();
    for (String path : paths) {
      Optional<String> a = Optional.ofNullable(old.get(path));
      Optional<String> b = Optional.ofNullable(now.get(path));
      if (a.equals(b)) {
        continue;
      }
      boolean masked = a.map(v -> SecretMask.masked(sensitive, path, v)).orElse(false) || b.map(v -> SecretMask.masked(sensitive, path, v)).orElse(false);
      if (masked) {
        boolean both = a.isPresent() && b.isPresent();
        out.add(new FieldChange(path, a.map(v -> both ? SecretMask.BEFORE : SecretMask.MASK), b.map(v -> both ? SecretMask.AFTER : SecretMask.MASK), true));
      } else {
        out.add(new FieldChange(path, a, b, false));
      }
    }
    return out;
  }

  private Optional<JsonNode> parse(String file, String text) {
    return yaml.object(text);
  }

  /** {@code namespace/name}, {@code name}, or the file name for an object without one (a kustomization.yaml). */
  private static String nameOf(JsonNode object, String file) {
    String ns = object.path("metadata").path("namespace").asText("");
    String name = object.path("metadata").path("name").asText(file);
    return ns.isEmpty() ? name : ns + "/" + name;
  }
}
