package dev.trainyard.gitops;

import java.util.Arrays;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The runs of a cluster that were pruned, one {@code <namespace>/<run>} per line in {@code
 * clusters/<cluster>/pruned-runs.txt} (sorted; not a Kubernetes object, so no sync tool applies
 * it). Submit reads it so that re-submitting a commit whose run already finished and was pruned
 * does not start the same training again; {@code --rerun} starts a new run instead.
 */
public final class PrunedRuns {
  /** File name in a cluster's folder. */
  public static final String FILE = "pruned-runs.txt";

  private PrunedRuns() {}

  /** The pruned keys of {@code cluster} in {@code tree}. */
  public static SortedSet<String> of(Snapshot tree, String cluster) {
    SortedSet<String> keys = new TreeSet<>();
    tree.read(path(cluster))
        .ifPresent(
            text ->
                Arrays.stream(text.split("\n"))
                    .map(String::strip)
                    .filter(l -> !l.isEmpty())
                    .forEach(keys::add));
    return keys;
  }

  /** The file's path for {@code cluster}. */
  public static String path(String cluster) {
    return "clusters/" + cluster + "/" + FILE;
  }

  /** The file's text for {@code keys}: sorted, one per line, LF. */
  public static String text(SortedSet<String> keys) {
    StringBuilder b = new StringBuilder();
    keys.forEach(k -> b.append(k).append('\n'));
    return b.toString();
  }
}
