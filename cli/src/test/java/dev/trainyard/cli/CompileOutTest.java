package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compile --out}: what a folder that cannot be written to is, and what in it stops the
 * write, before anything is written.
 */
class CompileOutTest {
  @TempDir Path temp;

  @Test
  @DisplayName(
      "--out \"\" (an unset variable) and --out naming a file are usage errors (exit 2); nothing is written")
  void emptyOut() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun t.py\n");
    MainTest.Run empty = MainTest.run("compile", p.trainYaml().toString(), "--out", "");
    assertEquals(2, empty.exit(), empty.err());
    assertTrue(
        empty.err().startsWith("trainyard: --out got an empty value (an unset variable?)"),
        empty.err());
    assertFalse(Files.exists(Path.of("clusters")), "nothing in the current folder");
    Path file = Files.writeString(temp.resolve("a-file"), "x");
    MainTest.Run onFile =
        MainTest.run("compile", p.trainYaml().toString(), "--out", file.toString());
    assertEquals(2, onFile.exit(), onFile.err());
    assertTrue(
        onFile.err().startsWith("trainyard: --out " + file + " is a file, not a folder"),
        onFile.err());
  }

  @Test
  @DisplayName(
      "a hand-written file in a queue folder --out would rewrite stops the compile (E814 at the file, exit 1, nothing written, the file kept); Trainyard's own queue files, left or edited, are rewritten")
  void handWrittenQueueFile() throws Exception {
    TrainProject p = TrainProject.create(temp.resolve("src"), "run: torchrun t.py\n");
    Path out = temp.resolve("gitops");
    String train = p.trainYaml().toString();
    MainTest.Run first = MainTest.run("compile", train, "--out", out.toString());
    assertEquals(0, first.exit(), first.err());
    Path queues = out.resolve("clusters/local/default/_queues");
    Path localQueue = queues.resolve("localqueue-default.yaml");
    String written = Files.readString(localQueue);
    Files.writeString(localQueue, written.replace("name: default", "name: edited"));
    Path limitRange =
        Files.writeString(queues.resolve("limitrange.yaml"), "apiVersion: v1\nkind: LimitRange\n");
    Path notes = Files.writeString(out.resolve("clusters/local/_cluster/NOTES.md"), "ours\n");
    MainTest.Run refused = MainTest.run("compile", train, "--out", out.toString());
    assertEquals(1, refused.exit(), refused.err());
    assertEquals(
        2, refused.err().split("error\\[E814]", -1).length - 1, "one per file: " + refused.err());
    assertTrue(
        refused
            .err()
            .contains(
                "clusters/local/default/_queues/limitrange.yaml: error[E814]: hand-written file in a"
                    + " folder trainyard owns: this compile --out rewrites the folder whole from"
                    + " platform.yaml and would delete it"),
        refused.err());
    assertTrue(refused.err().contains("clusters/local/_cluster/NOTES.md: error[E814]"));
    assertTrue(refused.err().contains("; nothing was written\n"), refused.err());
    assertTrue(refused.err().endsWith("nothing was written to " + out + "\n"), refused.err());
    assertEquals("apiVersion: v1\nkind: LimitRange\n", Files.readString(limitRange));
    assertEquals("ours\n", Files.readString(notes));
    assertTrue(Files.readString(localQueue).contains("name: edited"), "not rewritten either");
    Files.delete(limitRange);
    Files.delete(notes);
    MainTest.Run again = MainTest.run("compile", train, "--out", out.toString());
    assertEquals(0, again.exit(), again.err());
    assertEquals(written, Files.readString(localQueue), "its own file, edited, is rewritten");
    assertFalse(again.err().contains("W815"), "no root above the folders: " + again.err());
  }

  @Test
  @DisplayName(
      "a namespace kustomization.yaml (as submit keeps it) that does not list the run compile --out wrote: W815 naming the run and the file, exit 0, the files written and the root untouched")
  void unlistedRun() throws Exception {
    TrainProject p = TrainProject.create(temp.resolve("src"), "run: torchrun t.py\n");
    Path out = temp.resolve("gitops");
    Path ns = Files.createDirectories(out.resolve("clusters/local/default"));
    String root =
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- _queues\n";
    Files.writeString(ns.resolve("kustomization.yaml"), root);
    MainTest.Run r = MainTest.run("compile", p.trainYaml().toString(), "--out", out.toString());
    assertEquals(0, r.exit(), r.err());
    String run;
    try (var entries = Files.list(ns)) {
      List<String> names = entries.map(e -> e.getFileName().toString()).sorted().toList();
      assertEquals(3, names.size(), "the run's folder, _queues and the root: " + names);
      assertTrue(names.containsAll(List.of("_queues", "kustomization.yaml")), names.toString());
      run =
          names.stream()
              .filter(n -> !n.equals("_queues") && !n.equals("kustomization.yaml"))
              .findFirst()
              .orElseThrow();
    }
    assertTrue(Files.isRegularFile(ns.resolve(run).resolve("kustomization.yaml")), run);
    assertEquals(
        List.of(
            "clusters/local/default/kustomization.yaml: warning[W815]: the folder "
                + run
                + " was written but is not in the resources of"
                + " clusters/local/default/kustomization.yaml: a sync of clusters/local/default"
                + " does not apply it",
            "    hint: add `- "
                + run
                + "` to its resources, or publish with `trainyard submit`, which keeps that"
                + " list"),
        r.err().lines().filter(l -> l.contains("W815") || l.contains("add `- ")).toList());
    assertEquals(root, Files.readString(ns.resolve("kustomization.yaml")), "the root untouched");
  }
}
