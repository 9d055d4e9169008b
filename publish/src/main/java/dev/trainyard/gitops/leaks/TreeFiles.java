package dev.trainyard.gitops.leaks;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The files of a GitOps working tree on disk, for {@code trainyard check-secrets DIR}: every
 * regular file below {@code DIR} except {@code .git/}, symbolic links not followed (a link may
 * point anywhere on the machine; git stores only its target's name) but listed, so the check can
 * say what it did not read.
 */
public final class TreeFiles {
  private TreeFiles() {}

  /**
   * The regular files (path relative to the root with {@code /} → content) and the symbolic links
   * (relative paths, sorted) of a tree.
   */
  public record Tree(SortedMap<String, byte[]> files, List<String> links) {
    public Tree {
      links = List.copyOf(links);
    }
  }

  /**
   * The files of the tree at {@code root} (followed when it is itself a link), and the links below
   * it, not followed.
   *
   * @throws IOException naming the file or folder that cannot be read, and why
   */
  public static Tree read(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      throw new IOException(
          root
              + ": "
              + (Files.exists(root, LinkOption.NOFOLLOW_LINKS)
                  ? "not a folder"
                  : "no such folder"));
    }
    // The folder named is read even when it is a link (as `find -H` does); links below it are not.
    Path top = root.toRealPath();
    SortedMap<String, byte[]> files = new TreeMap<>();
    SortedSet<String> links = new TreeSet<>();
    Files.walkFileTree(
        top,
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
            if (attrs.isSymbolicLink()) {
              links.add(top.relativize(file).toString().replace('\\', '/'));
            } else if (attrs.isRegularFile()) {
              try {
                files.put(
                    top.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
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
    return new Tree(files, List.copyOf(links));
  }

  private static String why(IOException e) {
    return e instanceof AccessDeniedException
        ? "permission denied"
        : String.valueOf(e.getMessage());
  }
}
