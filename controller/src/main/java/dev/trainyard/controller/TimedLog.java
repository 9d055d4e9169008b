package dev.trainyard.controller;

import dev.trainyard.controller.state.LogProgress;
import dev.trainyard.controller.state.Progress;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A container log read with {@code timestamps=true}: each line starts with the time the kubelet
 * received it, RFC 3339 with nanoseconds, and a space ({@code 2026-12-02T08:00:00.123456789Z step
 * 3/10}; Kubernetes API, PodLogOptions.timestamps). A tqdm bar's {@code \r} updates share the
 * line's time.
 */
final class TimedLog {

  private TimedLog() {}

  /**
   * The progress {@code log} shows, each line read at its own time ({@code now} for a line without
   * one); empty without a progress line.
   */
  static Optional<Progress> progress(String log, Instant now) {
    return parse(log, now).current();
  }

  /** {@code log} read line by line, each at its own time ({@code now} for a line without one). */
  static LogProgress parse(String log, Instant now) {
    LogProgress parser = new LogProgress();
    for (String line : log.split("\n")) {
      int space = line.indexOf(' ');
      Instant at = now;
      String text = line;
      if (space > 0) {
        try {
          at = Instant.parse(line.substring(0, space));
          text = line.substring(space + 1);
        } catch (DateTimeParseException e) {
          at = now;
        }
      }
      parser.acceptText(text, at);
    }
    return parser;
  }
}
