package dev.trainyard.controller;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Python example of {@code docs/progress-push.md}, read from the page itself (between the
 * {@code ```python} fence and the next fence), so the example the docs show is the one tests run.
 */
final class DocsExample {

  static final String PYTHON = read();

  private DocsExample() {}

  private static String read() {
    Path page =
        Path.of(System.getProperty("trainyard.repo.root", ".."))
            .toAbsolutePath()
            .normalize()
            .resolve("docs/progress-push.md");
    try {
      String text = Files.readString(page);
      int from = text.indexOf("```python\n");
      int to = text.indexOf("```", from + 10);
      if (from < 0 || to < 0) {
        throw new IllegalStateException(page + " has no ```python example");
      }
      return text.substring(from + "```python\n".length(), to);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
