package dev.trainyard.compiler.runtime;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Every runtime the compiler may use: the built-ins from the jar, overridden and extended by the
 * platform's {@code runtimes/} folder (a platform definition with the same {@code name@version}
 * replaces the built-in).
 *
 * <p>A bare {@code name} resolves to the highest version; versions compare numerically segment by
 * segment ({@code 2.10.0-1} is newer than {@code 2.9.1-3}).
 */
public final class RuntimeCatalog {
  /** Orders versions numerically by their dot/dash-separated segments, text segments lexically. */
  public static final Comparator<String> VERSION_ORDER = RuntimeCatalog::compareVersions;

  private final List<RuntimeDefinition> runtimes;

  /**
   * @param runtimes definitions in load order; a later one with the same name@version wins
   */
  public RuntimeCatalog(List<RuntimeDefinition> runtimes) {
    List<RuntimeDefinition> merged = new ArrayList<>();
    for (RuntimeDefinition r : runtimes) {
      merged.removeIf(old -> old.ref().equals(r.ref()));
      merged.add(r);
    }
    merged.sort(
        Comparator.comparing(RuntimeDefinition::name)
            .thenComparing(RuntimeDefinition::version, VERSION_ORDER));
    this.runtimes = List.copyOf(merged);
  }

  /** All definitions, sorted by name then version. */
  public List<RuntimeDefinition> all() {
    return runtimes;
  }

  /** The newest version of each runtime, sorted by name. */
  public List<RuntimeDefinition> newest() {
    return runtimes.stream()
        .collect(Collectors.groupingBy(RuntimeDefinition::name, TreeMap::new, Collectors.toList()))
        .values()
        .stream()
        .map(list -> list.get(list.size() - 1))
        .toList();
  }

  /** Every version of {@code name}, oldest first; empty when the runtime is unknown. */
  public List<String> versionsOf(String name) {
    return runtimes.stream()
        .filter(r -> r.name().equals(name))
        .map(RuntimeDefinition::version)
        .toList();
  }

  /** The runtime names, sorted. */
  public List<String> names() {
    return runtimes.stream().map(RuntimeDefinition::name).distinct().toList();
  }

  /**
   * Finds {@code name} (newest version) or {@code name@version} (exact).
   *
   * @return empty when no such runtime or version is installed
   */
  public Optional<RuntimeDefinition> find(String ref) {
    String[] nameAndVersion = ref.split("@", 2);
    List<RuntimeDefinition> candidates =
        runtimes.stream().filter(r -> r.name().equals(nameAndVersion[0])).toList();
    if (nameAndVersion.length == 1) {
      return candidates.isEmpty()
          ? Optional.empty()
          : Optional.of(candidates.get(candidates.size() - 1));
    }
    return candidates.stream().filter(r -> r.version().equals(nameAndVersion[1])).findFirst();
  }

  /**
   * The other versions of {@code r}'s runtime that use {@code r}'s image, newest first: what they
   * record about the image (its Python, its CUDA) holds for {@code r} too. Versions written before
   * runtime.yaml had {@code python:} and {@code cuda:} (the built-in -1 versions) record neither,
   * which alone would read as "no Python, CPU image".
   */
  public List<RuntimeDefinition> sameImage(RuntimeDefinition r) {
    List<RuntimeDefinition> same =
        new ArrayList<>(
            runtimes.stream()
                .filter(
                    o ->
                        o.name().equals(r.name())
                            && o.image().equals(r.image())
                            && !o.version().equals(r.version()))
                .toList());
    Collections.reverse(same);
    return same;
  }

  /**
   * The Python version of {@code r}'s image as {@code r} records it, else as the newest version
   * with the same image records it ({@link #sameImage}); "" when none does, which the runtime
   * schema reads as "the image has no Python" (e.g. {@code mpi}: mpioperator/openmpi is Debian with
   * Open MPI and sshd only).
   */
  public String recordedPython(RuntimeDefinition r) {
    if (!r.contents().python().isEmpty()) {
      return r.contents().python();
    }
    return sameImage(r).stream()
        .map(o -> o.contents().python())
        .filter(p -> !p.isEmpty())
        .findFirst()
        .orElse("");
  }

  static int compareVersions(String a, String b) {
    String[] x = a.split("[.\\-+]");
    String[] y = b.split("[.\\-+]");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      int c = compareSegment(x[i], y[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  }

  private static int compareSegment(String a, String b) {
    boolean numA = a.chars().allMatch(Character::isDigit) && !a.isEmpty();
    boolean numB = b.chars().allMatch(Character::isDigit) && !b.isEmpty();
    if (numA && numB) {
      return new BigInteger(a).compareTo(new BigInteger(b));
    }
    return numA != numB ? (numA ? 1 : -1) : a.compareTo(b);
  }
}
