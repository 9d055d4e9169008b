package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TreeWriter#apply} (what {@code platform render} writes with) and {@link FolderSnapshot}
 * (what it reads), on real folders.
 */
class TreeWriterApplyTest {
  @TempDir Path temp;

  private Path tree() throws IOException {
    Path root = temp.resolve("tree");
    write(root, "clusters/c/_cluster/old.yaml", "old\n");
    write(root, "clusters/c/ns/_queues/lq.yaml", "lq\n");
    write(root, "clusters/c/kustomization.yaml", "k\n");
    return root;
  }

  private static void write(Path root, String path, String text) throws IOException {
    Files.createDirectories(root.resolve(path).getParent());
    Files.writeString(root.resolve(path), text, StandardCharsets.UTF_8);
  }

  /** Applies {@code edits} under {@code root} through {@code sink}; asserts that it throws. */
  private static IOException applyFails(List<TreeEdit> edits, Path root, TreeWriter.FileSink sink) {
    return assertThrows(IOException.class, () -> TreeWriter.apply(edits, root, sink));
  }

  /**
   * Applies {@link #edits()} under {@code root}, requesting {@code interrupt} right after write
   * number {@code at}; asserts that the apply stops there, before the next file.
   */
  private static InterruptedIOException interruptedAt(
      Path root, int at, TreeWriter.Interrupt interrupt) {
    AtomicInteger writes = new AtomicInteger();
    InterruptedIOException e =
        assertThrows(
            InterruptedIOException.class,
            () ->
                TreeWriter.apply(
                    edits(),
                    root,
                    (file, text) -> {
                      Files.writeString(file, text, StandardCharsets.UTF_8);
                      if (writes.incrementAndGet() == at) {
                        interrupt.request();
                      }
                    },
                    interrupt),
            "request at write " + at);
    assertEquals(at, writes.get(), "stopped before the next file");
    return e;
  }

  /** No {@code .trainyard-*} staging or moved-aside name anywhere under {@code root}. */
  private static void assertNoStaging(Path root) throws IOException {
    try (var files = Files.walk(root)) {
      assertFalse(files.anyMatch(p -> p.getFileName().toString().startsWith(".trainyard")));
    }
  }

  private static List<TreeEdit> edits() {
    return List.of(
        new TreeEdit.ReplaceFolder(
            "clusters/c/_cluster", new TreeMap<>(Map.of("new.yaml", "new\n", "sub/x.yaml", "x\n"))),
        new TreeEdit.DeleteFolder("clusters/c/ns/_queues"),
        new TreeEdit.DeleteFolder("clusters/c/gone/_queues"),
        new TreeEdit.WriteFile("clusters/c/kustomization.yaml", "k2\n"),
        new TreeEdit.WriteFile("clusters/d/kustomization.yaml", "d\n"));
  }

  @Test
  @DisplayName("folders replaced whole, folders deleted, files written; no temporary name left")
  void applies() throws Exception {
    Path root = tree();
    TreeWriter.apply(edits(), root);
    FolderSnapshot after = new FolderSnapshot(root);
    assertEquals(
        new TreeMap<>(
            Map.of(
                "clusters/c/_cluster/new.yaml", "new\n",
                "clusters/c/_cluster/sub/x.yaml", "x\n",
                "clusters/c/kustomization.yaml", "k2\n",
                "clusters/d/kustomization.yaml", "d\n")),
        after.folder(""));
    assertEquals(List.of("_cluster/", "kustomization.yaml", "ns/"), after.children("clusters/c"));
  }

