package dev.trainyard.compiler.provenance;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Trainyard's own output trees inside a source repo (a {@code compile --out} folder, wherever it
 * is): the untracked files under a folder that holds {@code
 * clusters/<cluster>/_cluster/kustomization.yaml} are not code the pods need, so they never count
 * as uncommitted. And the {@code .gitignore} patterns that would cover the untracked files the user
 * is told about.
 */
final class OutputTrees {
  private static final Pattern CLUSTER_ROOT =
      Pattern.compile("^(.*?)clusters/[^/]+/_cluster/kustomization\\.yaml$");

  private OutputTrees() {}

  /** Removes from {@code untracked} every file of a Trainyard output tree. */
  static void remove(Set<String> untracked) {
    List<String> roots = new ArrayList<>();
    for (String path : untracked) {
      Matcher m = CLUSTER_ROOT.matcher(path);
      if (m.matches()) {
        roots.add(m.group(1) + "clusters/");
      }
    }
    untracked.removeIf(p -> roots.stream().anyMatch(p::startsWith));
  }

  /**
   * At most three .gitignore lines for {@code untracked} (paths in the repository): below
   * train.yaml's {@code folder}, the first folder of each path ({@code __pycache__/}), or the
   * file's name.
   */
  static List<String> patterns(Set<String> untracked, String folder) {
    Set<String> out = new TreeSet<>();
    // At the root the prefix is "/", which no path in the repository starts with: paths stay whole.
    String prefix = folder + "/";
    for (String path : untracked) {
      String rest = path.startsWith(prefix) ? path.substring(prefix.length()) : path;
      out.add(rest.replaceFirst("/.*", "/"));
    }
    return out.stream().limit(3).toList();
  }
}
