package dev.trainyard.compiler;

import dev.trainyard.compiler.policy.RunScripts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The scripts {@code run} names, read from the working directory next to train.yaml (the folder
 * pods clone and start in). Only regular files inside that folder are read — no absolute path, no
 * {@code ..}, no symlink that leads out — at most {@link #MAX_BYTES} of UTF-8; anything else is
 * "not readable", and the lint falls back to the command's shape. Never throws.
 */
final class WorkdirScripts implements RunScripts {
  /** Larger files are not training scripts worth reading (1 MiB). */
  static final long MAX_BYTES = 1L << 20;

  private final Path workdir;

  /**
   * @param workdir the working directory of {@code run} on this machine
   */
  WorkdirScripts(Path workdir) {
    this.workdir = workdir;
  }

  @Override
  public Optional<String> read(String path) {
    // "" resolves to the folder itself, which is no regular file.
    if (path.startsWith("/") || path.contains("$") || Path.of(path).normalize().startsWith("..")) {
      return Optional.empty();
    }
    try {
      Path root = workdir.toRealPath();
      Path file = root.resolve(path).toRealPath();
      if (!file.startsWith(root) || !Files.isRegularFile(file) || Files.size(file) > MAX_BYTES) {
        return Optional.empty();
      }
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(Files.readAllBytes(file)))
              .toString());
    } catch (IOException | RuntimeException e) {
      // CharacterCodingException is an IOException; InvalidPathException a RuntimeException: both
      // "not readable".
      return Optional.empty();
    }
  }
}
