package dev.trainyard.controller;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * The newest lines of a container's log within a byte budget, read through the pod log API's {@code
 * tailLines} and {@code limitBytes}.
 *
 * <p>The two do not combine as "the last N lines, newest kept": the kubelet finds where the last
 * {@code tailLines} lines start and then writes at most {@code limitBytes} bytes <em>from
 * there</em>, so long lines (a tqdm bar redrawn on one line, a stack trace of a deep model) push
 * the newest lines, the ones a progress or error reader wants, past the cut (Kubernetes API,
 * PodLogOptions: {@code limitBytes} "may not display a complete final line of logging, and may
 * return slightly more or slightly less than the specified limit"). A reply that reaches the budget
 * is therefore asked again with half the lines, down to one line: at most 1 + log2(lines) requests
 * (8 for 200). Halving rather than counting the cut reply's lines: containerd stores a line longer
 * than 16 KiB as several partial entries, which {@code tailLines} counts but the reply joins into
 * one line, so the reply cannot tell how many entries would fit.
 */
final class LogTail {

  private LogTail() {}

  /**
   * The last lines of a log, at most {@code lines} of them and within {@code maxBytes}: {@code
   * read} is asked with a line count (it asks the API server for {@code tailLines} of that and
   * {@code limitBytes} {@code maxBytes}, and returns null when the log cannot be read). Empty when
   * the first ask returns null; when a later ask returns null, the cut reply before it.
   *
   * @param lines the most lines wanted, at least 1
   * @param maxBytes the byte budget of one reply, UTF-8
   */
  static Optional<String> newest(IntFunction<String> read, int lines, int maxBytes) {
    String log = read.apply(lines);
    if (log == null) {
      return Optional.empty();
    }
    while (lines > 1 && cut(log, maxBytes)) {
      lines /= 2;
      String fewer = read.apply(lines);
      if (fewer == null) {
        break;
      }
      log = fewer;
    }
    return Optional.of(log);
  }

  /**
   * Whether {@code log} reached the byte budget, so its newest lines may be missing: 15/16 of it
   * counts (the API allows a reply "slightly less" than the limit); a reply that was whole and
   * merely long is then asked again with fewer lines, which loses only older lines.
   */
  static boolean cut(String log, int maxBytes) {
    return log.getBytes(StandardCharsets.UTF_8).length >= maxBytes - maxBytes / 16;
  }
}
