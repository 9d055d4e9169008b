package dev.trainyard.cluster.netns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The hint simulation of issue #19, for one launcher family: each line must be refused with hints
 * that give one command ({@link #hinted}), and each distinct hinted command must form the world it
 * promises on 2 namespace hosts ({@link #failures}).
 */
final class HintedRuns {
  private static final Pattern RUN = Pattern.compile("`run: ([^`\"]*)`");

  private HintedRuns() {}

  /**
   * The distinct commands the hints of {@code family} give, each line's hints checked to give
   * exactly one.
   *
   * @param env the venv of scripts/python-envs the hosts would use (checked, so a missing one is
   *     NOT RUN)
   * @param files the project's files for a run line (train.yaml among them)
   */
  static Set<String> hinted(
      String env, List<String> family, Function<String, Map<String, String>> files)
      throws Exception {
    Set<String> hinted = new LinkedHashSet<>();
    try (PythonHosts lint = PythonHosts.open(env, "lint")) {
      int i = 0;
      for (String line : family) {
        List<Diagnostic> found =
            CompiledProject.diagnose(lint.work().resolve("lint-" + i++), "t", files.apply(line))
                .stream()
                .filter(d -> d.pointer().equals("/run"))
                .toList();
        assertFalse(found.isEmpty(), "the lint must refuse: " + line);
        Set<String> own = new LinkedHashSet<>();
        for (Diagnostic d : found) {
          Matcher m = RUN.matcher(d.hint());
          assertTrue(m.find(), "a hint with a run line: " + d);
          own.add(m.group(1));
        }
        assertEquals(1, own.size(), "every hint of `" + line + "` gives one command: " + found);
        hinted.addAll(own);
      }
    }
    return hinted;
  }

  /**
   * Runs each command on hosts of its own (closed before the next starts) and answers those whose
   * pods' joined output lacks one of {@code expected}, with that output; every pod must exit 0.
   */
  static List<String> failures(
      String env,
      Set<String> hinted,
      Function<String, Map<String, String>> files,
      List<String> expected)
      throws Exception {
    List<String> failures = new ArrayList<>();
    for (String run : hinted) {
      String all = "";
      try (PythonHosts one = PythonHosts.open(env, "hint")) {
        CompiledProject project =
            CompiledProject.compile(
                one.work().resolve("repo"), "t", files.apply(run), Optional.empty());
        for (RunningPod pod : one.start(project, "node")) {
          assertEquals(0, pod.requireExit(PythonHosts.TRAIN_TIMEOUT), run + "\n" + pod.output());
          all += pod.output();
        }
      }
      String output = all;
      if (!expected.stream().allMatch(output::contains)) {
        failures.add(run + "\n" + output);
      }
    }
    return failures;
  }
}
