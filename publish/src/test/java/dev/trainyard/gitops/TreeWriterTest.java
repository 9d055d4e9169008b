package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.manifest.OutputTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compile's output lands whole or not at all, and a file system error says what failed and why.
 */
class TreeWriterTest {
  @TempDir Path temp;

  private static OutputTree tree(String marker) {
    TreeMap<String, String> files = new TreeMap<>();
    files.put("clusters/local/default/run-1/jobset.yaml", marker);
    files.put("clusters/local/default/_queues/localqueue.yaml", marker);
    files.put("clusters/local/_cluster/clusterqueue.yaml", marker);
    return new OutputTree(
        files,
        List.of(
            "clusters/local/default/run-1",
            "clusters/local/default/_queues",
            "clusters/local/_cluster"));
  }

  private static List<String> files(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile)
          .map(p -> root.relativize(p) + "=" + read(p))
          .sorted()
          .toList();
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  @DisplayName(
      "the disk fills while writing the last folder: nothing new lands, the old folders stay, the error says 'no space left on device'")
  void fullDisk() throws Exception {
    TreeWriter.write(tree("old"), temp);
    List<String> before = files(temp);
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                TreeWriter.write(
                    tree("new"),
                    temp,
                    (file, text) -> {
                      if (file.toString().contains("clusterqueue")) {
                        throw new FileSystemException(
                            file.toString(), null, "No space left on device");
                      }
                      Files.writeString(file, text);
                    }));
    assertEquals(
        "cannot write "
            + temp.resolve("clusters/local/_cluster/clusterqueue.yaml")
            + ": no space left on device; nothing was written",
        e.getMessage());
    assertEquals(before, files(temp));
    try (Stream<Path> walk = Files.walk(temp)) {
      assertFalse(
          walk.anyMatch(p -> p.getFileName().toString().startsWith(".trainyard-")),
          "no staging folder is left behind");
    }
  }

  @Test
  @DisplayName(
      "a first write that fails half-way leaves no run folder without its queue folders, and no folder it created")
  void firstWriteWholeOrNothing() throws Exception {
    Path root = temp.resolve("out/gitops");
    assertThrows(
        IOException.class,
        () ->
            TreeWriter.write(
                tree("new"),
                root,
                (file, text) -> {
                  if (file.toString().contains("clusterqueue")) {
                    throw new FileSystemException(file.toString(), null, "No space left on device");
                  }
                  Files.writeString(file, text);
                }));
    try (Stream<Path> left = Files.list(temp)) {
      assertEquals(List.of(), left.toList(), "not even out/");
    }
  }

  @Test
  @DisplayName(
      "a root through a missing folder and `..` (out/x/../d) is made as mkdir -p makes it: x, then d beside it")
  void rootThroughMissingFolder() throws Exception {
    TreeWriter.write(tree("one\n"), temp.resolve("out/x/../d"));
    assertEquals(
        List.of(
            "clusters/local/_cluster/clusterqueue.yaml=one\n",
            "clusters/local/default/_queues/localqueue.yaml=one\n",
            "clusters/local/default/run-1/jobset.yaml=one\n"),
        files(temp.resolve("out/d")));
    assertTrue(Files.isDirectory(temp.resolve("out/x")));

    Files.createSymbolicLink(temp.resolve("dangling"), temp.resolve("nowhere"));
    IOException e =
        assertThrows(
            IOException.class, () -> TreeWriter.write(tree("x"), temp.resolve("dangling/gitops")));
    assertEquals(
        "cannot create the folder "
            + temp.resolve("dangling")
            + ": a file is in the way where a folder is expected ("
            + temp.resolve("dangling")
            + "); nothing was written",
        e.getMessage());
    assertFalse(Files.exists(temp.resolve("nowhere")));
  }

  @Test
  @DisplayName(
      "a file where a folder is expected, and a folder in /proc: the error names the step and the reason")
  void fileInTheWay() throws Exception {
    Files.createDirectories(temp.resolve("clusters"));
    Files.writeString(temp.resolve("clusters/local"), "not a folder");
    IOException e = assertThrows(IOException.class, () -> TreeWriter.write(tree("x"), temp));
    assertEquals(
        "cannot create the folder "
            + temp.resolve("clusters/local/default")
            + ": a file is in the way where a folder is expected ("
            + temp.resolve("clusters/local")
            + "); nothing was written",
        e.getMessage(),
        "names the file in the way, not the folder wanted");
    Files.writeString(temp.resolve("afile"), "x");
    IOException below =
        assertThrows(IOException.class, () -> TreeWriter.write(tree("x"), temp.resolve("afile/a")));
    assertEquals(
        "cannot create the folder "
            + temp.resolve("afile/a")
            + ": a file is in the way where a folder is expected ("
            + temp.resolve("afile")
            + "); nothing was written",
        below.getMessage(),
        "names the first folder that could not be made");
    IOException proc =
        assertThrows(
            IOException.class, () -> TreeWriter.write(tree("x"), Path.of("/proc/trainyard-test")));
    assertTrue(
        proc.getMessage().startsWith("cannot create the folder /proc/trainyard-test: "),
        proc.getMessage());
    assertFalse(
        proc.getMessage().endsWith(": /proc/trainyard-test; nothing was written"),
        proc.getMessage());
  }

  @Test
  @DisplayName(
      "a write puts every file of the tree in place under its owned folders, and a second write replaces them")
  void writes() throws Exception {
    Path root = temp.resolve("gitops");
    for (String marker : List.of("one\n", "two\n")) {
      TreeWriter.write(tree(marker), root);
      assertEquals(
          List.of(
              "clusters/local/_cluster/clusterqueue.yaml=" + marker,
              "clusters/local/default/_queues/localqueue.yaml=" + marker,
              "clusters/local/default/run-1/jobset.yaml=" + marker),
          files(root));
    }
  }

  @Test
  @DisplayName(
      "the replaced run folder cannot be removed (a read-only mount inside it): the new files are in place and the error names the leftover .trainyard-old- folder, which git would commit and Flux apply")
  void replacedCopyLeftOver() throws Exception {
    Path root = temp.resolve("gitops");
    TreeWriter.write(tree("one\n"), root);
    Path run = root.resolve("clusters/local/default/run-1");
    Path ro = Files.createDirectories(run.resolve("ro"));
    Path source = Files.createDirectories(temp.resolve("source"));
    Files.writeString(source.resolve("kept"), "x");
    Assumptions.assumeTrue(
        sh("mount --bind " + source + " " + ro + " && mount -o remount,bind,ro " + ro),
        "NOT RUN: a read-only bind mount needs root (mount --bind failed)");
    Path old = null;
    try {
      IOException e = assertThrows(IOException.class, () -> TreeWriter.write(tree("two\n"), root));
      try (Stream<Path> list = Files.list(run.getParent())) {
        old =
            list.filter(p -> p.getFileName().toString().startsWith(".trainyard-old-run-1-"))
                .findFirst()
                .orElseThrow();
      }
      assertEquals(
          "the new files are in place, but the replaced copy could not be removed: "
              + old
              + " (read-only file system); delete it before you commit the folder, or its"
              + " manifests would be applied too",
          e.getMessage());
      assertEquals("two\n", Files.readString(run.resolve("jobset.yaml")));
      assertEquals(
          "two\n", Files.readString(root.resolve("clusters/local/_cluster/clusterqueue.yaml")));
    } finally {
      sh("umount " + (old != null ? old.resolve("ro") : ro));
    }
  }

  private static boolean sh(String command) throws Exception {
    Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
  }
}
