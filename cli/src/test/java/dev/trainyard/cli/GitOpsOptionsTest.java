package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.FaultProxy;
import dev.trainyard.compiler.testing.FaultProxy.Fault;
import dev.trainyard.compiler.testing.GitCgiServer;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code submit} and {@code prune} share: where the mirror is cached, the warning for a URL
 * with credentials, and the notes a publish prints while it retries.
 */
class GitOpsOptionsTest {
  @TempDir Path temp;
  String property;

  @BeforeEach
  void saveProperty() {
    property = System.getProperty("trainyard.cache");
    System.clearProperty("trainyard.cache");
  }

  @AfterEach
  void restoreProperty() {
    if (property == null) {
      System.clearProperty("trainyard.cache");
    } else {
      System.setProperty("trainyard.cache", property);
    }
  }

  @Test
  @DisplayName(
      "the cache is $TRAINYARD_CACHE (relative: in the call's folder, not the JVM's); unset or blank, ~/.cache/trainyard; the trainyard.cache property overrides both")
  void cacheRoot() {
    Path home = Path.of(System.getProperty("user.home"), ".cache", "trainyard");
    assertEquals(Path.of("/c/env"), cacheRoot(Map.of("TRAINYARD_CACHE", "/c/env")));
    assertEquals(Path.of("/work/of/call/rel"), cacheRoot(Map.of("TRAINYARD_CACHE", "rel")));
    assertEquals(home, cacheRoot(Map.of()));
    assertEquals(home, cacheRoot(Map.of("TRAINYARD_CACHE", " ")));
    assertEquals(home, cacheRoot(Map.of("TRAINYARD_CACHE", "")));
    System.setProperty("trainyard.cache", "/c/property");
    assertEquals(Path.of("/c/property"), cacheRoot(Map.of("TRAINYARD_CACHE", "/c/env")));
  }

  private static Path cacheRoot(Map<String, String> env) {
    return GitOpsOptions.cacheRoot(new Invocation(Path.of("/work/of/call"), env));
  }

  @Test
  @DisplayName(
      "a GitOps URL with credentials: one warning line first, naming the safer ways; the token is never printed")
  void credentialsWarning() {
    MainTest.Run r =
        SubmitCommandTest.runIn(
            temp,
            Map.of("TRAINYARD_CACHE", temp.resolve("cache").toString()),
            "prune",
            "x",
            "--gitops",
            "http://bot:tok3n@127.0.0.1:9/acme/gitops.git");
    assertEquals(3, r.exit(), r.err());
    assertTrue(
        r.err()
            .startsWith(
                "trainyard: warning: the GitOps URL carries credentials; they are used but never"
                    + " printed or stored. Prefer TRAINYARD_GITOPS_TOKEN or a git credential helper"
                    + " (a URL ends up in shell history and CI logs)\n"
                    + "trainyard: error: cannot fetch main from http://127.0.0.1:9/acme/gitops.git: "),
        r.err());
    assertFalse(r.err().contains("tok3n") || r.out().contains("tok3n"), r.err());
  }

  @Test
  @DisplayName(
      "a fetch whose connection is reset is tried again: the note is printed on stderr as `trainyard: note:` and the prune succeeds")
  void retryNote() throws Exception {
    Path root = Files.createDirectories(temp.resolve("git"));
    Path bare = root.resolve("gitops.git");
    PreviewCommandTest.git(temp, "init", "-q", "--bare", "-b", "main", bare.toString());
    TrainProject project = TrainProject.create(temp, "run: torchrun train.py\n");
    Map<String, String> env = Map.of("TRAINYARD_CACHE", temp.resolve("cache").toString());
    MainTest.Run submit =
        SubmitCommandTest.runIn(
            project.root(),
            env,
            "submit",
            project.trainYaml().toString(),
            "--gitops",
            bare.toString());
    assertEquals(0, submit.exit(), submit.err());
    try (GitCgiServer server = new GitCgiServer(root);
        FaultProxy proxy = new FaultProxy(server.port(), Duration.ofSeconds(30))) {
      String url = proxy.url("gitops.git");
      proxy.inject(
          r -> r.method().equals("POST") && r.target().endsWith("/git-upload-pack"),
          Fault.RESET_DURING_DOWNLOAD,
          1);
      MainTest.Run r =
          SubmitCommandTest.runIn(
              project.root(),
              env,
              "prune",
              "--older-than",
              "1d",
              "--include-running",
              "--gitops",
              url);
      assertEquals(0, r.exit(), r.err());
      assertTrue(
          r.err().startsWith("trainyard: note: cannot fetch main from " + url + ": "), r.err());
      assertTrue(r.err().endsWith("; trying again in 1 s (1 of 3)\n"), r.err());
      assertEquals(1, r.err().lines().count(), r.err());
      assertEquals("nothing to prune in " + url + " (main)\n", r.out());
    }
  }

  @Test
  @DisplayName(
      "an unusable --gitops value is a usage error naming --gitops (the variable's name only when the value came from $TRAINYARD_GITOPS)")
  void flagNamedInUsageError() {
    MainTest.Run r =
        SubmitCommandTest.runIn(
            temp, Map.of(), "prune", "x", "--gitops", "ftp://example.com/g.git");
    assertEquals(2, r.exit(), r.err());
    assertTrue(r.err().startsWith("trainyard: --gitops \"ftp://example.com/g.git\""), r.err());
  }
}
