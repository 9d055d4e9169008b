package dev.trainyard.cli;

import dev.trainyard.compiler.manifest.OutputTree;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;

/**
 * Writes an {@link OutputTree} under a root folder (the GitOps working tree), replacing each folder the tree
 * owns as a whole: the new folder is written beside the old one under a temporary name and then renamed into
 * place, so a reader never sees a half-written run and a failure leaves the old folder as it was. Other
 * runs' folders are not touched.
 */
final class TreeWriter {
  private TreeWriter() {}

  /** Writes {@code tree} under {@code root}; throws on I/O failure (an environment problem, exit code 3). */
  static void write(OutputTree tree, Path root) throws IOException {
    for (String folder : tree.ownedFolders()) {
      Path target = root.resolve(folder);
      Files.createDirectories(target.getParent());
      Path staging = Files.createTempDirectory(target.getParent(), ".trainyard-");
      try {
        for (Map.Entry<String, String> file : tree.files().entrySet()) {
          if (file.getKey().startsWith(folder + "/")) {
            Path out = staging.resolve(file.getKey().substring(folder.length() + 1));
            Files.createDirectories(out.getParent());
            Files.writeString(out, file.getValue(), StandardCharsets.UTF_8);
          }
        }
        replace(staging, target);
      } finally {
        deleteTree(staging);
      }
    }
  }

  private static void replace(Path staging, Path target) throws IOException {
    Path old = null;
    if (Files.exists(target)) {
      old = Files.createTempDirectory(target.getParent(), ".trainyard-old-");
      Files.delete(old);
      move(target, old);
    }
    move(staging, target);
    if (old != null) {
      deleteTree(old);
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        Files.delete(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
