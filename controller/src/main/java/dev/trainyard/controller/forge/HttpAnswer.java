package dev.trainyard.controller.forge;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** One HTTP response: status, headers (names lower-cased) and body text. */
public record HttpAnswer(int status, Map<String, List<String>> headers, String body) {

  public HttpAnswer {
    Map<String, List<String>> lower = new TreeMap<>();
    headers.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), List.copyOf(v)));
    headers = Map.copyOf(lower);
    body = body == null ? "" : body;
  }

  /** The first value of header {@code name} (case-insensitive). */
  public Optional<String> header(String name) {
    List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
    return values == null || values.isEmpty()
        ? Optional.empty()
        : Optional.of(values.get(0).strip());
  }

  /** Whether the status is 2xx. */
  public boolean ok() {
    return status >= 200 && status < 300;
  }
}
