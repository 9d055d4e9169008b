package dev.trainyard.compiler.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PEP 440 version specifier set, {@code >=2.1,<3,!=2.2.*}: every clause must admit a version
 * (packaging.python.org/en/latest/specifications/version-specifiers/, "Version specifiers").
 *
 * <pre>
 * Pep440Specifiers.parse("&lt;2.10").get().admits(Pep440Version.parse("2.13.0").get())   // false
 * Pep440Specifiers.parse("~=2.13").get().admits(Pep440Version.parse("2.13.0").get())   // true
 * </pre>
 *
 * <p>Operators and their rules as PEP 440 states them: {@code ==} (a public version ignores the
 * candidate's local label; {@code ==V.*} is a prefix match with the candidate's release padded with
 * zeros), {@code !=} (its negation), {@code <=}/{@code >=} (ordering of public versions), {@code
 * <V} (also refuses pre-releases of V unless V is one), {@code >V} (also refuses post-releases of V
 * unless V is one, and local versions of V), {@code ~=V} (at least two release segments: {@code
 * >=V, ==prefix.*} with V's last segment dropped), {@code ===} (the same string). Whether an
 * installed version "admits" is asked of an installed package, so pre-releases are not excluded
 * here as they are when pip picks a version to download.
 */
final class Pep440Specifiers {
  private static final Pattern CLAUSE = Pattern.compile("(===|~=|==|!=|<=|>=|<|>)\\s*(\\S+)");

  private final String text;
  private final List<Clause> clauses;

  private Pep440Specifiers(String text, List<Clause> clauses) {
    this.text = text;
    this.clauses = List.copyOf(clauses);
  }

  /**
   * Parses a comma-separated specifier set; blanks around clauses are allowed; "" admits any
   * version.
   *
   * @return the set, or empty when a clause is malformed (unknown operator, no version, {@code .*}
   *     on an operator other than {@code ==}/{@code !=}, {@code ~=} with one release segment, a
   *     local label on an ordered comparison)
   */
  static Optional<Pep440Specifiers> parse(String text) {
    List<Clause> clauses = new ArrayList<>();
    String trimmed = text.strip();
    if (!trimmed.isEmpty()) {
      for (String part : trimmed.split(",", -1)) {
        Optional<Clause> clause = clause(part.strip());
        if (clause.isEmpty()) {
          return Optional.empty();
        }
        clauses.add(clause.get());
      }
    }
    return Optional.of(new Pep440Specifiers(trimmed, clauses));
  }

  private static Optional<Clause> clause(String part) {
    Matcher m = CLAUSE.matcher(part);
    if (!m.matches()) {
      return Optional.empty();
    }
    String op = m.group(1);
    String value = m.group(2);
    if (op.equals("===")) {
      return Optional.of(new Clause(op, value, null, false));
    }
    boolean wildcard = value.endsWith(".*");
    Optional<Pep440Version> v =
        Pep440Version.parse(wildcard ? value.substring(0, value.length() - 2) : value);
    if (v.isEmpty()
        || wildcard && !(op.equals("==") || op.equals("!="))
        || wildcard && (v.get().hasLocal() || v.get().isDevRelease())
        || op.equals("~=") && v.get().release().size() < 2
        || v.get().hasLocal() && !(op.equals("==") || op.equals("!="))) {
      return Optional.empty();
    }
    return Optional.of(new Clause(op, value, v.get(), wildcard));
  }

  /** Whether {@code version} satisfies every clause. */
  boolean admits(Pep440Version version) {
    return clauses.stream().allMatch(c -> c.admits(version));
  }

  /** The set as written, trimmed. */
  @Override
  public String toString() {
    return text;
  }

  /** One {@code OP VERSION} clause; {@code version} is null for {@code ===}. */
  private record Clause(String op, String text, Pep440Version version, boolean wildcard) {
    boolean admits(Pep440Version c) {
      return switch (op) {
        case "===" -> c.toString().equals(text.toLowerCase(Locale.ROOT));
        case "==" -> equal(c);
        case "!=" -> !equal(c);
        case "<=" -> c.publicVersion().compareTo(version) <= 0;
        case ">=" -> c.publicVersion().compareTo(version) >= 0;
        case "<" -> less(c.publicVersion());
        case ">" -> greater(c);
        default -> compatible(c); // ~=
      };
    }

    private boolean equal(Pep440Version c) {
      if (wildcard) {
        return prefix(c, version);
      }
      return (version.hasLocal() ? c : c.publicVersion()).compareTo(version) == 0;
    }

    private boolean less(Pep440Version c) {
      return c.compareTo(version) < 0
          && (version.isPreRelease()
              || !c.isPreRelease()
              || !c.baseVersion().equals(version.baseVersion()));
    }

    private boolean greater(Pep440Version c) {
      boolean sameBase = c.baseVersion().equals(version.baseVersion());
      return c.publicVersion().compareTo(version) > 0
          && (version.isPostRelease() || !c.isPostRelease() || !sameBase)
          && !(c.hasLocal() && sameBase);
    }

    /** {@code ~=2.13.1}: {@code >=2.13.1} and {@code ==2.13.*}. */
    private boolean compatible(Pep440Version c) {
      List<Long> r = version.release();
      Pep440Version head =
          Pep440Version.parse(
                  (version.epoch() == 0 ? "" : version.epoch() + "!")
                      + String.join(
                          ".", r.subList(0, r.size() - 1).stream().map(String::valueOf).toList()))
              .orElseThrow();
      return c.publicVersion().compareTo(version) >= 0 && prefix(c, head);
    }

    /**
     * PEP 440 "Version matching" with a trailing {@code .*}: the candidate's release, padded with
     * zeros to the prefix's length, starts with the prefix's release, in the same epoch; a
     * pre-release or post-release in the prefix must be the candidate's too.
     */
    private static boolean prefix(Pep440Version c, Pep440Version p) {
      List<Long> cr = new ArrayList<>(c.release());
      List<Long> pr = p.release();
      while (cr.size() < pr.size()) {
        cr.add(0L);
      }
      if (c.epoch() != p.epoch() || !cr.subList(0, pr.size()).equals(pr)) {
        return false;
      }
      boolean suffixInPrefix = p.isPreRelease() || p.isPostRelease();
      if (!suffixInPrefix) {
        return true;
      }
      return Pep440Version.compareRelease(c.release(), pr) == 0
          && c.samePre(p)
          && (!p.isPostRelease() || c.samePost(p));
    }
  }
}
