package dev.trainyard.gitops;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An in-memory GitOps tree (path → text) for tests of the pure stages (roots, previews, the run
 * index).
 */
public record MapSnapshot(SortedMap<String, String> files) implements Snapshot {
  public MapSnapshot(Map<String, String> files) {
    this(new TreeMap<>(files));
  }

  @Override
  public Optional<String> commit() {
    return Optional.empty();
  }

  @Override
  public Optional<String> read(String path) {
    return Optional.ofNullable(files.get(path));
  }

  @Override
  public List<String> children(String folder) {
    String prefix = folder.isEmpty() ? "" : folder + "/";
    TreeSet<String> names = new TreeSet<>();
    for (String path : files.keySet()) {
      if (path.startsWith(prefix)) {
        String rest = path.substring(prefix.length());
        int slash = rest.indexOf('/');
        names.add(slash < 0 ? rest : rest.substring(0, slash + 1));
      }
    }
    return new ArrayList<>(names);
  }

  @Override
  public SortedMap<String, String> folder(String folder) {
    SortedMap<String, String> out = new TreeMap<>();
    files.forEach(
        (path, text) -> {
          if (path.startsWith(folder + "/")) {
            out.put(path.substring(folder.length() + 1), text);
          }
        });
    return out;
  }

  /** The paths whose text differs between two trees. */
  public static List<String> changed(MapSnapshot a, MapSnapshot b) {
    TreeSet<String> paths = new TreeSet<>(a.files.keySet());
    paths.addAll(b.files.keySet());
    return paths.stream().filter(p -> !Objects.equals(a.files.get(p), b.files.get(p))).toList();
  }
}
