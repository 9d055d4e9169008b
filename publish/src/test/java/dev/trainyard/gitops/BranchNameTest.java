package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link GitOpsRepository#isBranchName}: git's ref-name rules, as {@code --branch} applies them.
 */
class BranchNameTest {
  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(strings = {"main", "release/1.2", "team-a/runs", "v1", "a.b", "ünïcode"})
  @DisplayName("ordinary branch names, nested ones included, are branch names")
  void valid(String name) {
    assertTrue(GitOpsRepository.isBranchName(name), name);
  }

  @ParameterizedTest(name = "\"{0}\"")
  @ValueSource(
      strings = {
        "",
        "-x",
        "a..b",
        "a b",
        "a~1",
        "a^",
        "a:b",
        "a?",
        "a*",
        "a[b",
        "a\\b",
        "x.lock",
        "a/",
        "/a",
        "a@{1}",
        ".hidden",
        "a/.b",
        "a.",
        "a//b",
        "tab\there",
        "HEAD"
      })
  @DisplayName(
      "names git refuses (and a leading -, and HEAD: `git check-ref-format --branch HEAD` fails) are not branch names")
  void invalid(String name) {
    assertFalse(GitOpsRepository.isBranchName(name), name);
  }
}
