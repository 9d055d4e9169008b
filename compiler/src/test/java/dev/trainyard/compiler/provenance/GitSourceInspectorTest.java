package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the code comes from: pods clone exactly one commit, so anything that would make them run
 * other code is an error.
 */
class GitSourceInspectorTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final String OTHER_SHA = "0123456789abcdef0123456789abcdef01234567";
  @TempDir Path temp;

  private final GitSourceInspector inspector = new GitSourceInspector();

  @Test
  @DisplayName("remote, HEAD and the path of train.yaml in the repo are read from git")
  void readsGit() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    SourceInfo info =
        inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.empty())
            .value()
            .orElseThrow();
    assertEquals(TrainProject.REMOTE, info.repoUrl());
    assertEquals("jobs/demo/train.yaml", info.trainYamlPath());
    try (Git git = Git.open(p.root().toFile())) {
      assertEquals(git.getRepository().resolve("HEAD").name(), info.commit());
    }
  }

  @Test
  @DisplayName(
      "an uncommitted file next to train.yaml is an error, but the GitOps output folder inside the repo is not")
  void dirtyButNotTheOutput() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path out = p.trainYaml().getParent().resolve("gitops");
    Files.createDirectories(out.resolve("clusters"));
    Files.writeString(out.resolve("clusters/x.yaml"), "a: 1\n");
    assertFalse(
        inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.of(out)).failed());
    Files.writeString(p.trainYaml().getParent().resolve("train.py"), "print(1)\n");
    var result = inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.of(out));
    assertTrue(result.failed());
    assertEquals(DiagnosticCode.SOURCE_NOT_COMMITTED, result.diagnostics().get(0).code());
    assertTrue(
        result.diagnostics().get(0).message().contains("train.py"),
        result.diagnostics().get(0).message());
  }

  @Test
  @DisplayName(
      "many train.yaml files of one repo (a preview or submit): each gets exactly its own folder's uncommitted files, also from the whole status read once after the first; a sibling folder sharing a name prefix does not count; close() forgets the status")
  void oneStatusForManyTrainYamls() throws Exception {
    TrainProject p =
        TrainProject.create(temp, "jobs/a", "run: x\n", Map.of("../ab/train.yaml", "run: y\n"));
    Path a = p.trainYaml();
    Path ab = a.getParent().resolveSibling("ab").resolve("train.yaml");
    Files.writeString(ab.resolveSibling("notes.txt"), "not committed\n");
    Path root = p.root();
    Files.writeString(root.resolve("top.txt"), "not committed either\n");
    // 1st: jobs/a alone (path-limited status); 2nd and 3rd: the whole status, filtered.
    assertFalse(inspect(a, Optional.empty(), Optional.empty(), Optional.empty()).failed());
    var dirty = inspect(ab, Optional.empty(), Optional.empty(), Optional.empty());
    assertTrue(dirty.failed());
    assertTrue(
        dirty.diagnostics().get(0).message().contains("1 file(s)")
            && dirty.diagnostics().get(0).message().contains("jobs/ab/notes.txt"),
        dirty.diagnostics().get(0).message());
    assertFalse(
        inspect(a, Optional.empty(), Optional.empty(), Optional.empty()).failed(),
        "jobs/ab/notes.txt is not under jobs/a");
    // A file added now is not seen until close(): the status is read once per call.
    Files.writeString(a.resolveSibling("late.py"), "print(1)\n");
    assertFalse(inspect(a, Optional.empty(), Optional.empty(), Optional.empty()).failed());
    inspector.close();
    var late = inspect(a, Optional.empty(), Optional.empty(), Optional.empty());
    assertTrue(late.failed());
    assertTrue(
        late.diagnostics().get(0).message().contains("jobs/a/late.py"),
        late.diagnostics().get(0).message());
  }

  @Test
  @DisplayName(
      "many train.yaml files of one repo share what the call found of the repository, yet each sees the remotes as they are: two remotes without origin are ambiguous until --source-repo names one")
  void remotesPerTrainYaml() throws Exception {
    TrainProject p =
        TrainProject.create(temp, "jobs/a", "run: x\n", Map.of("../b/train.yaml", "run: y\n"));
    Path a = p.trainYaml();
    Path b = a.getParent().resolveSibling("b").resolve("train.yaml");
    assertEquals(TrainProject.REMOTE, inspectedUrl(a));
    try (Git git = Git.open(p.root().toFile())) {
      var config = git.getRepository().getConfig();
      config.unsetSection("remote", "origin");
      config.setString("remote", "upstream", "url", "https://github.com/acme/up.git");
      config.setString("remote", "fork", "url", "https://github.com/me/fork.git");
      config.save();
    }
    var ambiguous = inspect(b, Optional.empty(), Optional.empty(), Optional.empty());
    assertTrue(ambiguous.failed());
    assertEquals(
        "the git repository has 2 remotes and none is named origin: fork"
            + " (https://github.com/me/fork.git), upstream (https://github.com/acme/up.git)",
        ambiguous.diagnostics().get(0).message());
    assertTrue(
        ambiguous
            .diagnostics()
            .get(0)
            .hint()
            .endsWith("--source-repo https://github.com/me/fork.git"),
        ambiguous.diagnostics().get(0).hint());
    SourceInfo named =
        inspect(b, Optional.of("https://github.com/acme/x.git"), Optional.empty(), Optional.empty())
            .value()
            .orElseThrow();
    assertEquals("https://github.com/acme/x.git", named.repoUrl(), "--source-repo settles it");
    assertEquals("jobs/b/train.yaml", named.trainYamlPath());
  }

  private String inspectedUrl(Path trainYaml) {
    return inspect(trainYaml, Optional.empty(), Optional.empty(), Optional.empty())
        .value()
        .orElseThrow()
        .repoUrl();
  }

  @Test
  @DisplayName(
      "the filtered status keeps the folder itself and everything under it, nothing else, and all of it for the repository root")
  void statusUnderFolder() {
    var status =
        new GitSourceInspector.WorkTreeStatus(
            Set.of("jobs/a/x", "jobs/ab/y", "jobs/a", "top"), Set.of("jobs/a/sub/z", "jobsa"));
    var under = status.under("jobs/a");
    assertEquals(Set.of("jobs/a/x", "jobs/a"), under.untracked());
    assertEquals(Set.of("jobs/a/sub/z"), under.uncommitted());
    assertEquals(status, status.under(""));
  }

  @Test
  @DisplayName(
      "a committed file of the output folder that has changed since is not uncommitted code either; a change beside it is")
  void changedOutputFile() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path folder = p.trainYaml().getParent();
    Path out = folder.resolve("gitops");
    Files.createDirectories(out.resolve("clusters"));
    Files.writeString(out.resolve("clusters/x.yaml"), "a: 1\n");
    Files.writeString(folder.resolve("train.py"), "print(1)\n");
    try (Git git = Git.open(p.root().toFile())) {
      git.add().addFilepattern(".").call();
      git.commit()
          .setMessage("output and code")
          .setAuthor("t", "t@example.com")
          .setCommitter("t", "t@example.com")
          .call();
    }
    Files.writeString(out.resolve("clusters/x.yaml"), "a: 2\n");
    var clean = inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.of(out));
    assertFalse(clean.failed(), clean.diagnostics().toString());
    Files.writeString(folder.resolve("train.py"), "print(2)\n");
    var dirty = inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.of(out));
    assertTrue(dirty.failed());
    WORDING.approve(dirty.diagnostics().get(0).message());
  }

  @Test
  @DisplayName(
      "compiling twice into the default output folder inside the repo works (the output is not 'uncommitted code')")
  void recompileIntoRepo() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    Path out = p.trainYaml().getParent().resolve("gitops");
    CompileRequest request =
        CompileRequest.builder(p.trainYaml()).displayPath("train.yaml").existingTree(out).build();
    Compiler compiler = new Compiler(SshSecretProvider.system());
    CompileResult first = compiler.compile(request);
    assertFalse(first.hasErrors(), first.diagnostics().toString());
    writeTree(first, out);
    CompileResult second = compiler.compile(request);
    assertFalse(second.hasErrors(), second.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "one inspector keeps the repository open across train.yaml files, yet sees a commit made, and a remote changed, after its first look")
  void openRepositorySeesLaterChanges() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    SourceInfo before =
        inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.empty())
            .value()
            .orElseThrow();
    Files.writeString(p.trainYaml(), "run: y\n");
    String next;
    try (Git git = Git.open(p.root().toFile())) {
      git.add().addFilepattern(".").call();
      next =
          git.commit()
              .setMessage("next")
              .setAuthor("t", "t@example.com")
              .setCommitter("t", "t@example.com")
              .call()
              .name();
    }
    assertFalse(next.equals(before.commit()));
    SourceInfo after =
        inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.empty())
            .value()
            .orElseThrow();
    assertEquals(next, after.commit(), "HEAD is read again");
    assertFalse(
        inspect(p.trainYaml(), Optional.empty(), Optional.of(next), Optional.empty()).failed(),
        "the new commit is found in the open repository and holds train.yaml as on disk");
    try (Git git = Git.open(p.root().toFile())) {
      var config = git.getRepository().getConfig();
      config.setString("remote", "origin", "url", "https://example.com/moved/x.git");
      config.save();
    }
    // A config file's change within the file system's time resolution may go unnoticed; JGit
    // compares size too.
    assertEquals(
        "https://example.com/moved/x.git",
        inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.empty())
            .value()
            .orElseThrow()
            .repoUrl());
    inspector.close();
    assertEquals(
        next,
        inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.empty())
            .value()
            .orElseThrow()
            .commit(),
        "a closed inspector opens the repository again");
    inspector.close();
  }

  @Test
  @DisplayName("with --source-commit, train.yaml must be in that commit as it is on disk")
  void commitMustHoldTrainYaml() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    String head;
    try (Git git = Git.open(p.root().toFile())) {
      head = git.getRepository().resolve("HEAD").name();
    }
    assertFalse(
        inspect(p.trainYaml(), Optional.empty(), Optional.of(head), Optional.empty()).failed());
    Files.writeString(p.trainYaml(), "run: y\n");
    var changed = inspect(p.trainYaml(), Optional.empty(), Optional.of(head), Optional.empty());
    assertTrue(changed.failed());
    WORDING.approve(changed.diagnostics().get(0).message());
    Path other = p.trainYaml().getParent().resolve("other.yaml");
    Files.writeString(other, "run: z\n");
    var absent = inspect(other, Optional.empty(), Optional.of(head), Optional.empty());
    WORDING.approve(absent.diagnostics().get(0).message());
    assertTrue(
        inspect(p.trainYaml(), Optional.empty(), Optional.of(OTHER_SHA), Optional.empty()).failed(),
        "a commit the local repo lacks is refused (E314)");
    Files.writeString(p.root().resolve(".git/shallow"), head + "\n");
    assertFalse(
        inspect(p.trainYaml(), Optional.empty(), Optional.of(OTHER_SHA), Optional.empty()).failed(),
        "a commit a shallow CI clone lacks is only a warning (W315)");
  }

  @Test
  @DisplayName("a remote that is a local path, or none, is an error: pods could not clone it")
  void localOrMissingRemote() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    var local =
        inspect(p.trainYaml(), Optional.of("/srv/git/llm.git"), Optional.empty(), Optional.empty());
    WORDING.approve(local.diagnostics().get(0).message());
    try (Git git = Git.open(p.root().toFile())) {
      git.getRepository().getConfig().unsetSection("remote", "origin");
      git.getRepository().getConfig().save();
    }
    var none = inspect(p.trainYaml(), Optional.empty(), Optional.empty(), Optional.empty());
    assertEquals(DiagnosticCode.SOURCE_NO_REMOTE, none.diagnostics().get(0).code());
  }

  @Test
  @DisplayName(
      "outside any repo and outside the working directory, even both overrides cannot place train.yaml")
  void outsideRepo() throws Exception {
    Path file = temp.resolve("loose/train.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "run: x\n");
    var r =
        inspect(
            file,
            Optional.of("https://github.com/a/b.git"),
            Optional.of(OTHER_SHA),
            Optional.empty());
    assertTrue(r.failed());
    WORDING.approve(r.diagnostics().get(0).hint());
  }

  private StageResult<SourceInfo> inspect(
      Path file, Optional<String> repo, Optional<String> commit, Optional<Path> ignored) {
    return inspector.inspect(file, "train.yaml", repo, commit, ignored);
  }

  private static void writeTree(CompileResult result, Path out) {
    result
        .tree()
        .orElseThrow()
        .files()
        .forEach(
            (path, text) -> {
              try {
                Path f = out.resolve(path);
                Files.createDirectories(f.getParent());
                Files.writeString(f, text);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
  }
}
