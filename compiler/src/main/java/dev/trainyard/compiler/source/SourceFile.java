package dev.trainyard.compiler.source;

import java.util.Objects;

/**
 * A user-owned text file as read from disk, before parsing.
 *
 * @param displayPath the path printed in diagnostics (as the user named it, or relative to the
 *     working directory), e.g. {@code examples/pytorch-ddp/train.yaml}
 * @param text the whole content, UTF-8 decoded
 */
public record SourceFile(String displayPath, String text) {
  public SourceFile {
    Objects.requireNonNull(displayPath, "displayPath");
    Objects.requireNonNull(text, "text");
  }
}
