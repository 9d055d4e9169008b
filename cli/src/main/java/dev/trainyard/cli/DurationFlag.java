package dev.trainyard.cli;

import dev.trainyard.compiler.units.Durations;
import java.time.Duration;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The one reading of a duration flag ({@code --timeout}, {@code --interval}, {@code --older-than},
 * …): the grammar of {@link Durations} (train.yaml, platform.yaml and controller.yaml use it too),
 * and one usage error (exit 2) naming the flag, e.g. {@code --interval '5x' is not a duration like
 * 500ms, 90s, 10m, 1h or 1h30m (at most 36500d)}.
 */
final class DurationFlag {
  private DurationFlag() {}

  /**
   * {@code value} of {@code flag} as a duration.
   *
   * @throws ParameterException not a duration, zero, or over 36500d (exit 2)
   */
  static Duration parse(CommandSpec spec, String flag, String value) {
    return Durations.parse(value)
        .orElseThrow(
            () ->
                new ParameterException(
                    spec.commandLine(),
                    flag
                        + " '"
                        + value
                        + (ZERO.matcher(value.trim()).matches()
                            ? "' must be more than 0"
                            : "' is not a duration like 500ms, 90s, 10m, 1h or 1h30m (at most"
                                + " 36500d)")));
  }

  /** A duration in {@link Durations}' grammar that sums to zero ({@code 0s}, {@code 0m0s}). */
  private static final Pattern ZERO = Pattern.compile("(?:0+(?:d|h|m|s|ms))+");
}
