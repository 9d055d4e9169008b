package dev.trainyard.gitops.preview;

import java.util.Objects;

/**
 * Something a reviewer must not miss.
 *
 * @param severity {@link Severity#REFUSED}: the cluster would refuse or never run it; {@link
 *     Severity#WARNING}: runs, but maybe not as expected
 * @param code a stable id tools match on ({@code immutable-field}, {@code runtime-changed}, {@code
 *     image-changed}, {@code queue-missing}, {@code not-covered}, {@code over-quota}, {@code
 *     borrowing}, {@code queue-total}, {@code plain-secret}, {@code immutable-secret}, {@code
 *     unreadable-jobset}, {@code unreadable-file}, {@code yaml-aliases})
 * @param run the run it is about, or "" for a whole queue
 * @param message what and why, in one sentence
 */
public record CallOut(Severity severity, String code, String run, String message)
    implements Comparable<CallOut> {
  /** How bad it is. */
  public enum Severity {
    REFUSED("refused"),
    WARNING("warning");

    private final String label;

    Severity(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  public CallOut {
    Objects.requireNonNull(severity, "severity");
    Objects.requireNonNull(code, "code");
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public int compareTo(CallOut o) {
    int c = severity.compareTo(o.severity);
    c = c != 0 ? c : run.compareTo(o.run);
    c = c != 0 ? c : code.compareTo(o.code);
    return c != 0 ? c : message.compareTo(o.message);
  }
}
