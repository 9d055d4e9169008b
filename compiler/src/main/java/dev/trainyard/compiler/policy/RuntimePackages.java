package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.runtime.RuntimeDefinition;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Python packages and the Python a runtime's image has, with the versions its runtime.yaml
 * records. A {@code packages} entry records a version when it starts with the package name and a
 * PEP 440 version, separated by blanks or {@code ==}; what follows in parentheses is a remark.
 * Entries without a version ({@code torchvision}, {@code Open MPI (libopenmpi-dev)}) are listed by
 * {@code runtimes show} only.
 *
 * <pre>
 * python: "3.10"
 * packages:
 *   - torch 2.13.0 (pip --user, /home/mpiuser/.local)   # torch → 2.13.0
 *   - deepspeed==0.19.2                                 # deepspeed → 0.19.2
 *   - python 3.12                                       # the image's Python when `python:` is absent
 * </pre>
 *
 * <p>Names are compared in PEP 503 normalized form (lower case, runs of {@code -_.} as one {@code
 * -}; packaging.python.org "Names and normalization").
 */
final class RuntimePackages {
  private static final Pattern ENTRY =
      Pattern.compile(
          "([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?:\\[[^\\]]*\\])?(?:\\s*==\\s*|\\s+)(\\S+?)(?:,|\\s.*)?");

  private final Map<String, Pep440Version> versions;
  private final String python;

  private RuntimePackages(Map<String, Pep440Version> versions, String python) {
    this.versions = Map.copyOf(versions);
    this.python = python;
  }

  /** The recorded versions of {@code runtime}. */
  static RuntimePackages of(RuntimeDefinition runtime) {
    Map<String, Pep440Version> versions = new TreeMap<>();
    String python = runtime.contents().python();
    for (String entry : runtime.packages()) {
      Matcher m = ENTRY.matcher(entry.strip());
      Optional<Pep440Version> v = m.matches() ? Pep440Version.parse(m.group(2)) : Optional.empty();
      if (v.isEmpty()) {
        continue;
      }
      String name = normalize(m.group(1));
      if (name.equals("python")) {
        python = python.isEmpty() ? m.group(2) : python;
      } else {
        versions.putIfAbsent(name, v.get());
      }
    }
    return new RuntimePackages(versions, python);
  }

  /** PEP 503: lower case, each run of {@code -}, {@code _}, {@code .} as one {@code -}. */
  static String normalize(String name) {
    return name.toLowerCase(Locale.ROOT).replaceAll("[-_.]+", "-");
  }

  /** The recorded version of package {@code name} (any spelling), if the runtime records one. */
  Optional<Pep440Version> version(String name) {
    return Optional.ofNullable(versions.get(normalize(name)));
  }

  /** The image's Python version as recorded ({@code "3.12"}), "" when none is. */
  String python() {
    return python;
  }
}
