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

    private final String value;

    public Token(String value) {
        this.value = Objects.requireNonNull(value, "token").strip();
        if (this.value.isEmpty()) {
            throw new IllegalArgumentException("empty token");
        }
    }

    /** The token in file {@code path}, e.g. a Secret key mounted at /var/run/secrets/trainyard/github. */
    public static Token fromFile(Path path) throws IOException {
        return new Token(Files.readString(path, StandardCharsets.UTF_8));
    }

    /** The token in environment variable {@code name} of {@code env}, if set and not blank. */
    public static Optional<Token> fromEnv(Map<String, String> env, String name) {
        String v = env.get(name);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(new Token(v));
    }

    /** The secret value, for the Authorization header only. */
    String reveal() {
        return value;
    }

    @Override
    public String toString() {
        return "Token[***]";
    }
}
