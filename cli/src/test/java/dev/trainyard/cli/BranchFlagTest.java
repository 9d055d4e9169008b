package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link BranchFlag}: every branch-name flag is held to git's ref-name rules, with one message. */
class BranchFlagTest {
  @TempDir Path work;

  @Test
  @DisplayName(
      "--source-branch (compile, submit) and preview's --branch refuse a name git refuses (exit 2, the flag and the rule named, nothing written); a branch with a slash passes")
  void everyBranchFlag() throws Exception {
    TrainProject project = TrainProject.create(work.resolve("src"), "run: python train.py\n");
    String train = project.trainYaml().toString();
    Path out = work.resolve("out");
    Path bare = work.resolve("gitops.git");
    Map<List<String>, String> cases =
        Map.of(
            List.of("compile", train, "--out", out.toString(), "--source-branch", "a..b"),
            "--source-branch \"a..b\"",
            List.of("submit", train, "--gitops", bare.toString(), "--source-branch", "x.lock"),
            "--source-branch \"x.lock\"",
            List.of("preview", "--gitops", bare.toString(), "--branch", "no..pe", train),
            "--branch \"no..pe\"",
            List.of("compile", train, "--out", out.toString(), "--source-branch", "refs/heads/x"),
            "--source-branch \"refs/heads/x\"",
            List.of("compile", train, "--out", out.toString(), "--source-branch", "HEAD"),
            "--source-branch \"HEAD\"");
    for (var c : cases.entrySet()) {
      MainTest.Run r = SubmitCommandTest.runIn(work, Map.of(), c.getKey().toArray(String[]::new));
      assertEquals(2, r.exit(), c.getKey() + ": " + r.err());
      assertTrue(
          r.err()
              .startsWith(
                  "trainyard: "
                      + c.getValue()
                      + " is not a branch name: git refuses blanks, `..`, `~ ^ : ? * [ \\`, `@{`,"
                      + " a leading `-`, a trailing `/`, `.` or `.lock`, and the name HEAD"),
          r.err());
      assertEquals(
          c.getValue().startsWith("--source-branch \"refs/"),
          r.err().contains("(give it without refs/heads/)"),
          r.err());
      assertTrue(r.err().contains("--help' for more information."), r.err());
      assertEquals(List.of("src"), names(work), "nothing written: " + c.getKey());
    }
    MainTest.Run ok =
        SubmitCommandTest.runIn(
            work,
            Map.of(),
            "compile",
            train,
            "--out",
            out.toString(),
            "--source-branch",
            "feature/long-context");
    assertEquals(0, ok.exit(), ok.err());
  }

  private static List<String> names(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
