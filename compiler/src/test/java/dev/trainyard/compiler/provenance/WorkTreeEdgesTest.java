package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What counts as a work tree, and which clone URLs name a repository. */
class WorkTreeEdgesTest {
  @TempDir Path temp;

  private static List<String> lines(List<Diagnostic> found) {
    return found.stream().map(d -> d.location() + " " + d.code().id() + " " + d.message()).toList();
  }

  @Test
  @DisplayName(
      "a linked work tree (`.git` is a file) is a work tree: a train.yaml symlinked out of it is E305, naming ../ and the target")
  void linkedWorkTree() throws Exception {
    Path tree = Files.createDirectories(temp.resolve("wt/jobs"));
    Files.writeString(temp.resolve("wt/.git"), "gitdir: /nowhere/.git/worktrees/wt\n");
    Path secret = Files.writeString(temp.resolve("credentials"), "token\n");
    Path trainYaml = Files.createSymbolicLink(tree.resolve("train.yaml"), secret);
    assertEquals(Optional.of(temp.resolve("wt")), GitSourceInspector.workTreeOf(trainYaml));
    assertEquals(
        List.of(
            "jobs/train.yaml E305 train.yaml resolves to ../credentials, outside the repository, so it is not in the"
                + " commit pods clone"),
        lines(RepositoryBoundary.check(trainYaml, "jobs/train.yaml")));
  }

  @Test
  @DisplayName(
      "the nearest folder holding .git/HEAD is the work tree; a .git folder without HEAD is not one")
  void nearestWorkTree() throws Exception {
    Files.createDirectories(temp.resolve("outer/.git"));
    Files.writeString(temp.resolve("outer/.git/HEAD"), "ref: refs/heads/main\n");
    Files.createDirectories(temp.resolve("outer/inner/.git"));
    Path file =
        Files.writeString(
            Files.createDirectories(temp.resolve("outer/inner/job")).resolve("train.yaml"),
            "run: x\n");
    assertEquals(Optional.of(temp.resolve("outer")), GitSourceInspector.workTreeOf(file));
    Files.writeString(temp.resolve("outer/inner/.git/HEAD"), "ref: refs/heads/main\n");
    assertEquals(Optional.of(temp.resolve("outer/inner")), GitSourceInspector.workTreeOf(file));
    assertEquals(List.of(), RepositoryBoundary.check(file, "train.yaml"));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "/srv/http://mirror/x.git, true",
    "FILE:///srv/x.git, true",
    "File:x, true",
    "~alice@host:x.git, false",
    "Git+SSH://host/x.git, false",
    "3ds://host/x, true"
  })
  @DisplayName(
      "only a network URL (a scheme that starts with a letter, any case, not file:) or user@host:path can be cloned by pods")
  void localPaths(String url, boolean local) {
    assertEquals(local, GitSourceInspector.isLocalPath(url));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "git@:acme/x.git, false",
    "git@github.com:/, false",
    "git@github.com://, false",
    "https://user@/acme/x, false",
    "https://github.com//, false",
    "https://github.com/?q=1, false",
    "https://github.com/a?q=1, true",
    "ssh://git@host:22/acme/x, true",
    "git@github.com:acme/x.git, true",
    "repos/x, true"
  })
  @DisplayName(
      "a URL names a repository with a host and a path beyond /; scp form needs both too; other text is left to the local-path check")
  void namesRepository(String url, boolean names) {
    assertEquals(names, GitSourceInspector.namesRepository(url));
  }
}