  @Test
  @DisplayName(
      "interrupted while staging (the shutdown hook's request): nothing changed, no .trainyard-* staging and no new empty folder left, settled")
  void interruptedWhileStaging() throws Exception {
    Path root = tree();
    TreeMap<String, String> before = new TreeMap<>(new FolderSnapshot(root).folder(""));
    TreeWriter.Interrupt interrupt = new TreeWriter.Interrupt();
    InterruptedIOException e = interruptedAt(root, 3, interrupt);
    assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
    assertTrue(interrupt.awaitSettled(Duration.ZERO));
    assertFalse(interrupt.completed());
    assertEquals(before, new FolderSnapshot(root).folder(""));
    assertEquals(
        List.of("_cluster/", "kustomization.yaml", "ns/"),
        new FolderSnapshot(root).children("clusters/c"));
    assertFalse(Files.exists(root.resolve("clusters/d")), "the new cluster folder is removed");

    TreeWriter.Interrupt late = new TreeWriter.Interrupt();
    TreeWriter.apply(edits(), root, (file, text) -> Files.writeString(file, text), late);
    assertTrue(late.completed() && late.awaitSettled(Duration.ZERO));
    assertTrue(Files.exists(root.resolve("clusters/d/kustomization.yaml")));
  }

  @Test
  @DisplayName(
      "a write that fails half-way (a full disk) changes nothing and says which file and why")
  void allOrNothing() throws Exception {
    Path root = tree();
    TreeMap<String, String> before = new TreeMap<>(new FolderSnapshot(root).folder(""));
    AtomicInteger writes = new AtomicInteger();
    IOException e =
        applyFails(
            edits(),
            root,
            (file, text) -> {
              if (writes.incrementAndGet() == 4) {
                throw new IOException("No space left on device");
              }
              Files.writeString(file, text);
            });
    assertTrue(
        e.getMessage().startsWith("cannot write " + root.resolve("clusters/d/kustomization.yaml")),
        e.getMessage());
    assertTrue(e.getMessage().endsWith("nothing was written"), e.getMessage());
    assertEquals(before, new FolderSnapshot(root).folder(""));
    assertNoStaging(root);
  }

  @Test
  @DisplayName(
      "the working tree as a snapshot: no .git, no symbolic links, nothing outside the root")
  void folderSnapshot() throws Exception {
    Path root = tree();
    write(root, ".git/config", "[core]\n");
    write(temp, "outside.yaml", "secret\n");
    Files.createSymbolicLink(root.resolve("clusters/c/link.yaml"), temp.resolve("outside.yaml"));
    FolderSnapshot s = new FolderSnapshot(root);
    assertEquals(List.of("clusters/"), s.children(""));
    assertEquals(Optional.empty(), s.read("clusters/c/link.yaml"));
    assertEquals(Optional.empty(), s.read("../outside.yaml"));
    assertEquals(List.of(), s.children("../"));
    assertEquals(Optional.of("k\n"), s.read("clusters/c/kustomization.yaml"));
    assertEquals(Optional.empty(), s.read("clusters/c"), "a folder is not a file");
    assertEquals(List.of(), s.children("clusters/c/kustomization.yaml"), "a file has no children");
    assertTrue(s.hasFolder("clusters/c/ns"));
    assertEquals(Optional.empty(), s.commit());
  }

  @Test
  @DisplayName(
      "a write that fails in new folders removes every folder the apply created for it, deepest first; folders that were there stay")
  void failedWriteRemovesCreatedFolders() throws Exception {
    Path root = tree();
    List<TreeEdit> edits =
        List.of(
            new TreeEdit.WriteFile("clusters/c/kustomization.yaml", "k2\n"),
            new TreeEdit.WriteFile("clusters/e/ns/deep/kustomization.yaml", "e\n"));
    IOException e =
        applyFails(
            edits,
            root,
            (file, text) -> {
              if (file.getParent().endsWith("deep")) {
                throw new IOException("No space left on device");
              }
              Files.writeString(file, text);
            });
    assertTrue(
        e.getMessage().endsWith(": No space left on device; nothing was written"), e.getMessage());
    assertFalse(Files.exists(root.resolve("clusters/e")), "clusters/e, e/ns and e/ns/deep removed");
    assertEquals("k\n", Files.readString(root.resolve("clusters/c/kustomization.yaml")));
    assertEquals(
        List.of("_cluster/", "kustomization.yaml", "ns/"),
        new FolderSnapshot(root).children("clusters/c"));
  }

