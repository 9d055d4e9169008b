package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link EmptyArguments}: an empty or blank file, folder, run name or path option is exit 2. */
class EmptyArgumentsTest {
  @TempDir Path work;

  @Test
  @DisplayName(
      "every command's positional argument and path options given as \"\" (an unset variable) is a usage error naming it, and nothing is read or written in the working folder")
  void everyCommand() throws Exception {
    Map<List<String>, String> cases =
        Map.ofEntries(
            Map.entry(List.of("validate", ""), "argument TRAIN_YAML"),
            Map.entry(List.of("compile", "t.yaml", "--out", ""), "--out"),
            Map.entry(List.of("compile", "t.yaml", "--platform", " "), "--platform"),
            Map.entry(List.of("check-secrets", ""), "argument DIR"),
            Map.entry(List.of("init", ""), "argument DIR"),
            Map.entry(List.of("logs", ""), "argument RUN"),
            Map.entry(List.of("status", ""), "argument RUN"),
            Map.entry(List.of("prune", "x", ""), "argument RUN"),
            Map.entry(List.of("runtimes", "list", "--runtimes", ""), "--runtimes"),
            Map.entry(List.of("runtimes", "show", ""), "argument NAME[@VERSION]"),
            Map.entry(List.of("submit", "--platform", ""), "--platform"),
            Map.entry(List.of("preview", "--out", "\t"), "--out"),
            Map.entry(
                List.of("run", "--local", "--checkpoint-dir", "", "t.yaml"), "--checkpoint-dir"),
            Map.entry(
                List.of("validate", "--cluster", "--kubeconfig", "", "t.yaml"), "--kubeconfig"),
            Map.entry(List.of("status", "r", "--context", ""), "--context"),
            Map.entry(List.of("compile", "t.yaml", "--namespace", " "), "--namespace"),
            Map.entry(List.of("compile", "t.yaml", "--source-commit", ""), "--source-commit"),
            Map.entry(List.of("submit", "--gitops", ""), "--gitops"),
            Map.entry(List.of("preview", "--base", "", "t.yaml"), "--base"),
            Map.entry(List.of("init", "--schema", "", "d"), "--schema"),
            Map.entry(List.of("prune", "x", "--target-cluster", ""), "--target-cluster"));
    for (var c : cases.entrySet()) {
      MainTest.Run r = SubmitCommandTest.runIn(work, Map.of(), c.getKey().toArray(String[]::new));
      String command =
          String.join(" ", c.getKey().subList(0, c.getKey().get(0).equals("runtimes") ? 2 : 1));
      assertEquals(2, r.exit(), c.getKey() + ": " + r.err());
      assertEquals(
          "trainyard: "
              + c.getValue()
              + " got an empty value (an unset variable?)\nTry 'trainyard "
              + command
              + " --help' for more information.\n",
          r.err(),
          c.getKey().toString());
      assertEquals("", r.out(), c.getKey().toString());
    }
    try (Stream<Path> left = Files.list(work)) {
      assertEquals(List.of(), left.toList(), "nothing written (init '' wrote ./train.yaml)");
    }
  }

  @Test
  @DisplayName(
      "with -o json a usage error is also {error, exitCode: 2} on stdout, as other errors are")
  void jsonUsageError() throws Exception {
    for (String[] args :
        new String[][] {
          {"validate", "-o", "json", ""},
          {"compile", "-ojson", "t.yaml", "--out", ""},
          {"preview", "-o", "json", "--base", ""},
          {"prune", "--output=json", "--older-than", "1w", "x"}
        }) {
      MainTest.Run r = SubmitCommandTest.runIn(work, Map.of(), args);
      assertEquals(2, r.exit(), r.err());
      var json = dev.trainyard.compiler.manifest.CanonicalJson.mapper().readTree(r.out());
      assertEquals(2, json.path("exitCode").asInt(), r.out());
      assertEquals(
          r.err().lines().findFirst().orElseThrow(),
          "trainyard: " + json.path("error").asText(),
          "the same message on both streams");
    }
  }

  @Test
  @DisplayName(
      "a blank value stays allowed where an option documents it as none (--source-branch from an unset CI variable)")
  void blankStringOptionsUntouched() throws Exception {
    TrainProject p = TrainProject.create(work, "run: torchrun t.py\n");
    MainTest.Run r =
        SubmitCommandTest.runIn(
            work,
            Map.of(),
            "compile",
            p.trainYaml().toString(),
            "--source-branch",
            "",
            "--out",
            "o");
    assertEquals(0, r.exit(), r.err());
  }
}
