package dev.trainyard.compiler.provenance;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Checked before a single byte of train.yaml is read: a train.yaml inside a git work tree whose
 * real path (after every symlink) leaves that work tree is refused (E305) without being opened.
 * Reading it first would quote whatever it points at — a CI runner's credentials file, a kubeconfig
 * — in diagnostics that end up in a pull-request comment. Outside any work tree (a local {@code
 * validate} of one's own file) nothing is checked.
 */
public final class RepositoryBoundary {
  private RepositoryBoundary() {}

  /**
   * The E305 diagnostic when {@code trainYaml} resolves outside the work tree that contains its
   * path, else none.
   *
   * @param trainYaml the file as the user named it (not yet resolved)
   * @param displayPath how diagnostics name it
   */
  public static List<Diagnostic> check(Path trainYaml, String displayPath) {
    return check(trainYaml, displayPath, new GitSourceInspector());
  }

  /**
   * As {@link #check(Path, String)}, with the work trees and real paths {@code inspector} found for
   * this call's earlier train.yaml files (and keeps for its later compiles).
   */
  public static List<Diagnostic> check(
      Path trainYaml, String displayPath, GitSourceInspector inspector) {
    Path file = trainYaml.toAbsolutePath().normalize();
    Optional<Path> workTree = inspector.workTree(file);
    if (workTree.isEmpty()) {
      return List.of();
    }
    try {
      Path root = inspector.realPath(workTree.get());
      Path real = inspector.realPath(file);
      // A file inside the root relativizes to a path below it, which outside() lets pass; one
      // outside climbs out
      // first (`../`): the root, a folder, cannot lie below a file.
      return GitSourceInspector.outside(
          root.relativize(real).toString().replace('\\', '/'), SourceLocation.ofFile(displayPath));
    } catch (IOException | IllegalArgumentException e) {
      return List.of(); // missing or unreadable: the reader reports it, with nothing to quote
    }
  }
}
