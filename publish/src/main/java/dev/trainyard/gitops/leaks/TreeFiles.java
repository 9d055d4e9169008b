package dev.trainyard.gitops.leaks;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The files of a GitOps working tree on disk, for {@code trainyard check-secrets DIR}: every
 * regular file below {@code DIR} except {@code .git/}, symlinks not followed (a link may point
 * anywhere on the machine).
 */
public final class TreeFiles {
  private TreeFiles() {}

  /**
   * Path relative to {@code root} with {@code /} → content.
   *
   * @throws IOException naming the file or folder that cannot be read, and why
   */
  public static SortedMap<String, byte[]> read(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      throw new IOException(
          root
              + ": "
              + (Files.exists(root, LinkOption.NOFOLLOW_LINKS)
                  ? "not a folder"
                  : "no such folder"));
    }
    SortedMap<String, byte[]> files = new TreeMap<>();
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            return dir.getFileName() != null && dir.getFileName().toString().equals(".git")
                ? FileVisitResult.SKIP_SUBTREE
                : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            if (attrs.isRegularFile()) {
              try {
                files.put(
                    root.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
              } catch (IOException e) {
                throw new IOException("cannot read " + file + ": " + why(e), e);
              }
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
            throw new IOException("cannot read " + file + ": " + why(e), e);
          }
        });
    return files;
  }

  private static String why(IOException e) {
    return e instanceof AccessDeniedException
        ? "permission denied"
        : String.valueOf(e.getMessage());
  }
}
