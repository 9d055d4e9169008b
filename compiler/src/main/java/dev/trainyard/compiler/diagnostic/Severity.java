package dev.trainyard.compiler.diagnostic;

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
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
