package dev.trainyard.controller.forge;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A forge API token. Its {@link #toString()} never shows the value, so a token in a log line, a
 * diagnostic or an exception reads "Token[***]". Read from a mounted Secret file (trailing newline
 * stripped) or from an environment variable.
 */
public final class Token {

  private volatile String value;

  /** The mounted Secret file the token is re-read from; null for a token given by value. */
  private final Path file;

  public Token(String value) {
    this(value, null);
  }

  private Token(String value, Path file) {
    this.value = Objects.requireNonNull(value, "token").strip();
    this.file = file;
    if (this.value.isEmpty()) {
      throw new IllegalArgumentException("empty token");
    }
  }

  /**
   * The token in file {@code path}, e.g. a Secret key mounted at /var/run/secrets/trainyard/github.
   * The file is read again at every use, so a rotated or fixed Secret (the kubelet swaps the
   * mounted file) takes effect without a restart; while the file is unreadable or empty the last
   * value is used.
   */
  public static Token fromFile(Path path) throws IOException {
    return new Token(Files.readString(path, StandardCharsets.UTF_8), path);
  }

  /** The token in environment variable {@code name} of {@code env}, if set and not blank. */
  public static Optional<Token> fromEnv(Map<String, String> env, String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? Optional.empty() : Optional.of(new Token(v));
  }

  /**
   * The secret value, for the Authorization header only: the file's current content when read from
   * one.
   */
  String reveal() {
    if (file != null) {
      try {
        String now = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (!now.isEmpty()) {
          value = now;
        }
      } catch (IOException e) {
        // Mid-rotation the file can be missing for a moment: the last value is the best guess.
      }
    }
    return value;
  }

  @Override
  public String toString() {
    return "Token[***]";
  }
}
