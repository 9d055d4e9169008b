package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.YamlWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Compares two versions of one object file field by field (YAML-aware: key order and line wrapping
 * do not count, only values), masking Secret data as it goes: real values are compared here and
 * dropped, only masks leave this class. A file of several YAML documents gives one change per
 * object, the objects paired by kind, namespace and name, and named {@code file (object N of M)} so
 * a reviewer sees every object.
 */
final class ObjectDiff {
  private final YamlTrees yaml;

  ObjectDiff(YamlTrees yaml) {
    this.yaml = yaml;
  }

  /**
   * The change of the first object of a one-object file (tests and callers that know the file holds
   * one object).
   */
  ObjectChange diff(String file, Optional<String> before, Optional<String> after) {
    return diffAll(file, before, after).get(0);
  }

  /**
   * One change per object of the file, unchanged ones included; an unreadable file is one
   * unreadable change.
   */
  List<ObjectChange> diffAll(String file, Optional<String> before, Optional<String> after) {
    Optional<YamlTrees.Documents> old = before.map(yaml::documents);
    Optional<YamlTrees.Documents> now = after.map(yaml::documents);
    if (old.map(d -> !d.readable()).orElse(false) || now.map(d -> !d.readable()).orElse(false)) {
      return List.of(unreadable(file, before, after));
    }
    Map<String, JsonNode> a = byIdentity(old.map(YamlTrees.Documents::objects).orElse(List.of()));
    Map<String, JsonNode> b = byIdentity(now.map(YamlTrees.Documents::objects).orElse(List.of()));
    if (a.isEmpty() && b.isEmpty()) {
      return List.of(unreadable(file, before, after));
    }
    Set<String> keys = new LinkedHashSet<>(b.keySet());
    keys.addAll(a.keySet());
    List<ObjectChange> out = new ArrayList<>();
    int n = 0;
    for (String key : keys) {
      String label =
          keys.size() == 1 ? file : file + " (object " + ++n + " of " + keys.size() + ")";
      out.add(one(label, Optional.ofNullable(a.get(key)), Optional.ofNullable(b.get(key))));
    }
    return out;
  }

  /**
   * Objects by {@code kind/namespace/name}, in file order; a repeated identity gets its position
   * appended.
   */
  private static Map<String, JsonNode> byIdentity(List<JsonNode> objects) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    for (JsonNode o : objects) {
      String key = o.path("kind").asText("") + "/" + nameOf(o, "");
      out.put(out.containsKey(key) ? key + "#" + out.size() : key, o);
    }
    return out;
  }

  private static ObjectChange unreadable(
      String file, Optional<String> before, Optional<String> after) {
    ObjectChange.Status status =
        before.isEmpty()
            ? ObjectChange.Status.ADDED
            : after.isEmpty()
                ? ObjectChange.Status.REMOVED
                : before.equals(after)
                    ? ObjectChange.Status.UNCHANGED
                    : ObjectChange.Status.CHANGED;
    return new ObjectChange(
        file,
        "?",
        file,
        status,
        ObjectChange.SecretForm.UNKNOWN,
        false,
        List.of(),
        Optional.empty(),
        true);
  }

  private static ObjectChange one(String file, Optional<JsonNode> old, Optional<JsonNode> now) {
    JsonNode any = now.or(() -> old).orElseThrow();
    String kind = any.path("kind").asText("?");
    String name = nameOf(any, file);
    ObjectChange.SecretForm form = SecretMask.form(any);
    if (form == ObjectChange.SecretForm.NONE) {
      form = old.map(SecretMask::form).orElse(ObjectChange.SecretForm.NONE);
    }
    boolean immutable =
        any.path("immutable").asBoolean(false)
            || any.path("spec").path("template").path("immutable").asBoolean(false);
    if (old.isEmpty()) {
      return new ObjectChange(
          file,
          kind,
          name,
          ObjectChange.Status.ADDED,
          form,
          immutable,
          List.of(),
          Optional.of(YamlWriter.write(SecretMask.maskedCopy(now.get()))),
          false);
    }
    if (now.isEmpty()) {
      return new ObjectChange(
          file,
          kind,
          name,
          ObjectChange.Status.REMOVED,
          form,
          immutable,
          List.of(),
          Optional.empty(),
          false);
    }
    List<FieldChange> fields =
        fields(
            FieldPaths.flatten(SecretMask.seal(old.get())),
            FieldPaths.flatten(SecretMask.seal(now.get())));
    ObjectChange.Status status =
        fields.isEmpty() ? ObjectChange.Status.UNCHANGED : ObjectChange.Status.CHANGED;
    return new ObjectChange(
        file, kind, name, status, form, immutable, fields, Optional.empty(), false);
  }

  /**
   * The fields that differ, Secret values as their masks; after's order, then fields only before
   * had.
   */
  private static List<FieldChange> fields(
      Map<String, FieldPaths.Leaf> old, Map<String, FieldPaths.Leaf> now) {
    Set<String> paths = new LinkedHashSet<>(now.keySet());
    paths.addAll(old.keySet());
    List<FieldChange> out = new ArrayList<>();
    for (String path : paths) {
      Optional<FieldPaths.Leaf> a = Optional.ofNullable(old.get(path));
      Optional<FieldPaths.Leaf> b = Optional.ofNullable(now.get(path));
      if (a.map(FieldPaths.Leaf::text).equals(b.map(FieldPaths.Leaf::text))) {
        continue;
      }
      boolean masked =
          a.flatMap(FieldPaths.Leaf::mask).isPresent()
              || b.flatMap(FieldPaths.Leaf::mask).isPresent();
      if (masked) {
        boolean both = a.isPresent() && b.isPresent();
        out.add(
            new FieldChange(
                path,
                a.map(v -> shown(v) + (both ? " (before)" : "")),
                b.map(v -> shown(v) + (both ? " (after)" : "")),
                true));
      } else {
        out.add(
            new FieldChange(
                path, a.map(FieldPaths.Leaf::text), b.map(FieldPaths.Leaf::text), false));
      }
    }
    return out;
  }

  /**
   * A Secret value's mask; a plain value that now sits beside a Secret one (a Secret turned into a
   * ConfigMap) is masked too.
   */
  private static String shown(FieldPaths.Leaf leaf) {
    return leaf.mask().orElse(SecretMask.MASK);
  }

  /**
   * {@code namespace/name}, {@code name}, or the file name for an object without one (a
   * kustomization.yaml).
   */
  private static String nameOf(JsonNode object, String file) {
    String ns = object.path("metadata").path("namespace").asText("");
    String name = object.path("metadata").path("name").asText(file);
    return ns.isEmpty() ? name : ns + "/" + name;
  }
}
