package dev.trainyard.compiler.provenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #9's git edges: untracked files, unknown commits, unpushed commits, ambiguous remotes, URLs
 * without a repository.
 */
class GitEdgesTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  private final GitSourceInspector inspector = new GitSourceInspector();

  private StageResult<SourceInfo> inspect(
      Path file, Optional<String> repo, Optional<String> commit) {
    return inspector.inspect(file, "train.yaml", repo, commit, Optional.empty());
  }

  @Test
  @DisplayName(
      "untracked __pycache__ and data next to train.yaml: E305 whose hint names .gitignore and the patterns")
  void untrackedMentionsGitignore() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path dir = p.trainYaml().getParent();
    Files.createDirectories(dir.resolve("__pycache__"));
    Files.writeString(dir.resolve("__pycache__/train.cpython-312.pyc"), "x");
    Files.writeString(dir.resolve("data.csv"), "1,2\n");
    Diagnostic d = inspect(p.trainYaml(), Optional.empty(), Optional.empty()).diagnostics().get(0);
    assertEquals(DiagnosticCode.SOURCE_NOT_COMMITTED, d.code());
    WORDING.approve(d.hint());
  }

  @Test
  @DisplayName(
      "a Trainyard output tree anywhere under train.yaml's folder (not only --out) is not uncommitted code")
  void outputTreeAnywhere() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path out = p.trainYaml().getParent().resolve("build/my-gitops/clusters/local");
    Files.createDirectories(out.resolve("_cluster"));
    Files.writeString(out.resolve("_cluster/kustomization.yaml"), "resources: []\n");
    Files.createDirectories(out.resolve("default/run-1"));
    Files.writeString(out.resolve("default/run-1/jobset-run-1.yaml"), "kind: JobSet\n");
    assertFalse(inspect(p.trainYaml(), Optional.empty(), Optional.empty()).failed());
  }

  @Test
  @DisplayName(
      "--source-commit that the repository does not have is E314 (W315 in a shallow clone, where it may not be fetched)")
  void unknownCommit() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    String sha = "0123456789abcdef0123456789abcdef01234567";
    Diagnostic d = inspect(p.trainYaml(), Optional.empty(), Optional.of(sha)).diagnostics().get(0);
    assertEquals(DiagnosticCode.UNKNOWN_COMMIT, d.code());
    assertEquals("--source-commit " + sha + " is not a commit of this repository", d.message());
    Files.writeString(p.root().resolve(".git/shallow"), sha + "\n");
    StageResult<SourceInfo> shallow = inspect(p.trainYaml(), Optional.empty(), Optional.of(sha));
    assertFalse(shallow.failed());
    assertEquals(
        List.of(DiagnosticCode.COMMIT_UNCHECKED),
        shallow.diagnostics().stream().map(Diagnostic::code).toList());
  }

  @Test
  @DisplayName(
      "a --source-commit the repository lacks stays missing for the rest of the call (one answer for all its train.yaml files), even once fetched; after close() it is found")
  void commitAnswerKeptForTheCall() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path clone = temp.resolve("clone");
    String sha;
    try (Git git =
        Git.cloneRepository()
            .setURI(p.root().toUri().toString())
            .setDirectory(clone.toFile())
            .call()) {
      Files.writeString(clone.resolve("notes.txt"), "later\n");
      git.add().addFilepattern("notes.txt").call();
      sha =
          git.commit()
              .setMessage("later")
              .setAuthor("t", "t@example.com")
              .setCommitter("t", "t@example.com")
              .call()
              .name();
    }
    assertEquals(
        DiagnosticCode.UNKNOWN_COMMIT,
        inspect(p.trainYaml(), Optional.empty(), Optional.of(sha)).diagnostics().get(0).code());
    try (Git git = Git.open(p.root().toFile())) {
      git.fetch()
          .setRemote(clone.toUri().toString())
          .setRefSpecs("refs/heads/*:refs/fetched/*")
          .call();
      assertTrue(git.getRepository().getObjectDatabase().has(ObjectId.fromString(sha)));
    }
    assertEquals(
        DiagnosticCode.UNKNOWN_COMMIT,
        inspect(p.trainYaml(), Optional.empty(), Optional.of(sha)).diagnostics().get(0).code(),
        "the call's first answer");
    inspector.close();
    StageResult<SourceInfo> found = inspect(p.trainYaml(), Optional.empty(), Optional.of(sha));
    assertFalse(found.failed(), found.diagnostics().toString());
    assertEquals(sha, found.value().orElseThrow().commit());
  }

  @Test
  @DisplayName(
      "--source-repo with --source-commit in a clone of that repo: a SHA it lacks is E314, a changed train.yaml E305; in a fork's clone a missing SHA passes with W315 (not checked), without a remote silently")
  void pinnedInAClone() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    String sha = "0123456789abcdef0123456789abcdef01234567";
    for (String url :
        List.of(
            TrainProject.REMOTE,
            "git@github.com:acme/llm-training.git",
            "https://github.com/ACME/llm-training")) {
      Diagnostic d =
          inspect(p.trainYaml(), Optional.of(url), Optional.of(sha)).diagnostics().get(0);
      assertEquals(DiagnosticCode.UNKNOWN_COMMIT, d.code(), url);
      assertEquals("--source-commit " + sha + " is not a commit of this repository", d.message());
      assertEquals("train.yaml", d.location().toString());
    }
    StageResult<SourceInfo> fork =
        inspect(
            p.trainYaml(),
            Optional.of("https://github.com/someone/llm-training.git"),
            Optional.of(sha));
    assertFalse(fork.failed(), fork.diagnostics().toString());
    assertEquals(
        List.of(
            "W315 --source-commit "
                + sha
                + " is not in this repository, whose remote is not --source-repo, so it cannot be"
                + " checked against train.yaml | fetch it (git fetch SOURCE_REPO_URL "
                + sha
                + ") to have it checked, or run in a clone of --source-repo"),
        fork.diagnostics().stream()
            .map(d -> d.code().id() + " " + d.message() + " | " + d.hint())
            .toList(),
        "a warning, not a silent pass");
    String head;
    try (Git git = Git.open(p.root().toFile())) {
      var config = git.getRepository().getConfig();
      for (String remote : config.getSubsections("remote")) {
        config.unsetSection("remote", remote);
      }
      config.save();
    }
    assertEquals(
        List.of(),
        inspect(
                p.trainYaml(),
                Optional.of("https://github.com/someone/llm-training.git"),
                Optional.of(sha))
            .diagnostics(),
        "a work tree without a remote says nothing of --source-repo: both flags pin the source");
    try (Git git = Git.open(p.root().toFile())) {
      var config = git.getRepository().getConfig();
      config.setString("remote", "origin", "url", TrainProject.REMOTE);
      config.save();
    }
    try (Git git = Git.open(p.root().toFile())) {
      head = git.getRepository().resolve("HEAD").name();
    }
    assertEquals(
        List.of(),
        inspect(p.trainYaml(), Optional.of(TrainProject.REMOTE), Optional.of(head)).diagnostics());
    Files.writeString(p.trainYaml(), "run: y\n");
    Diagnostic changed =
        inspect(p.trainYaml(), Optional.of(TrainProject.REMOTE), Optional.of(head))
            .diagnostics()
            .get(0);
    assertEquals(DiagnosticCode.SOURCE_NOT_COMMITTED, changed.code());
    assertEquals(
        "jobs/demo/train.yaml differs from its version in commit " + head, changed.message());
    // run --local --working-tree runs the file as it is: neither an edit nor a new file is an error
    assertEquals(
        List.of(),
        inspector
            .inspect(
                p.trainYaml(),
                "train.yaml",
                Optional.of(TrainProject.REMOTE),
                Optional.of(head),
                Optional.empty(),
                true,
                Path.of(""))
            .diagnostics());
    Path added = Files.createDirectories(p.root().resolve("jobs/new")).resolve("train.yaml");
    Files.writeString(added, "run: z\n");
    assertEquals(
        "jobs/new/train.yaml is not in commit " + head,
        inspect(added, Optional.of(TrainProject.REMOTE), Optional.of(head))
            .diagnostics()
            .get(0)
            .message());
    assertEquals(
        List.of(),
        inspector
            .inspect(
                added,
                "train.yaml",
                Optional.of(TrainProject.REMOTE),
                Optional.of(head),
                Optional.empty(),
                true,
                Path.of(""))
            .diagnostics());
  }

  @Test
  @DisplayName(
      "HEAD on no remote-tracking branch (never pushed): warning W316; after the push (origin/main has it): none")
  void notPushed() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    assertEquals(
        List.of(), inspect(p.trainYaml(), Optional.empty(), Optional.empty()).diagnostics());
    try (Git git = Git.open(p.root().toFile())) {
      git.commit()
          .setAllowEmpty(true)
          .setMessage("local only")
          .setAuthor("T", "t@e")
          .setCommitter("T", "t@e")
          .call();
    }
    StageResult<SourceInfo> r = inspect(p.trainYaml(), Optional.empty(), Optional.empty());
    assertFalse(r.failed());
    Diagnostic d = r.diagnostics().get(0);
    assertEquals(DiagnosticCode.COMMIT_NOT_PUSHED, d.code());
    WORDING.approve(d.message());
    assertEquals(
        "git push, then submit; or ignore this if the commit reaches the remote another way",
        d.hint(),
        "the repository has remote-tracking refs: a plain push");
  }

  @Test
  @DisplayName(
      "whether HEAD is pushed is answered once per call for all its train.yaml files: a push during the call is seen after close()")
  void pushedAnswerKeptForTheCall() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    String local;
    try (Git git = Git.open(p.root().toFile())) {
      local =
          git.commit()
              .setAllowEmpty(true)
              .setMessage("local only")
              .setAuthor("T", "t@e")
              .setCommitter("T", "t@e")
              .call()
              .name();
    }
    assertEquals(
        List.of(DiagnosticCode.COMMIT_NOT_PUSHED),
        inspect(p.trainYaml(), Optional.empty(), Optional.empty()).diagnostics().stream()
            .map(Diagnostic::code)
            .toList());
    try (Git git = Git.open(p.root().toFile())) {
      var push = git.getRepository().updateRef("refs/remotes/origin/main");
      push.setNewObjectId(ObjectId.fromString(local));
      push.setForceUpdate(true);
      push.update();
    }
    assertEquals(
        List.of(DiagnosticCode.COMMIT_NOT_PUSHED),
        inspect(p.trainYaml(), Optional.empty(), Optional.empty()).diagnostics().stream()
            .map(Diagnostic::code)
            .toList(),
        "the call's first answer");
    inspector.close();
    assertEquals(
        List.of(), inspect(p.trainYaml(), Optional.empty(), Optional.empty()).diagnostics());
  }

  @Test
  @DisplayName(
      "close() forgets the call's work trees and real paths: a folder that became a repository of its own, and a train.yaml symlink turned to point out of the repository, are seen after it")
  void closeForgetsPlaces() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path folder = p.trainYaml().getParent();
    Path file = p.trainYaml().toAbsolutePath().normalize();
    assertEquals(Optional.of(p.root()), inspector.workTree(file));
    Git.init().setDirectory(folder.toFile()).setInitialBranch("main").call().close();
    assertEquals(Optional.of(p.root()), inspector.workTree(file), "the call's first answer");
    inspector.close();
    assertEquals(Optional.of(folder), inspector.workTree(file));

    Path outside = Files.writeString(temp.resolve("elsewhere.yaml"), "run: x\n");
    Path link = folder.resolve("linked.yaml");
    Files.createSymbolicLink(link, folder.resolve("train.yaml"));
    assertEquals(List.of(), RepositoryBoundary.check(link, "linked.yaml", inspector));
    Files.delete(link);
    Files.createSymbolicLink(link, outside);
    assertEquals(
        List.of(),
        RepositoryBoundary.check(link, "linked.yaml", inspector),
        "the call's first real path");
    inspector.close();
    assertEquals(
        List.of(DiagnosticCode.SOURCE_NOT_COMMITTED),
        RepositoryBoundary.check(link, "linked.yaml", inspector).stream()
            .map(Diagnostic::code)
            .toList());
  }

  @Test
  @DisplayName(
      "a train.yaml folder that looks like a bare repository (HEAD, objects/, refs/) inside a work tree is read from the work tree, whose commit pods clone (it was exit 4: JGit's 'Bare Repository has neither a working tree')")
  void bareLookingFolderInWorkTree() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    Path folder = p.trainYaml().getParent();
    Files.writeString(folder.resolve("HEAD"), "ref: refs/heads/main\n");
    Files.createDirectories(folder.resolve("objects"));
    Files.createDirectories(folder.resolve("refs/heads"));
    Files.writeString(folder.resolve("objects/.keep"), "");
    Files.writeString(folder.resolve("refs/heads/.keep"), "");
    try (Git git = Git.open(p.root().toFile())) {
      git.add().addFilepattern(".").call();
      git.commit().setMessage("bare-like").setAuthor("T", "t@e").setCommitter("T", "t@e").call();
    }
    StageResult<SourceInfo> r =
        inspector.inspect(
            p.trainYaml(),
            "train.yaml",
            Optional.of(TrainProject.REMOTE),
            Optional.of(head(p)),
            Optional.empty());
    assertFalse(r.failed(), r.diagnostics().toString());
    assertEquals("jobs/demo/train.yaml", r.value().orElseThrow().trainYamlPath());
  }

  private static String head(TrainProject p) throws Exception {
    try (Git git = Git.open(p.root().toFile())) {
      return git.getRepository().resolve("HEAD").name();
    }
  }

  @Test
  @DisplayName(
      "a repository never fetched or pushed (a remote, no refs/remotes at all): W316 naming that, with `git push -u REMOTE HEAD`")
  void neverFetched() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    try (Git git = Git.open(p.root().toFile())) {
      var delete = git.getRepository().updateRef("refs/remotes/origin/main");
      delete.setForceUpdate(true);
      delete.delete();
      assertEquals(
          List.of(), git.getRepository().getRefDatabase().getRefsByPrefix("refs/remotes/"));
    }
    StageResult<SourceInfo> r = inspect(p.trainYaml(), Optional.empty(), Optional.empty());
    assertFalse(r.failed());
    assertEquals(1, r.diagnostics().size(), r.diagnostics().toString());
    Diagnostic d = r.diagnostics().get(0);
    assertEquals(DiagnosticCode.COMMIT_NOT_PUSHED, d.code());
    assertEquals("train.yaml", d.location().toString());
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
    try (Git git = Git.open(p.root().toFile())) {
      var config = git.getRepository().getConfig();
      config.unsetSection("remote", "origin");
      config.setString("remote", "upstream", "url", "https://github.com/acme/x.git");
      config.save();
    }
    WORDING.approve(
        inspect(p.trainYaml(), Optional.empty(), Optional.empty()).diagnostics().get(0).hint());
  }

  @Test
  @DisplayName(
      "origin next to another remote: origin's URL is the clone URL, with no ambiguity error")
  void originWins() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    try (Git git = Git.open(p.root().toFile())) {
      var config = git.getRepository().getConfig();
      config.setString("remote", "fork", "url", "https://github.com/me/x.git");
      config.save();
    }
    StageResult<SourceInfo> r = inspect(p.trainYaml(), Optional.empty(), Optional.empty());
    assertEquals(
        TrainProject.REMOTE, r.value().orElseThrow().repoUrl(), r.diagnostics().toString());
    assertTrue(
        r.diagnostics().stream().noneMatch(d -> d.code() == DiagnosticCode.SOURCE_NO_REMOTE),
        r.diagnostics().toString());
  }

  @Test
  @DisplayName("two remotes, neither origin: E306 naming both, asking for --source-repo")
  void twoRemotes() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    try (Git git = Git.open(p.root().toFile())) {
      var config = git.getRepository().getConfig();
      config.unsetSection("remote", "origin");
      config.setString("remote", "fork", "url", "https://github.com/me/x.git");
      config.setString("remote", "upstream", "url", "https://github.com/acme/x.git");
      config.save();
    }
    Diagnostic d = inspect(p.trainYaml(), Optional.empty(), Optional.empty()).diagnostics().get(0);
    assertEquals(DiagnosticCode.SOURCE_NO_REMOTE, d.code());
    WORDING.approve(d.message());
    WORDING.approve(d.hint());
    assertFalse(
        inspect(p.trainYaml(), Optional.of("https://github.com/acme/x.git"), Optional.empty())
            .failed());
  }

  @Test
  @DisplayName("--source-repo https:// (or a host without a path) is E306; real URLs pass")
  void urlWithoutRepository() {
    TrainProject p = TrainProject.create(temp, "run: x\n");
    String sha = "0123456789abcdef0123456789abcdef01234567";
    for (String url :
        List.of("https://", "https://github.com", "https://github.com/", "git@github.com:")) {
      Diagnostic d =
          inspect(p.trainYaml(), Optional.of(url), Optional.of(sha)).diagnostics().get(0);
      assertEquals(
          "the source repo URL \"" + url + "\" names no repository (no host or no path)",
          d.message(),
          url);
    }
    assertTrue(GitSourceInspector.namesRepository("https://github.com/acme/x.git"));
    assertTrue(GitSourceInspector.namesRepository("git@github.com:acme/x.git"));
    assertTrue(
        GitSourceInspector.namesRepository("https://user@gitlab.example.com:8443/group/sub/x"));
  }
}
