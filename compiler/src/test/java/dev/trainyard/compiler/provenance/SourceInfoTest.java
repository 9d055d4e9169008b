package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The repo URL forms platform `sources` patterns match, train.yaml's folder, and which remotes pods
 * can clone.
 */
class SourceInfoTest {
  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "https://github.com/Acme/LLM.git, github.com/acme/llm",
    "https://user:token@gitlab.example.com:8443/team/x.git/, gitlab.example.com/team/x",
    "git@github.com:acme/llm.git, github.com/acme/llm",
    "ssh://git@github.com:22/acme/llm, github.com/acme/llm",
    "' https://github.com/acme/llm// ', github.com/acme/llm"
  })
  @DisplayName(
      "the normalised repo drops scheme, user, port, .git and trailing slashes, lower-cased")
  void normalizedRepo(String url, String normalized) {
    assertEquals(normalized, new SourceInfo(url, SHA, "train.yaml").normalizedRepo());
  }

  @ParameterizedTest(name = "{0} -> \"{1}\"")
  @CsvSource({"train.yaml, ''", "jobs/demo/train.yaml, jobs/demo", "a/train.yaml, a"})
  @DisplayName("train.yaml's folder in the repo, empty at the root")
  void folder(String path, String folder) {
    assertEquals(
        folder, new SourceInfo("https://github.com/acme/x.git", SHA, path).trainYamlFolder());
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "/srv/git/x.git, true",
    "./x, true",
    "../x, true",
    "file:///srv/x, true",
    "~/x, true",
    "'C:\\repos\\x', true",
    "D:/x, true",
    "repos/x, true",
    "https://github.com/acme/x.git, false",
    "ssh://git@host/x, false",
    "git@github.com:acme/x.git, false"
  })
  @DisplayName(
      "a remote is a local path unless it is a URL with a scheme or scp-style user@host:path")
  void localPaths(String url, boolean local) {
    assertEquals(local, GitSourceInspector.isLocalPath(url));
  }
}
