package dev.trainyard.compiler.resolve;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * RFC 1035 labels, the name rule for JobSets: lower-case letters, digits and {@code -}, starting
 * with a letter, ending with a letter or digit, at most 63 characters. No dots: a dotted name
 * breaks the JobSet subdomain and Open MPI's hostfile (mpi-operator#733).
 */
public final class Names {
  private static final Pattern LABEL = Pattern.compile("^[a-z]([-a-z0-9]*[a-z0-9])?$");

  private Names() {}

  /** True when {@code name} is an RFC 1035 label of at most 63 characters. */
  public static boolean isLabel(String name) {
    return name.length() <= 63 && LABEL.matcher(name).matches();
  }

  /** True when {@code name} has a label's characters and shape, whatever its length. */
  public static boolean isLabelShaped(String name) {
    return LABEL.matcher(name).matches();
  }

  /**
   * The closest valid label: lower-cased, every other character turned into {@code -}, runs of
   * {@code -} collapsed, leading non-letters and trailing {@code -} dropped, cut to {@code max}
   * characters ({@code My_Job.1} → {@code my-job-1}). Returns {@code job} when nothing is left.
   */
  public static String sanitize(String name, int max) {
    String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-").replaceAll("-+", "-");
    s = s.replaceFirst("^[^a-z]+", "");
    s = s.substring(0, Math.min(s.length(), max));
    s = s.replaceFirst("-+$", "");
    return s.isEmpty() ? "job" : s;
  }
}
