package dev.trainyard.compiler;

import dev.trainyard.compiler.policy.RunScripts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The scripts {@code run} names, read from the working directory next to train.yaml (the folder
 * pods clone and start in). Only regular files inside that folder are read — no absolute path, no
 * {@code ..}, no symlink that leads out — at most {@link #MAX_BYTES} of UTF-8; anything else is
 * "not readable", and the lint falls back to the command's shape. Never throws.
 *
 * <p>One instance serves one compile, on one thread: each file is read once however many rules ask
 * (pyproject.toml is read for its dependencies and for requires-python), and the folder's real path
 * is taken once. A file that does not exist costs one {@code stat}: resolving the real path of a
 * missing file made the JDK build an exception per rule and file (with the real-path walk, a tenth
 * of a warm compile, issue #24).
 */
final class WorkdirScripts implements RunScripts {
  /** Larger files are not training scripts worth reading (1 MiB). */
  static final long MAX_BYTES = 1L << 20;

  private final Path workdir;

  /** What {@link #read} answered, by the path it was given. */
  private final Map<String, Optional<String>> answers = new HashMap<>();

  /** The working directory's real path, once a file needed it. */
  private Path root;

  /**
   * @param workdir the working directory of {@code run} on this machine
   */
  WorkdirScripts(Path workdir) {
    this.workdir = workdir;
  }

  @Override
  public Optional<String> read(String path) {
    Optional<String> known = answers.get(path);
    if (known == null) {
      known = readOnce(path);
      answers.put(path, known);
    }
    return known;
  }

  private Optional<String> readOnce(String path) {
    // "" resolves to the folder itself, which is no regular file.
    if (path.startsWith("/") || path.contains("$") || Path.of(path).normalize().startsWith("..")) {
      return Optional.empty();
    }
    try {
      Path named = workdir.resolve(path);
      if (!named.toFile().isFile()) {
        return Optional.empty(); // java.io.File answers from one stat, without an exception
      }
      if (path.indexOf('/') < 0 && !path.equals("..")) {
        // A file of the folder itself that is no symlink cannot lead out: no real path needed.
        BasicFileAttributes own =
            Files.readAttributes(named, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (own.isRegularFile()) {
          return own.size() > MAX_BYTES ? Optional.empty() : Optional.of(text(named));
        }
      }
      if (root == null) {
        root = workdir.toRealPath();
      }
      Path file = root.resolve(path).toRealPath();
      if (!file.startsWith(root)) {
        return Optional.empty();
      }
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      if (!attributes.isRegularFile() || attributes.size() > MAX_BYTES) {
        return Optional.empty();
      }
      return Optional.of(text(file));
    } catch (IOException | RuntimeException e) {
      // CharacterCodingException is an IOException; InvalidPathException a RuntimeException: both
      // "not readable".
      return Optional.empty();
    }
  }

  /**
   * The file's text; malformed UTF-8 is a {@code CharacterCodingException}. {@code new String}
   * replaces each malformed sequence with U+FFFD, so a text without one was valid; only a text with
   * one is decoded again strictly (U+FFFD may also be written in the file, validly).
   */
  private static String text(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    String text = new String(bytes, StandardCharsets.UTF_8);
    if (text.indexOf('\uFFFD') >= 0) {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
    }
    return text;
  }
}
