package dev.trainyard.compiler.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Python package version as PEP 440 ("Version Identification and Dependency Specification",
 * packaging.python.org/en/latest/specifications/version-specifiers/) defines and orders it: {@code
 * [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]}, with the spellings PEP 440 normalizes ({@code
 * alpha}, {@code beta}, {@code c}, {@code pre}, {@code preview}, {@code rev}, {@code r}, {@code -N}
 * as a post-release, a leading {@code v}, {@code -}/{@code _}/{@code .} separators, any case).
 *
 * <pre>
 * Pep440Version.parse("2.13.0+cu130")  // release [2, 13, 0], local "cu130"
 * Pep440Version.parse("1.0rc1").compareTo(Pep440Version.parse("1.0"))  // &lt; 0
 * </pre>
 *
 * <p>Ordering (PEP 440 "Summary of permitted suffixes and relative ordering"): epoch, then the
 * release with trailing zeros ignored ({@code 1.0 == 1.0.0}), then {@code .devN} of a final release
 * before its pre-releases, pre-releases before the final release, post-releases after it, a {@code
 * .devN} before what it is attached to; a local label sorts after the same public version (numeric
 * segments after alphanumeric ones, numbers by value). Numbers longer than 18 digits are refused
 * rather than compared wrongly.
 */
final class Pep440Version implements Comparable<Pep440Version> {
  private static final Pattern LONG_NUMBER = Pattern.compile("[0-9]{19,}");

  private static final Pattern FORM =
      Pattern.compile(
          "v?(?:([0-9]+)!)?([0-9]+(?:\\.[0-9]+)*)"
              + "(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?"
              + "(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?"
              + "(?:[-_.]?(dev)[-_.]?([0-9]+)?)?"
              + "(?:\\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?");

  /** Pre-release phases in order: a, b, rc. */
  private static final List<String> PHASES = List.of("a", "b", "rc");

  private static final long NONE = -1;
  private static final int NO_PHASE = -1;

  private final long epoch;
  private final List<Long> release;
  private final int phase;
  private final long pre;
  private final long post;
  private final long dev;
  private final String local;

  private Pep440Version(
      long epoch, List<Long> release, int phase, long pre, long post, long dev, String local) {
    this.epoch = epoch;
    this.release = List.copyOf(release);
    this.phase = phase;
    this.pre = pre;
    this.post = post;
    this.dev = dev;
    this.local = local;
  }

  /**
   * Parses {@code text} (surrounding blanks allowed).
   *
   * @return the version, or empty when {@code text} is no PEP 440 version
   */
  static Optional<Pep440Version> parse(String text) {
    Matcher m = FORM.matcher(text.strip().toLowerCase(Locale.ROOT));
    if (!m.matches() || tooLong(m)) {
      return Optional.empty();
    }
    List<Long> release = new ArrayList<>();
    for (String part : m.group(2).split("\\.")) {
      release.add(Long.parseLong(part));
    }
    int phase = m.group(3) == null ? NO_PHASE : phase(m.group(3));
    long pre = phase == NO_PHASE ? NONE : number(m.group(4));
    long post =
        m.group(5) != null
            ? Long.parseLong(m.group(5))
            : m.group(6) != null ? number(m.group(7)) : NONE;
    long dev = m.group(8) == null ? NONE : number(m.group(9));
    String local = m.group(10) == null ? "" : m.group(10).replace('-', '.').replace('_', '.');
    long epoch = m.group(1) == null ? 0 : Long.parseLong(m.group(1));
    return Optional.of(new Pep440Version(epoch, release, phase, pre, post, dev, local));
  }

  private static boolean tooLong(Matcher m) {
    for (int g = 1; g <= m.groupCount(); g++) {
      String s = m.group(g);
      if (s != null && LONG_NUMBER.matcher(s).find()) {
        return true;
      }
    }
    return false;
  }

  private static int phase(String spelled) {
    return switch (spelled) {
      case "a", "alpha" -> 0;
      case "b", "beta" -> 1;
      default -> 2; // rc, c, pre, preview
    };
  }

  /** An omitted number after a phase, post or dev is 0 (PEP 440 "Implicit ... number"). */
  private static long number(String digits) {
    return digits == null ? 0 : Long.parseLong(digits);
  }

