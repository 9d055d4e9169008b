package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard runtimes list|show}: the whole text of every built-in version approved in {@code
 * golden/wording/RuntimesCommandTest.txt}, a platform runtimes folder added to the built-ins, and a
 * folder that does not load (its diagnostics, exit 1, nothing on stdout).
 */
class RuntimesCommandTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  /** {@code exit N}, then stdout, then (if any) stderr under a {@code stderr:} line. */
  private static String shown(MainTest.Run r) {
    return "exit " + r.exit() + "\n" + r.out() + (r.err().isEmpty() ? "" : "stderr:\n" + r.err());
  }

  /**
   * A platform runtime {@code acme} in two versions of one CUDA image, non-root, neither declaring
   * {@code podSecurity: restricted}; the first states CUDA without a driver floor and no Python.
   */
  private Path platformRuntimes() throws Exception {
    Path dir = temp.resolve("runtimes");
    String common =
        """
        apiVersion: trainyard.dev/v1
        kind: Runtime
        name: acme
        description: Acme's CUDA image
        framework: plain
        image: registry.acme.example/train@sha256:%s
        packages:
          - numpy 2.1.0
        user:
          uid: 1000
          home: /home/acme
        """
            .formatted("ab".repeat(32));
    Files.createDirectories(dir.resolve("acme/1.0-1"));
    Files.writeString(
        dir.resolve("acme/1.0-1/runtime.yaml"),
        common + "version: 1.0-1\ncuda:\n  version: \"12.4\"\n");
    Files.createDirectories(dir.resolve("acme/1.0-2"));
    Files.writeString(
        dir.resolve("acme/1.0-2/runtime.yaml"),
        common + "version: 1.0-2\npython: \"3.11\"\npodSecurity: baseline\n");
    return dir;
  }

  @Test
  @DisplayName("runtimes list and list --all print one aligned row per runtime (approved)")
  void list() {
    MainTest.Run newest = MainTest.run("runtimes", "list");
    assertEquals(0, newest.exit(), newest.err());
    WORDING.approve(shown(newest));
    MainTest.Run all = MainTest.run("runtimes", "list", "--all");
    assertEquals(0, all.exit(), all.err());
    WORDING.approve(shown(all));
  }

  @Test
  @DisplayName(
      "runtimes show prints every line of every built-in version: name, versions, image, digest, Python, CUDA, user, Pod Security, resources, MPI, setup, packages (approved)")
  void showEveryBuiltInVersion() {
    List<String> refs =
        MainTest.run("runtimes", "list", "--all")
            .out()
            .lines()
            .skip(1)
            .map(RuntimesCommandTest::ref)
            .toList();
    assertTrue(refs.size() >= 13, refs.toString());
    for (String ref : refs) {
      MainTest.Run r = MainTest.run("runtimes", "show", ref);
      assertEquals(0, r.exit(), ref + ": " + r.err());
      assertEquals("", r.err(), ref);
      WORDING.approve(shown(r));
    }
  }

  /** {@code name@version} of a {@code runtimes list} row. */
  private static String ref(String row) {
    String[] cells = row.split(" +");
    return cells[0] + "@" + cells[1];
  }

  @Test
  @DisplayName(
      "a platform runtime: CUDA without a driver floor has no driver line; Python and Pod Security name the same-image version only when it states them")
  void platformRuntime() throws Exception {
    Path dir = platformRuntimes();
    MainTest.Run list = MainTest.run("runtimes", "list", "--runtimes", dir.toString());
    assertEquals(0, list.exit(), list.err());
    assertTrue(list.out().contains("\nacme         1.0-2      plain      Acme's CUDA image\n"));
    for (String ref : List.of("acme@1.0-1", "acme@1.0-2", "acme")) {
      MainTest.Run r = MainTest.run("runtimes", "show", ref, "--runtimes", dir.toString());
      assertEquals(0, r.exit(), r.err());
      WORDING.approve(shown(r));
    }
    String first =
        MainTest.run("runtimes", "show", "acme@1.0-1", "--runtimes", dir.toString()).out();
    assertTrue(first.contains("\ncuda:        12.4\n"), first);
    assertTrue(first.contains(" a namespace enforcing restricted rejects them\n"), first);
  }

  @Test
  @DisplayName(
      "a runtime that is not installed: one line naming the installed ones, exit 1, nothing on stdout")
  void notInstalled() {
    MainTest.Run r = MainTest.run("runtimes", "show", "nope");
    assertEquals(1, r.exit());
    assertEquals("", r.out());
    WORDING.approve(r.err());
  }

  @Test
  @DisplayName(
      "a runtimes folder that does not load: its diagnostics on stderr, exit 1, nothing on stdout (list and show)")
  void brokenFolder() throws Exception {
    Path dir = platformRuntimes();
    Files.writeString(dir.resolve("acme/1.0-2/runtime.yaml"), "name: acme\nversion: 9\n");
    for (String[] args :
        List.of(
            new String[] {"runtimes", "list", "--runtimes", dir.toString()},
            new String[] {"runtimes", "show", "acme", "--runtimes", dir.toString()})) {
      MainTest.Run r = MainTest.run(args);
      assertEquals(1, r.exit(), r.err());
      assertEquals("", r.out(), r.out());
      assertTrue(r.err().contains("runtime.yaml:"), r.err());
      WORDING.approve(r.err());
    }
  }
}
