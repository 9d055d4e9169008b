package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard init}: the exact file it writes per runtime, the line it prints, the bounds of
 * {@code --nodes}, an unknown runtime, and {@code --force}.
 */
class InitCommandTest {
  private static final String HEAD =
      "# yaml-language-server: $schema=https://trainyard.dev/schemas/train.v1.schema.json\n"
          + "# Fields and defaults: `trainyard schema`. Compile: `trainyard compile train.yaml`.\n";

  @TempDir Path temp;

  @Test
  @DisplayName(
      "the default runtime (torch) writes no runtime line and runs torchrun; the command prints where it wrote and how to compile")
  void torchByDefault() throws Exception {
    Path dir = temp.resolve("proj");
    MainTest.Run r = MainTest.run("init", dir.toString());
    assertEquals(0, r.exit(), r.err());
    Path file = dir.resolve("train.yaml");
    assertEquals("wrote " + file + "; compile it with: trainyard compile " + file + "\n", r.out());
    assertEquals("", r.err());
    assertEquals(HEAD + "run: torchrun train.py\nnodes: 1\n", Files.readString(file));
    try (Stream<Path> left = Files.list(dir)) {
      assertEquals(1, left.count(), "no temporary file left beside train.yaml");
    }
  }

  @Test
  @DisplayName(
      "another runtime is named in the file and runs python; --schema sets the editor line")
  void otherRuntime() throws Exception {
    Path dir = temp.resolve("proj");
    MainTest.Run r =
        MainTest.run(
            "init", dir.toString(), "--runtime", "mpi", "--nodes", "1024", "--schema", "s.json");
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        "# yaml-language-server: $schema=s.json\n"
            + HEAD.substring(HEAD.indexOf('\n') + 1)
            + "runtime: mpi\nrun: python train.py\nnodes: 1024\n",
        Files.readString(dir.resolve("train.yaml")));
  }

  @Test
  @DisplayName(
      "DIR is read against the working folder and named as typed; a file as DIR, or above it, is a usage error (exit 2) naming it")
  void relativeFolderAndFile() throws Exception {
    MainTest.Run r = SubmitCommandTest.runIn(temp, Map.of(), "init", "proj");
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        "wrote proj/train.yaml; compile it with: trainyard compile proj/train.yaml\n", r.out());
    assertTrue(Files.isRegularFile(temp.resolve("proj/train.yaml")));
    MainTest.Run odd = SubmitCommandTest.runIn(temp, Map.of(), "init", "my 'dir'$(x)");
    assertEquals(0, odd.exit(), odd.err());
    assertEquals(
        "wrote my 'dir'$(x)/train.yaml; compile it with: trainyard compile 'my '\\''dir'\\''$(x)/train.yaml'\n",
        odd.out(),
        "the command to paste is one shell word: nothing in the name runs");
    MainTest.Run dash = SubmitCommandTest.runIn(temp, Map.of(), "init", "--", "-dash");
    assertEquals(0, dash.exit(), dash.err());
    assertEquals(
        "wrote -dash/train.yaml; compile it with: trainyard compile ./-dash/train.yaml\n",
        dash.out(),
        "a name starting with - is no option when pasted");
    Files.writeString(temp.resolve("a-file"), "x");
    MainTest.Run file = SubmitCommandTest.runIn(temp, Map.of(), "init", "a-file");
    assertEquals(2, file.exit(), file.err());
    assertEquals(
        "trainyard: a-file is a file, not a folder: init writes train.yaml into the folder of your"
            + " code\nTry 'trainyard init --help' for more information.\n",
        file.err());
    assertEquals("x", Files.readString(temp.resolve("a-file")));
    MainTest.Run absolute =
        SubmitCommandTest.runIn(temp, Map.of(), "init", temp.resolve("a-file").toString());
    assertTrue(
        absolute.err().startsWith("trainyard: " + temp.resolve("a-file") + " is a file"),
        "DIR named as typed: " + absolute.err());
    MainTest.Run below = SubmitCommandTest.runIn(temp, Map.of(), "init", "a-file/sub/dir");
    assertEquals(2, below.exit(), below.err());
    assertTrue(
        below.err().startsWith("trainyard: a-file is a file, not a folder: init writes"),
        "the file above DIR, not the OS's 'Not a directory': " + below.err());
    MainTest.Run outside =
        SubmitCommandTest.runIn(
            temp.resolve("proj"), Map.of(), "init", temp.resolve("a-file/sub").toString());
    assertEquals(2, outside.exit(), outside.err());
    assertTrue(
        outside.err().startsWith("trainyard: " + temp.resolve("a-file") + " is a file"),
        outside.err());
    Files.createDirectories(temp.resolve("d/train.yaml"));
    MainTest.Run folder = SubmitCommandTest.runIn(temp, Map.of(), "init", "d", "--force");
    assertEquals(2, folder.exit(), folder.err());
    assertTrue(
        folder
            .err()
            .startsWith(
                "trainyard: d/train.yaml is a folder, not a file: init writes train.yaml there\n"),
        folder.err());
    try (Stream<Path> left = Files.list(temp.resolve("d"))) {
      assertEquals(List.of(temp.resolve("d/train.yaml")), left.toList(), "no temporary file left");
    }
  }

  @Test
  @DisplayName(
      "--schema with a line break or another control character is a usage error: it never adds YAML to train.yaml")
  void schemaIsOneLine() {
    for (String schema : List.of("a\nrun: rm -rf /", "a\rb", "a\tb")) {
      Path dir = temp.resolve("s" + schema.length());
      MainTest.Run r = MainTest.run("init", dir.toString(), "--schema", schema);
      assertEquals(2, r.exit(), r.err());
      assertTrue(
          r.err()
              .startsWith(
                  "trainyard: --schema must be one line (a URL or a path), without control"
                      + " characters\n"),
          r.err());
      assertTrue(Files.notExists(dir));
    }
  }

  @Test
  @DisplayName("--nodes outside 1 to 1024 is a usage error (exit 2) and writes nothing")
  void nodesBounds() {
    for (String n : new String[] {"0", "1025"}) {
      Path dir = temp.resolve("n" + n);
      MainTest.Run r = MainTest.run("init", dir.toString(), "--nodes", n);
      assertEquals(2, r.exit(), r.err());
      assertTrue(
          r.err().startsWith("trainyard: --nodes must be 1 to 1024, got " + n + "\n"), r.err());
      assertTrue(Files.notExists(dir), n);
    }
    assertEquals(0, MainTest.run("init", temp.resolve("one").toString(), "--nodes", "1").exit());
  }

  @Test
  @DisplayName("an unknown --runtime is a usage error naming the installed runtimes")
  void unknownRuntime() {
    Path dir = temp.resolve("proj");
    MainTest.Run r = MainTest.run("init", dir.toString(), "--runtime", "tensorflow");
    assertEquals(2, r.exit(), r.err());
    assertTrue(
        r.err()
            .startsWith(
                "trainyard: --runtime \"tensorflow\" is not installed; installed: deepspeed, jax,"
                    + " mlx, mpi, plain, torch\n"),
        r.err());
    assertTrue(Files.notExists(dir));
  }

  @Test
  @DisplayName("an existing train.yaml stays without --force (exit 1) and is replaced with it")
  void force() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("proj"));
    Path file = Files.writeString(dir.resolve("train.yaml"), "run: mine\n");
    MainTest.Run kept = MainTest.run("init", dir.toString());
    assertEquals(1, kept.exit());
    assertEquals("trainyard: " + file + " already exists; use --force to replace it\n", kept.err());
    assertEquals("run: mine\n", Files.readString(file));
    assertEquals(0, MainTest.run("init", dir.toString(), "--force").exit());
    assertEquals(HEAD + "run: torchrun train.py\nnodes: 1\n", Files.readString(file));
  }
}