  /** Release segments as written, e.g. [2, 13, 0]. */
  List<Long> release() {
    return release;
  }

  long epoch() {
    return epoch;
  }

  boolean isPreRelease() {
    return phase != NO_PHASE || dev != NONE;
  }

  boolean isPostRelease() {
    return post != NONE;
  }

  boolean isDevRelease() {
    return dev != NONE;
  }

  boolean hasLocal() {
    return !local.isEmpty();
  }

  /** The same version without its local label. */
  Pep440Version publicVersion() {
    return new Pep440Version(epoch, release, phase, pre, post, dev, "");
  }

  /** Epoch and release only ({@code 1!2.0rc1.post3} → {@code 1!2.0}). */
  Pep440Version baseVersion() {
    return new Pep440Version(epoch, release, NO_PHASE, NONE, NONE, NONE, "");
  }

  /** Same pre-release phase and number (or both without one). */
  boolean samePre(Pep440Version o) {
    return phase == o.phase && pre == o.pre;
  }

  boolean samePost(Pep440Version o) {
    return post == o.post;
  }

  boolean sameDev(Pep440Version o) {
    return dev == o.dev;
  }

  /** The normalized form, e.g. {@code 1!2.0rc1.post3.dev0+cu130}. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    if (epoch != 0) {
      s.append(epoch).append('!');
    }
    for (int i = 0; i < release.size(); i++) {
      s.append(i == 0 ? "" : ".").append(release.get(i));
    }
    if (phase != NO_PHASE) {
      s.append(PHASES.get(phase)).append(pre);
    }
    if (post != NONE) {
      s.append(".post").append(post);
    }
    if (dev != NONE) {
      s.append(".dev").append(dev);
    }
    if (!local.isEmpty()) {
      s.append('+').append(local);
    }
    return s.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Pep440Version v && compareTo(v) == 0;
  }

  @Override
  public int hashCode() {
    List<Long> trimmed = new ArrayList<>(release);
    while (trimmed.size() > 1 && trimmed.get(trimmed.size() - 1) == 0) {
      trimmed.remove(trimmed.size() - 1);
    }
    return Objects.hash(epoch, trimmed, phase, pre, post, dev, local);
  }

  @Override
  public int compareTo(Pep440Version o) {
    int c = Long.compare(epoch, o.epoch);
    if (c == 0) {
      c = compareRelease(release, o.release);
    }
    if (c == 0) {
      c = Long.compare(preKey(), o.preKey());
    }
    if (c == 0) {
      c = Long.compare(post, o.post);
    }
    if (c == 0) {
      c = Long.compare(devKey(), o.devKey());
    }
    return c != 0 ? c : compareLocal(local, o.local);
  }

  /** Releases compared as if padded with zeros to the same length. */
  static int compareRelease(List<Long> a, List<Long> b) {
    for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
      int c = Long.compare(i < a.size() ? a.get(i) : 0, i < b.size() ? b.get(i) : 0);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  /**
   * Phase and number in one key: a final release's {@code .devN} (no phase, no post) first, then a,
   * b, rc by number, then no pre-release at all.
   */
  private long preKey() {
    if (phase == NO_PHASE) {
      return post == NONE && dev != NONE ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    // At most 18 digits each (tooLong), so phase * 10^18 + number does not overflow.
    return phase * 1_000_000_000_000_000_000L + pre;
  }

  /** No dev part sorts after any {@code .devN}. */
  private long devKey() {
    return dev == NONE ? Long.MAX_VALUE : dev;
  }

  /**
   * PEP 440 "Local version identifiers": segments compared one by one, numbers by value and after
   * any alphanumeric segment, strings case-insensitively; more segments win when the shared ones
   * are equal; no label sorts first.
   */
  private static int compareLocal(String a, String b) {
    if (a.isEmpty() || b.isEmpty()) {
      return Boolean.compare(!a.isEmpty(), !b.isEmpty());
    }
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      int c = compareLocalSegment(x[i], y[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  }

  private static int compareLocalSegment(String a, String b) {
    boolean numA = a.matches("[0-9]+");
    boolean numB = b.matches("[0-9]+");
    if (numA && numB) {
      return Long.compare(Long.parseLong(a), Long.parseLong(b));
    }
    if (numA != numB) {
      return numA ? 1 : -1;
    }
    return a.compareTo(b);
  }
}
