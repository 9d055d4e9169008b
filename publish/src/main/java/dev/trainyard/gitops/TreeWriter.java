package dev.trainyard.gitops;

import dev.trainyard.compiler.manifest.OutputTree;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Writes an {@link OutputTree} under a root folder (the GitOps working tree), whole or not at all:
 * every folder the tree owns (the run's, its queue folders) is first written beside its old self
 * under a temporary name; only when all of them are written are they renamed into place, and a
 * failed rename puts back the folders already moved. A full disk or a read-only folder therefore
 * never leaves the run folder written and the queue folders missing. Other runs' folders are not
 * touched. Errors say what failed and why.
 */
public final class TreeWriter {
  /** Writes one file; tests replace it to fail like a full disk. */
  @FunctionalInterface
  public interface FileSink {
    void write(Path file, String text) throws IOException;
  }

  private static final SecureRandom RANDOM = new SecureRandom();

  private TreeWriter() {}

  /**
   * Writes {@code tree} under {@code root}; throws on I/O failure (an environment problem, exit
   * code 3), also when the new tree is in place but a replaced folder, moved aside as {@code
   * .trainyard-old-NAME-N}, cannot be removed (the message names it).
   */
  public static void write(OutputTree tree, Path root) throws IOException {
    write(tree, root, (file, text) -> Files.writeString(file, text, StandardCharsets.UTF_8));
  }

  public static void write(OutputTree tree, Path root, FileSink sink) throws IOException {
    Map<Path, Path> staged = new LinkedHashMap<>();
    List<Path> created = new ArrayList<>();
    boolean written = false;
    try {
      for (String folder : tree.ownedFolders()) {
        Path target = root.resolve(folder);
        Path parent = target.getParent();
        makeFolders(parent, created);
        // Not Files.createTempDirectory: its 0700 would become the run folder's mode whatever the
        // umask.
        Path staging =
            step(
                "create a temporary folder in " + parent,
                () ->
                    Files.createDirectory(
                        parent.resolve(
                            ".trainyard-" + Long.toUnsignedString(RANDOM.nextLong(), 36))));
        staged.put(target, staging);
        stage(tree, folder, target, staging, sink);
      }
      List<String> notRemoved = swapAll(staged);
      written = true;
      leftOver(notRemoved);
    } finally {
      for (Path staging : staged.values()) {
        deleteQuietly(staging);
      }
      if (!written) {
        removeCreated(created);
      }
    }
  }

  /**
   * Applies {@code edits} under {@code root} (a GitOps working tree), whole or not at all, as
   * {@link #write} does: every new folder and file is written beside its target under a temporary
   * name first; only then are the targets moved aside, the new ones renamed into place and the old
   * ones deleted; a failed rename puts back what was already moved. A {@link TreeEdit.DeleteFolder}
   * of a folder that does not exist does nothing.
   *
   * @throws IOException saying which step failed and why (an environment problem, exit code 3)
   */
  public static void apply(List<TreeEdit> edits, Path root) throws IOException {
    apply(edits, root, (file, text) -> Files.writeString(file, text, StandardCharsets.UTF_8));
  }

  /** As {@link #apply(List, Path)}, writing each file through {@code sink}. */
  public static void apply(List<TreeEdit> edits, Path root, FileSink sink) throws IOException {
    apply(edits, root, sink, new Interrupt());
  }

  /**
   * Lets a JVM shutdown hook (Ctrl-C's SIGINT, SIGTERM) stop an {@link #apply} that is still
   * staging: {@link #request()} makes the apply stop before its next file, remove every {@code
   * .trainyard-*} staging folder and every folder it created, and throw {@link
   * java.io.InterruptedIOException}; the hook waits for that with {@link #awaitSettled}. Once the
   * staged folders are being renamed into place the apply finishes (renames take milliseconds), and
   * {@link #completed()} then says the tree was written whole.
   */
  public static final class Interrupt {
    private volatile boolean requested;
    private volatile boolean completed;
    private final CountDownLatch settled = new CountDownLatch(1);

    /** Asks the apply to stop before its next staging step. */
    public void request() {
      requested = true;
    }

    /**
     * Waits up to {@code timeout} for the apply to return (or for one never started); true when it
     * did.
     */
    public boolean awaitSettled(Duration timeout) throws InterruptedException {
      return settled.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether {@link #request()} was called. */
    public boolean requested() {
      return requested;
    }

    /** Whether every edit reached the tree. */
    public boolean completed() {
      return completed;
    }

    /** Marks the apply as returned (also for one that was never started). */
    public void settle() {
      settled.countDown();
    }

    private void check() throws InterruptedIOException {
      if (requested) {
        throw new InterruptedIOException(
            "interrupted while staging: the staged folders were removed; nothing was written");
      }
    }
  }

  /**
   * As {@link #apply(List, Path, FileSink)}, stopped by {@code interrupt} before each staging step
   * (throwing {@link java.io.InterruptedIOException}); settles {@code interrupt} when it returns.
   */
  public static void apply(List<TreeEdit> edits, Path root, FileSink sink, Interrupt interrupt)
      throws IOException {
    Map<Path, Path> staged = new LinkedHashMap<>();
    List<Path> created = new ArrayList<>();
    try {
      for (TreeEdit edit : edits) {
        interrupt.check();
        Path target = root.resolve(edit.path());
        Path parent = target.getParent();
        if (edit instanceof TreeEdit.DeleteFolder) {
          staged.put(target, null);
          continue;
        }
        makeFolders(parent, created);
        Path staging = parent.resolve(".trainyard-" + Long.toUnsignedString(RANDOM.nextLong(), 36));
        staged.put(target, staging);
        if (edit instanceof TreeEdit.WriteFile w) {
          step(
              "write " + target,
              () -> {
                sink.write(staging, w.text());
                return staging;
              });
        } else if (edit instanceof TreeEdit.ReplaceFolder r) {
          step("create a temporary folder in " + parent, () -> Files.createDirectory(staging));
          for (Map.Entry<String, String> file : r.files().entrySet()) {
            interrupt.check();
            Path out = staging.resolve(file.getKey());
            step(
                "create the folder " + out.getParent(),
                () -> Files.createDirectories(out.getParent()));
            step(
                "write " + target.resolve(file.getKey()),
                () -> {
                  sink.write(out, file.getValue());
                  return out;
                });
          }
        }
      }
      interrupt.check();
      List<String> notRemoved = swapAll(staged);
      interrupt.completed = true;
      leftOver(notRemoved);
    } finally {
      for (Path staging : staged.values()) {
        if (staging != null) {
          deleteQuietly(staging);
        }
      }
      if (!interrupt.completed) {
        removeCreated(created);
      }
      interrupt.settle();
    }
  }

  /**
   * Creates {@code dir} and its missing ancestors name by name, as {@code mkdir -p} does, adding
   * each folder it created to {@code created}: in {@code out/x/../d} with {@code x} missing, the
   * folder {@code x} is made so that {@code x/..} resolves. ({@code Files.createDirectories} drops
   * {@code x/..} when it relativizes, creates {@code out/d} alone, and the staging folder under
   * {@code out/x/../d} then failed, leaving those folders behind.)
   *
   * @throws IOException "cannot create the folder F: why; nothing was written", F the folder that
   *     could not be made
   */
  private static void makeFolders(Path dir, List<Path> created) throws IOException {
    List<Path> missing = new ArrayList<>();
    for (Path p = dir; p != null && !Files.exists(p); p = p.getParent()) {
      missing.add(0, p);
    }
    for (Path folder : missing) {
      try {
        Files.createDirectory(folder);
        created.add(folder);
      } catch (FileAlreadyExistsException e) {
        // A ".." whose folder was just made, or another writer's folder, is fine; a file or a
        // dangling symbolic link there is in the way.
        if (!Files.isDirectory(folder)) {
          throw cannotCreate(folder, e);
        }
      } catch (IOException e) {
        throw cannotCreate(folder, e);
      }
    }
  }

  /**
   * "cannot create the folder F: why": F is the folder that could not be made (not the deepest one
   * wanted), and a file in the way above it is named, not F.
   */
  private static IOException cannotCreate(Path folder, IOException e) {
    IOException reason = e;
    // createDirectory reports ENOTDIR as a FileSystemException with this reason (on Linux).
    if (e instanceof FileSystemException fs && "Not a directory".equals(fs.getReason())) {
      for (Path p = folder.getParent(); p != null; p = p.getParent()) {
        if (Files.exists(p) && !Files.isDirectory(p)) {
          reason = new NotDirectoryException(p.toString());
          break;
        }
      }
    }
    return cannot("create the folder " + folder, reason, e);
  }

  /** Removes the folders {@link #makeFolders} made, deepest first, each only when empty. */
  private static void removeCreated(List<Path> created) {
    for (int i = created.size() - 1; i >= 0; i--) {
      try {
        Files.deleteIfExists(created.get(i));
      } catch (IOException e) {
        // Not empty (another writer's file) or gone: leave it.
      }
    }
  }

  private static void stage(
      OutputTree tree, String folder, Path target, Path staging, FileSink sink) throws IOException {
    for (Map.Entry<String, String> file : tree.files().entrySet()) {
      if (file.getKey().startsWith(folder + "/")) {
        Path out = staging.resolve(file.getKey().substring(folder.length() + 1));
        step(
            "create the folder " + out.getParent(), () -> Files.createDirectories(out.getParent()));
        step(
            "write " + target.resolve(file.getKey().substring(folder.length() + 1)),
            () -> {
              sink.write(out, file.getValue());
              return out;
            });
      }
    }
  }

  /**
   * Renames every staged folder (or file) into place, or only moves the target aside where nothing
   * is staged (a deletion); on a failure, puts back what was already replaced.
   */
  private static List<String> swapAll(Map<Path, Path> staged) throws IOException {
    List<Path[]> done = new ArrayList<>();
    try {
      for (Map.Entry<Path, Path> e : staged.entrySet()) {
        Path target = e.getKey();
        Path old = null;
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
          old =
              target.resolveSibling(
                  ".trainyard-old-" + target.getFileName() + "-" + System.nanoTime());
          Path from = target;
          Path to = old;
          step("move the old " + target + " aside", () -> move(from, to));
        }
        done.add(new Path[] {target, old});
        if (e.getValue() != null) {
          step("rename the new folder to " + target, () -> move(e.getValue(), target));
        }
      }
    } catch (IOException failed) {
      rollBack(done);
      throw failed;
    }
    List<String> notRemoved = new ArrayList<>();
    for (Path[] d : done) {
      if (d[1] != null) {
        try {
          deleteTree(d[1]);
        } catch (IOException e) {
          notRemoved.add(d[1] + " (" + why(e) + ")");
        }
      }
    }
    return notRemoved;
  }

  /**
   * The new tree is in place, but a replaced (or deleted) folder, moved aside under a {@code
   * .trainyard-old-} name, could not be removed: an error, because a GitOps repo would commit it
   * and Flux or Argo CD would apply what it holds again.
   */
  private static void leftOver(List<String> notRemoved) throws IOException {
    if (!notRemoved.isEmpty()) {
      throw new IOException(
          "the new files are in place, but the replaced copy could not be removed: "
              + String.join(", ", notRemoved)
              + "; delete it before you commit the folder, or its manifests would be applied too");
    }
  }

  private static void rollBack(List<Path[]> done) {
    for (int i = done.size() - 1; i >= 0; i--) {
      Path target = done.get(i)[0];
      Path old = done.get(i)[1];
      try {
        if (old != null && Files.exists(old)) {
          deleteQuietly(target);
          move(old, target);
        } else if (old == null) {
          deleteQuietly(target);
        }
      } catch (IOException e) {
        // Best effort: the error that made us roll back is the one reported.
      }
    }
  }

  private static Path move(Path from, Path to) throws IOException {
    try {
      return Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      return Files.move(from, to);
    }
  }

  @FunctionalInterface
  private interface Step {
    Path run() throws IOException;
  }

  /**
   * Runs one file system step; a failure says which step and why ("cannot write X: no space left on
   * device").
   */
  private static Path step(String what, Step step) throws IOException {
    try {
      return step.run();
    } catch (IOException e) {
      throw cannot(what, e, e);
    }
  }

  /** "cannot WHAT: why; nothing was written", the one form of a failed step's error. */
  private static IOException cannot(String what, IOException reason, IOException cause) {
    return new IOException("cannot " + what + ": " + why(reason) + "; nothing was written", cause);
  }

  /** Why an I/O call failed, in words (the JDK's messages are often just the path). */
  static String why(IOException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied (a read-only folder, or owned by another user)";
    }
    if (e instanceof FileAlreadyExistsException || e instanceof NotDirectoryException) {
      return "a file is in the way where a folder is expected ("
          + ((FileSystemException) e).getFile()
          + ")";
    }
    if (e instanceof NoSuchFileException) {
      return "no such file or folder (" + ((FileSystemException) e).getFile() + ")";
    }
    if (e instanceof FileSystemException fs && "Not a directory".equalsIgnoreCase(fs.getReason())) {
      return "a file is in the way where a folder is expected (" + fs.getFile() + ")";
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason().substring(0, 1).toLowerCase(Locale.ROOT) + fs.getReason().substring(1);
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static void deleteQuietly(Path dir) {
    try {
      deleteTree(dir);
    } catch (IOException e) {
      // A leftover .trainyard-* folder is harmless and visible; the write's own outcome is what
      // counts.
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      Files.delete(dir);
      return;
    }
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
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
