package dev.trainyard.compiler;

import java.util.Optional;

/**
 * Read access to the files of a GitOps tree that is not on disk (e.g. a commit in a GitOps
 * repository), by path relative to the tree's root with {@code /} separators ({@code
 * clusters/local/default/run-1/secret-run-1.yaml}). Lets the compiler reuse an existing run's SSH
 * Secret when it publishes straight into git.
 */
@FunctionalInterface
public interface GitOpsFiles {
  /** The file's text (UTF-8), or empty when the tree has no such file. */
  Optional<String> read(String path);
}
