package dev.trainyard.controller.state;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why a rank died, in one line, from the tail of its log: the last line of a Python exception
 * ({@code RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x7 and 8x1)}, also as torchrun
 * prefixes it with {@code [rank0]: }), or a shell's {@code Killed} for a process the kernel killed.
 * torchrun's own {@code ChildFailedError} (its message is the failed-ranks table) is skipped, and
 * when its "Root Cause" names a rank that rank's exception is taken. Checked against recorded
 * output ({@code progress/fail-ddp.log}: torch 2.13 DDP under torchrun; {@code killed.log}: bash
 * 5). The line is not masked here: callers mask it with the credential patterns before showing it.
 */
public final class ErrorLine {

  /** The most characters of the line kept (a description has 140 in all). */
  static final int MAX = 120;

  private static final Pattern EXCEPTION =
      Pattern.compile(
          "^(?:\\[rank(\\d+)\\]:\\s*)?((?:[A-Za-z_][\\w]*\\.)*[A-Za-z_]\\w*(?:Error|Exception|Interrupt|Exit)):\\s*(\\S.*)$");
  private static final Pattern ROOT_RANK = Pattern.compile("^\\s*rank\\s*:\\s*(\\d+)\\b");
  private static final Pattern KILLED = Pattern.compile("^(?:.*\\s)?Killed(?:\\s.*)?$");

  private ErrorLine() {}

  /** The error line of {@code tail} (its lines in order), stripped; empty when none is seen. */
  public static Optional<String> of(String tail) {
    List<String> lines = tail.lines().map(String::strip).toList();
    String rootRank = rootCauseRank(lines);
    String last = null;
    String ofRoot = null;
    for (String line : lines) {
      Matcher m = EXCEPTION.matcher(line);
      if (m.matches() && !m.group(2).endsWith("ChildFailedError")) {
        String text = m.group(2) + ": " + m.group(3).strip();
        last = text;
        if (rootRank != null && rootRank.equals(m.group(1))) {
          ofRoot = text;
        }
      } else if (KILLED.matcher(line).matches()) {
        last = "Killed";
      }
    }
    return Optional.ofNullable(ofRoot != null ? ofRoot : last).map(t -> Description.fit(t, MAX));
  }

  /** The rank torchrun's "Root Cause (first observed failure)" section names, else null. */
  private static String rootCauseRank(List<String> lines) {
    boolean inRoot = false;
    for (String line : lines) {
      if (line.startsWith("Root Cause")) {
        inRoot = true;
      } else if (inRoot) {
        Matcher m = ROOT_RANK.matcher(line);
        if (m.find()) {
          return m.group(1);
        }
      }
    }
    return null;
  }

  /**
   * {@code description} of a failure with {@code line} added before its ", attempt n of m": "failed
   * (user error): … on node n0: RuntimeError: …, attempt 1 of 4", the line cut to fit {@link
   * Description#MAX}.
   */
  public static String into(String description, String line) {
    int i = description.lastIndexOf(", attempt ");
    String head = i < 0 ? description : description.substring(0, i);
    String tail = i < 0 ? "" : description.substring(i);
    return Description.fit(head + ": ", line, tail, Description.MAX);
  }
}