  @Test
  @DisplayName(
      "an interrupt is seen between two files of one folder, and after the last file before anything is renamed")
  void interruptBetweenFilesAndBeforeRenames() throws Exception {
    Path root = tree();
    TreeMap<String, String> before = new TreeMap<>(new FolderSnapshot(root).folder(""));
    // edits() writes 4 files: _cluster/new.yaml, _cluster/sub/x.yaml, c/ and d/kustomization.yaml.
    for (int at : List.of(1, 4)) {
      TreeWriter.Interrupt interrupt = new TreeWriter.Interrupt();
      interruptedAt(root, at, interrupt);
      assertFalse(interrupt.completed());
      assertEquals(before, new FolderSnapshot(root).folder(""));
      assertFalse(Files.exists(root.resolve("clusters/d")), "the new cluster folder is removed");
    }
  }

  @Test
  @DisplayName(
      "why a step failed, in words: the JDK's exception kind or reason, with the path where that is all it says")
  void why() {
    assertEquals(
        "permission denied (a read-only folder, or owned by another user)",
        TreeWriter.why(new AccessDeniedException("/x")));
    String inTheWay = "a file is in the way where a folder is expected (/x)";
    assertEquals(inTheWay, TreeWriter.why(new FileAlreadyExistsException("/x")));
    assertEquals(inTheWay, TreeWriter.why(new NotDirectoryException("/x")));
    assertEquals(inTheWay, TreeWriter.why(new FileSystemException("/x", null, "Not a directory")));
    assertEquals("no such file or folder (/x)", TreeWriter.why(new NoSuchFileException("/x")));
    assertEquals(
        "no space left on device",
        TreeWriter.why(new FileSystemException("/x", null, "No space left on device")));
    assertEquals("/x", TreeWriter.why(new FileSystemException("/x")), "no reason: the message");
    assertEquals("disk gone", TreeWriter.why(new IOException("disk gone")));
    assertEquals("IOException", TreeWriter.why(new IOException()));
  }

  @Test
  @DisplayName(
      "a rename that fails while the staged folders are put in place puts back what was already replaced and removes what was new")
  void failedRenameRollsBack() throws Exception {
    Path root = tree();
    TreeMap<String, String> before = new TreeMap<>(new FolderSnapshot(root).folder(""));
    List<TreeEdit> edits =
        List.of(
            new TreeEdit.ReplaceFolder(
                "clusters/c/_cluster", new TreeMap<>(Map.of("new.yaml", "new\n"))),
            new TreeEdit.WriteFile("clusters/d/kustomization.yaml", "d\n"),
            new TreeEdit.WriteFile("clusters/c/kustomization.yaml", "k2\n"));
    Path last = root.resolve("clusters/c");
    IOException e =
        applyFails(
            edits,
            root,
            (file, text) -> {
              Files.writeString(file, text);
              if (file.getParent().equals(last)) {
                // The staged kustomization.yaml vanishes before its rename (another
                // process cleaned the folder): the third rename fails.
                Files.delete(file);
              }
            });
    assertTrue(
        e.getMessage()
            .startsWith(
                "cannot rename the new folder to "
                    + root.resolve("clusters/c/kustomization.yaml")
                    + ": no such file or folder ("),
        e.getMessage());
    assertEquals(before, new FolderSnapshot(root).folder(""), "the old _cluster is back");
    assertFalse(Files.exists(root.resolve("clusters/d")), "the new file and its folder are gone");
    assertNoStaging(root);
  }

  @Test
  @DisplayName(
      "an Interrupt says whether it was requested, and is settled only once the apply returned")
  void interruptState() throws Exception {
    TreeWriter.Interrupt interrupt = new TreeWriter.Interrupt();
    assertFalse(interrupt.requested());
    assertFalse(interrupt.awaitSettled(Duration.ofMillis(10)), "no apply returned yet");
    interrupt.request();
    assertTrue(interrupt.requested());
    interrupt.settle();
    assertTrue(interrupt.awaitSettled(Duration.ZERO));
  }
}
