package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.transport.CredentialItem;
import org.eclipse.jgit.transport.URIish;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Details of snapshots, platform files, commit messages and credentials that the larger tests pass
 * over.
 */
class PublishDetailsTest {
  static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  @TempDir Path temp;

  @Test
  @DisplayName(
      "snapshots of one tree are equal, of another tree not; listings are sorted, files and folders told apart")
  void snapshotIdentity() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    GitCli.pushFiles(
        bare,
        temp.resolve("w"),
        Map.of("b/x.txt", "1\n", "a.txt", "2\n", "c/d/e.txt", "3\n"),
        "one");
    try (GitOpsRepository repo = GitOpsRepository.local(bare)) {
      Snapshot one = repo.snapshot("main");
      Snapshot again = repo.snapshot("main");
      assertEquals(one, again);
      assertEquals(one.hashCode(), again.hashCode());
      assertTrue(one.toString().contains(one.commit().orElseThrow()), one.toString());
      Snapshot built =
          repo.apply(Optional.of(one), List.of(new TreeEdit.WriteFile("z.txt", "4\n")));
      assertNotEquals(one, built);
      assertFalse(one.equals("a string"));
      assertEquals(List.of("a.txt", "b/", "c/"), one.children(""));
      assertEquals(Optional.empty(), one.read("b"), "a folder is not a file");
      assertEquals(Optional.empty(), one.read("b/nope.txt"));
      assertEquals(Optional.of("3\n"), one.read("c/d/e.txt"));
      assertTrue(one.hasFolder("c/d"));
      assertFalse(one.hasFolder("a.txt"), "a file is not a folder");
      assertFalse(one.hasFolder("c/d/e.txt"));
      assertEquals(Map.of("d/e.txt", "3\n"), one.folder("c"));
      assertEquals(Map.of(), one.folder("a.txt"));
      assertEquals(List.of(), one.children("a.txt"));
    }
  }

  @Test
  @DisplayName("--platform and --runtimes are used when the GitOps repo has none of its own")
  void overridesWithoutRepoFiles() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    Path root = Path.of(System.getProperty("trainyard.repo.root", ".."));
    Path runtimes = temp.resolve("runtimes");
    Path folder = Files.createDirectories(runtimes.resolve("torch/2.15.0-1"));
    Files.writeString(
        folder.resolve("runtime.yaml"),
        Files.readString(root.resolve("runtimes/torch/2.13.0-2/runtime.yaml"))
            .replace("version: 2.13.0-2", "version: 2.15.0-1"));
    TrainProject project =
        TrainProject.create(temp, "run: torchrun train.py\nruntime: torch@2.15.0-1\n");
    SubmitResult result =
        new Submitter(temp.resolve("cache"), Map.of(), Clock.fixed(T0, ZoneOffset.UTC))
            .submit(
                new SubmitRequest(
                    List.of(project.trainYaml()),
                    GitOpsLocation.parse(bare.toString(), temp),
                    "main",
                    Optional.of(root.resolve("examples/platform.yaml")),
                    Optional.of(runtimes),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    false,
                    false));
    assertFalse(result.hasErrors(), result.diagnostics().toString());
    assertEquals(
        "ml",
        result.runs().get(0).folder().namespace(),
        "examples/platform.yaml decided the namespace");
    assertEquals("torch@2.15.0-1", result.runs().get(0).job().runtime().ref());
    assertTrue(
        result.diagnostics().isEmpty(),
        "no embedded-platform warning with --platform: " + result.diagnostics());
  }

  @Test
  @DisplayName(
      "the credential helper is asked for the protocol and the server's host with its port")
  void helperGetsHostAndPath() throws Exception {
    Path log = temp.resolve("asked.txt");
    Path config =
        Files.writeString(
            temp.resolve("gitconfig"),
            "[credential]\n\thelper = \"!f() { cat > "
                + log
                + "; echo username=u; echo password=p; }; f\"\n");
    GitCredentials credentials =
        new GitCredentials(
            Map.of(
                "GIT_CONFIG_GLOBAL",
                config.toString(),
                "GIT_CONFIG_NOSYSTEM",
                "1",
                "HOME",
                temp.toString()));
    CredentialItem.Username user = new CredentialItem.Username();
    CredentialItem.Password password = new CredentialItem.Password();
    assertTrue(
        credentials.get(
            new URIish("https://git.example.com:8443/acme/gitops.git"), user, password));
    assertEquals("u", user.getValue());
    String asked = Files.readString(log);
    // git passes the path on to helpers only with credential.useHttpPath; protocol and host always.
    assertTrue(
        asked.contains("protocol=https\n") && asked.contains("host=git.example.com:8443\n"), asked);
    assertTrue(
        credentials.get(new URIish("https://git.example.com/acme/gitops.git"), user, password));
    assertTrue(
        Files.readString(log).contains("host=git.example.com\n"), "no port when the URL has none");
  }

  @Test
  @DisplayName("a helper that answers nothing, and a blank token, give no credentials")
  void noAnswer() throws Exception {
    Path config =
        Files.writeString(
            temp.resolve("gitconfig"),
            "[credential]\n\thelper = \"!f() { cat >/dev/null; }; f\"\n");
    GitCredentials credentials =
        new GitCredentials(
            Map.of(
                "GIT_CONFIG_GLOBAL",
                config.toString(),
                "GIT_CONFIG_NOSYSTEM",
                "1",
                "HOME",
                temp.toString(),
                "TRAINYARD_GITOPS_TOKEN",
                "  "));
    assertFalse(
        credentials.get(
            new URIish("https://h/x.git"),
            new CredentialItem.Username(),
            new CredentialItem.Password()));
  }

  @Test
  @DisplayName("the commit names the source author when known, in both trailer families")
  void authorTrailers() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    TrainProject project = TrainProject.create(temp, "run: torchrun train.py\n");
    new Submitter(temp.resolve("cache"), Map.of(), Clock.fixed(T0, ZoneOffset.UTC))
        .submit(
            new SubmitRequest(
                List.of(project.trainYaml()),
                GitOpsLocation.parse(bare.toString(), temp),
                "main",
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                false,
                false));
    String message = GitCli.git(bare, "log", "-1", "--format=%B", "main");
    assertTrue(message.contains("\nTrainyard-Source-Author: Test <test@example.com>\n"), message);
    assertTrue(
        message.contains("\nArgocd-reference-commit-author: Test <test@example.com>\n"), message);
    assertEquals(1, message.lines().filter(l -> l.startsWith("Trainyard-Run: ")).count());
  }

  @Test
  @DisplayName("a subject of exactly 72 characters lists every run; one more shortens it")
  void subjectBoundary() {
    String a = "a".repeat(26);
    String b = "b".repeat(26);
    List<SubmittedRun> fits = List.of(run(a), run(b));
    assertEquals(72, SubmitMessage.subject(fits).length());
    assertEquals("trainyard submit: " + a + ", " + b, SubmitMessage.subject(fits));
    assertEquals(
        "trainyard submit: 2 runs (" + a + "b, ...)",
        SubmitMessage.subject(List.of(run(a + "b"), run(b))));
  }

  private static SubmittedRun run(String name) {
    return new SubmittedRun(
        new RunFolder("c", "n", name), "train.yaml", SubmittedRun.Outcome.NEW, null);
  }
}
