package dev.trainyard.compiler.diagnostic;

import java.util.Locale;

/**
 * How bad a {@link Diagnostic} is. Errors stop the pipeline after the stage that found them;
 * warnings never do.
 */
public enum Severity {
  ERROR,
  WARNING,
  INFO;

  /** The lower-case word printed in {@code file:line:col: error[E101]: ...}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
