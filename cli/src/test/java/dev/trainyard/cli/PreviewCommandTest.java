package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.testing.TrainProject;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trainyard preview} run in-process in a working directory and environment of its own (as CI
 * runs it): exit codes, stdout and {@code --out}, JSON, usage errors, and diagnostics printed
 * exactly as {@code validate}.
 */
class PreviewCommandTest {
  @TempDir Path temp;

  record Run(int exit, String out, String err) {}

  /**
   * {@code trainyard args} in {@code dir}, with the GitOps cache in the temp folder and no other
   * environment variable.
   */
  Run trainyard(Path dir, String... args) {
    return trainyard(dir, Map.of(), args);
  }

  /** {@code trainyard args} in {@code dir} with {@code env} (and the cache) as its environment. */
  Run trainyard(Path dir, Map<String, String> env, String... args) {
    Map<String, String> all = new HashMap<>(env);
    all.put("TRAINYARD_CACHE", temp.resolve("cache").toString());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(new Invocation(dir, all), new PrintWriter(out), new PrintWriter(err), args);
    return new Run(exit, out.toString(), err.toString());
  }

  static String git(Path dir, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "git",
                "-c",
                "user.name=Grace",
                "-c",
                "user.email=grace@example.com",
                "-c",
                "init.defaultBranch=main"));
    command.addAll(List.of(args));
    Run r = exec(dir, command);
    assertEquals(0, r.exit(), r.out() + r.err());
    return r.out();
  }

  private static Run exec(Path dir, List<String> command) {
    try {
      Path err = Files.createTempFile("trainyard-err", ".txt");
      ProcessBuilder pb =
          new ProcessBuilder(command).directory(dir.toFile()).redirectError(err.toFile());
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(command + " timed out");
      }
      String errText = Files.readString(err);
      Files.delete(err);
      return new Run(p.exitValue(), out, errText);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** How the head commit changes the GitOps repo. */
  enum Edit {
    README,
    JOBSET_IN_PLACE,
    NEW_RUN
  }

  /**
   * A GitOps work repo: a run compiled by {@code trainyard compile}, committed; then {@code edit}
   * made and committed.
   */
  private Path gitOpsRepo(String trainYaml, Edit edit) throws IOException {
    TrainProject p = TrainProject.create(temp.resolve("project"), trainYaml);
    Path work = temp.resolve("gitops");
    assertEquals(
        0, trainyard(temp, "compile", p.trainYaml().toString(), "--out", work.toString()).exit());
    git(work.getParent(), "init", "-q", work.toString());
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "base");
    if (edit == Edit.NEW_RUN) {
      TrainProject other =
          TrainProject.create(
              temp.resolve("other"),
              "jobs/other",
              "runtime: mpi\nrun: python y.py\nnodes: 3\n",
              Map.of());
      assertEquals(
          0,
          trainyard(temp, "compile", other.trainYaml().toString(), "--out", work.toString())
              .exit());
    } else if (edit == Edit.JOBSET_IN_PLACE) {
      try (Stream<Path> files = Files.walk(work.resolve("clusters"))) {
        Path jobSet =
            files
                .filter(f -> f.getFileName().toString().startsWith("jobset-"))
                .findFirst()
                .orElseThrow();
        Files.writeString(
            jobSet, Files.readString(jobSet).replace("parallelism: 2", "parallelism: 3"));
      }
    } else {
      Files.writeString(work.resolve("README.md"), "notes\n");
    }
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "head");
    return work;
  }

  @Test
  @DisplayName(
      "GitOps repo: Markdown on stdout with its marker, exit 0; --output json is one JSON document")
  void gitOpsMode() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Run md = trainyard(work, "preview", "--base", "HEAD~1");
    assertEquals(0, md.exit(), md.err());
    assertTrue(md.out().startsWith("<!-- trainyard-preview part 1/1 -->\n"), md.out());
    assertTrue(md.out().contains("<!-- trainyard-preview -->"));
    assertTrue(md.out().contains("- `README.md`"), md.out());
    Run json = trainyard(work, "preview", "--base", "HEAD~1", "--output", "json");
    assertEquals(0, json.exit(), json.err());
    JsonNode root = CanonicalJson.mapper().readTree(json.out());
    assertEquals("gitops", root.path("mode").asText());
    assertEquals("README.md", root.path("otherFiles").path(0).asText());
  }

  @Test
  @DisplayName(
      "a change the cluster would refuse (an immutable field) exits 1, and the preview is still written")
  void refusedExitsOne() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.JOBSET_IN_PLACE);
    Run r = trainyard(work, "preview", "--base", "HEAD~1");
    assertEquals(1, r.exit(), r.err());
    assertTrue(r.out().contains("**refused**"), r.out());
  }

  @Test
  @DisplayName(
      "--out DIR writes preview-N.md parts within --part-size and removes parts left from an earlier, longer preview")
  void outFolder() throws Exception {
    Path work = gitOpsRepo("runtime: mpi\nrun: python x.py\nnodes: 2\n", Edit.NEW_RUN);
    Path out = Files.createDirectories(temp.resolve("comments"));
    Files.writeString(out.resolve("preview-99.md"), "stale\n");
    Files.writeString(out.resolve("notes.txt"), "kept\n");
    Run r =
        trainyard(
            work, "preview", "--base", "HEAD~1", "--out", out.toString(), "--part-size", "2000");
    assertEquals(0, r.exit(), r.err());
    List<String> files;
    try (Stream<Path> list = Files.list(out)) {
      files = list.map(f -> f.getFileName().toString()).sorted().toList();
    }
    assertFalse(files.contains("preview-99.md"), files.toString());
    assertTrue(files.contains("notes.txt"));
    long parts = files.stream().filter(f -> f.matches("preview-[0-9]+\\.md")).count();
    assertTrue(parts > 1, files.toString());
    for (int n = 1; n <= parts; n++) {
      String part = Files.readString(out.resolve("preview-" + n + ".md"));
      assertTrue(part.getBytes(StandardCharsets.UTF_8).length <= 2000);
      assertTrue(part.startsWith("<!-- trainyard-preview part " + n + "/" + parts + " -->"), part);
    }
    assertTrue(r.out().startsWith("wrote " + parts + " part(s)"), r.out());
  }

  @Test
  @DisplayName(
      "usage errors exit 2: no --gitops and no --base, a part size below 2,000, train.yaml files in a GitOps repo")
  void usage() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Run none = trainyard(work, "preview");
    assertEquals(2, none.exit());
    assertTrue(
        none.err().contains("--gitops URL|PATH") && none.err().contains("--base REF"), none.err());
    assertEquals(2, trainyard(work, "preview", "--base", "HEAD~1", "--part-size", "100").exit());
    assertEquals(2, trainyard(work, "preview", "--base", "HEAD~1", "train.yaml").exit());
    Run unknown = trainyard(work, "preview", "--base", "no-such-ref");
    assertEquals(2, unknown.exit(), unknown.err());
    assertTrue(unknown.err().contains("no-such-ref"), unknown.err());
  }

  @Test
  @DisplayName(
      "source repo: every diagnostic exactly as validate prints it, exit 1, nothing pushed")
  void diagnosticsAsValidate() throws Exception {
    TrainProject p =
        TrainProject.create(
            temp.resolve("src-project"),
            "jobs/bad",
            "run: torchrun train.py --nnodes 3\nnodes: 0\nfoo: 1\n",
            Map.of());
    Path source = p.root();
    git(source, "commit", "-q", "--allow-empty", "-m", "second");
    Path ops = temp.resolve("ops");
    git(temp, "init", "-q", "--bare", ops.toString());
    Run validate = trainyard(source, "validate", "jobs/bad/train.yaml");
    assertEquals(1, validate.exit());
    Files.writeString(
        source.resolve("jobs/bad/train.yaml"),
        "run: torchrun train.py --nnodes 3\nnodes: 0\nfoo: 1\n");
    Run preview = trainyard(source, "preview", "--gitops", ops.toString(), "jobs/bad/train.yaml");
    assertEquals(1, preview.exit(), preview.err());
    List<String> printed = validate.err().lines().toList();
    assertTrue(printed.size() > 2, validate.err());
    String block = preview.out().substring(preview.out().indexOf("```text\n") + 8);
    List<String> shown = block.substring(0, block.indexOf("```")).lines().toList();
    // The GitOps repo has no platform.yaml: preview adds that warning (W806) after validate's own
    // diagnostics.
    assertEquals(printed.subList(0, printed.size() - 1), shown.subList(0, printed.size() - 1));
    assertTrue(
        shown.get(printed.size() - 1).startsWith("platform.yaml (GitOps repo): warning[W806]"),
        shown.toString());
    assertEquals("2 errors, 1 warning", shown.get(shown.size() - 1));
    assertEquals("", git(ops, "for-each-ref"), "nothing pushed");
  }

  /**
   * A committed source repo with jobs/a/train.yaml and a bare GitOps repo whose main branch holds
   * one commit.
   */
  private record Repos(Path source, Path gitops) {}

  private Repos repos() {
    TrainProject p =
        TrainProject.create(
            temp.resolve("src-project"), "jobs/a", "run: torchrun train.py\nnodes: 1\n", Map.of());
    Path ops = temp.resolve("ops.git");
    git(temp, "init", "-q", "--bare", ops.toString());
    git(p.root(), "push", "-q", ops.toString(), "HEAD:refs/heads/main");
    return new Repos(p.root(), ops);
  }

  @Test
  @DisplayName("a --branch the GitOps repo lacks is a usage error (exit 2), as in submit")
  void missingBranch() {
    Repos r = repos();
    Run preview =
        trainyard(
            r.source(),
            "preview",
            "--gitops",
            r.gitops().toString(),
            "--branch",
            "no-such-branch",
            "jobs/a/train.yaml");
    assertEquals(2, preview.exit(), preview.err());
    assertTrue(preview.err().contains("--branch \"no-such-branch\""), preview.err());
  }

  @Test
  @DisplayName(
      "without --gitops in a source repo (train.yaml files, no clusters/): exit 2 with a hint to pass --gitops, never a silent GitOps-mode preview")
  void sourceRepoWithoutGitops() {
    Repos r = repos();
    Run preview = trainyard(r.source(), "preview", "--base", "HEAD");
    assertEquals(2, preview.exit(), preview.out() + preview.err());
    assertTrue(
        preview.err().contains("source repo") && preview.err().contains("--gitops"), preview.err());
    assertEquals("", preview.out());
  }

  @Test
  @DisplayName(
      "--gitops given in a folder with clusters/: stderr says the preview ran in source-repo mode")
  void saysWhichMode() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Path ops = temp.resolve("ops.git");
    git(temp, "init", "-q", "--bare", ops.toString());
    Run preview = trainyard(work, "preview", "--gitops", ops.toString());
    assertTrue(
        preview.err().contains("source-repo mode") && preview.err().contains("without --gitops"),
        preview.err());
    assertEquals(2, preview.exit(), "no --base and no TRAIN_YAML: a usage error");
    assertTrue(
        preview
            .err()
            .contains(
                "give --base REF (the branch the pull request merges into, e.g. origin/main) to preview the jobs it changes,"
                    + " or name the TRAIN_YAML files to preview\n"),
        preview.err());
    Run gitOpsMode = trainyard(work, "preview", "--base", "HEAD~1");
    assertFalse(gitOpsMode.err().contains("source-repo mode"), gitOpsMode.err());
  }

  @Test
  @DisplayName(
      "an untracked file next to train.yaml: preview reports submit's E305 and exits 1, as submit would refuse")
  void untrackedLikeSubmit() throws Exception {
    Repos r = repos();
    Files.writeString(r.source().resolve("jobs/a/notes.txt"), "not committed\n");
    Run preview =
        trainyard(r.source(), "preview", "--gitops", r.gitops().toString(), "jobs/a/train.yaml");
    assertEquals(1, preview.exit(), preview.err());
    assertTrue(
        preview.out().contains("error[E305]") && preview.out().contains("notes.txt"),
        preview.out());
  }

  @Test
  @DisplayName(
      "source repo: --base with TRAIN_YAML files is a usage error (exit 2): --base would be read for nothing, and a typo in it pass unnoticed")
  void baseWithNamedFiles() {
    Repos r = repos();
    Run both =
        trainyard(
            r.source(),
            "preview",
            "--gitops",
            r.gitops().toString(),
            "--base",
            "no-such-ref",
            "jobs/a/train.yaml");
    assertEquals(2, both.exit(), both.err());
    assertTrue(
        both.err()
            .startsWith(
                "trainyard: --base selects the jobs a pull request changes, TRAIN_YAML files name"
                    + " them: give one or the other\n"),
        both.err());
  }

  @Test
  @DisplayName(
      "--out inside the folder of a train.yaml of the source repo is refused (exit 2, with a hint), so the next submit cannot fail on it")
  void outInsideSourceFolder() {
    Repos r = repos();
    Run preview =
        trainyard(
            r.source(),
            "preview",
            "--gitops",
            r.gitops().toString(),
            "--out",
            "jobs/a/comments",
            "jobs/a/train.yaml");
    assertEquals(2, preview.exit(), preview.err());
    assertTrue(
        preview.err().contains("--out jobs/a/comments")
            && preview.err().contains("E305")
            && preview.err().contains("mktemp"),
        preview.err());
    assertFalse(Files.exists(r.source().resolve("jobs/a/comments")));
    Path outside = temp.resolve("comments");
    Run ok =
        trainyard(
            r.source(),
            "preview",
            "--gitops",
            r.gitops().toString(),
            "--out",
            outside.toString(),
            "jobs/a/train.yaml");
    assertEquals(0, ok.exit(), ok.err());
    assertTrue(Files.exists(outside.resolve("preview-1.md")));
  }

  @Test
  @DisplayName(
      "--out an existing file or '' is a usage error naming --out; switching --output in one --out folder removes the other format's files")
  void outChecks() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Path file = Files.writeString(temp.resolve("a-file.txt"), "x\n");
    Run onFile = trainyard(work, "preview", "--base", "HEAD~1", "--out", file.toString());
    assertEquals(2, onFile.exit(), onFile.err());
    assertTrue(onFile.err().contains("--out " + file + " is a file"), onFile.err());
    Run empty = trainyard(work, "preview", "--base", "HEAD~1", "--out", "");
    assertEquals(2, empty.exit(), empty.err());
    assertTrue(empty.err().contains("--out"), empty.err());
    Path out = temp.resolve("out");
    assertEquals(0, trainyard(work, "preview", "--base", "HEAD~1", "--out", out.toString()).exit());
    assertTrue(Files.exists(out.resolve("preview-1.md")));
    assertEquals(
        0,
        trainyard(work, "preview", "--base", "HEAD~1", "--out", out.toString(), "--output", "json")
            .exit());
    assertTrue(Files.exists(out.resolve("preview.json")));
    assertFalse(Files.exists(out.resolve("preview-1.md")), "the Markdown parts are gone");
    assertEquals(0, trainyard(work, "preview", "--base", "HEAD~1", "--out", out.toString()).exit());
    assertFalse(Files.exists(out.resolve("preview.json")), "the JSON is gone");
    assertTrue(Files.exists(out.resolve("preview-1.md")));
  }

  @Test
  @DisplayName("--help gives the smallest --part-size")
  void helpGivesMinimum() {
    Run help = trainyard(temp, "preview", "--help");
    assertTrue(help.out().replaceAll("\\s+", " ").contains("at least 2000"), help.out());
  }

  @Test
  @DisplayName(
      "$TRAINYARD_GITOPS in the call's environment selects source-repo mode without --gitops; relative TRAIN_YAML and --out are read below the working directory and named as typed")
  void gitOpsFromEnvironmentAndRelativePaths() throws Exception {
    Repos r = repos();
    Path out = r.source().resolve("../previews");
    Run preview =
        trainyard(
            r.source(),
            Map.of(GitOpsOptions.GITOPS_ENV, r.gitops().toString()),
            "preview",
            "--out",
            "../previews",
            "jobs/a/train.yaml");
    assertEquals(0, preview.exit(), preview.err());
    assertEquals("wrote 1 part(s), preview-1.md … preview-1.md, to ../previews\n", preview.out());
    assertEquals("", preview.err());
    String part = Files.readString(out.resolve("preview-1.md"));
    assertTrue(part.startsWith("<!-- trainyard-preview part 1/1 -->\n"), part);
    assertTrue(part.contains("jobs/a/train.yaml"), part);
  }

  @Test
  @DisplayName(
      "--output json --out DIR writes preview.json and says so in one line naming the folder as typed")
  void jsonIntoRelativeFolder() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Run r = trainyard(work, "preview", "--base", "HEAD~1", "--output", "json", "--out", "pr");
    assertEquals(0, r.exit(), r.err());
    assertEquals("wrote preview.json to pr\n", r.out());
    JsonNode root = CanonicalJson.mapper().readTree(work.resolve("pr/preview.json").toFile());
    assertEquals("gitops", root.path("mode").asText());
  }

  @Test
  @DisplayName(
      "a revision the repository lacks: exit 2 (as submit --changed-since), the error and hint on stderr, and with --output json also as JSON on stdout")
  void missingRevision() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Run text = trainyard(work, "preview", "--base", "no-such-ref");
    assertEquals(2, text.exit(), text.err());
    assertTrue(text.err().startsWith("trainyard: error: "), text.err());
    assertEquals("", text.out());
    Run json = trainyard(work, "preview", "--base", "no-such-ref", "--output", "json");
    assertEquals(2, json.exit(), json.err());
    JsonNode node = readJson(json.out());
    assertEquals(2, node.path("exitCode").asInt(), json.out());
    assertTrue(json.err().contains(node.path("error").asText()), json.err());
  }

  @Test
  @DisplayName(
      "a --base git cannot parse (HEAD^{): a usage error (exit 2) naming it, never \"null\" or an internal error")
  void unparsableRevision() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Run r = trainyard(work, "preview", "--base", "HEAD^{");
    assertEquals(2, r.exit(), r.err());
    assertEquals(
        "trainyard: error: \"HEAD^{\" is not a revision git can read\n"
            + "    hint: give a branch, a tag or a commit SHA (e.g. origin/main, HEAD~1)\n",
        r.err());
  }

  @Test
  @DisplayName(
      "usage errors name the mistake exactly: --part-size below 2000, an empty --out, TRAIN_YAML in a GitOps repo, a --gitops URL of an unknown scheme, a --head that is not checked out")
  void usageMessages() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Run small = trainyard(work, "preview", "--base", "HEAD~1", "--part-size", "1999");
    assertEquals(2, small.exit());
    assertTrue(
        small.err().startsWith("trainyard: --part-size must be at least 2000, got 1999\n"),
        small.err());
    assertEquals(0, trainyard(work, "preview", "--base", "HEAD~1", "--part-size", "2000").exit());
    Run empty = trainyard(work, "preview", "--base", "HEAD~1", "--out", " ");
    assertTrue(
        empty.err().startsWith("trainyard: --out got an empty value (an unset variable?)\n"),
        empty.err());
    Run named = trainyard(work, "preview", "--base", "HEAD~1", "train.yaml");
    assertTrue(
        named
            .err()
            .startsWith(
                "trainyard: TRAIN_YAML files are previewed in a source repo: add --gitops URL|PATH\n"),
        named.err());
    Repos r = repos();
    Run scheme =
        trainyard(r.source(), "preview", "--gitops", "ftp://example.com/x", "jobs/a/train.yaml");
    assertEquals(2, scheme.exit(), scheme.err());
    assertTrue(scheme.err().contains("--gitops"), scheme.err());
    git(r.source(), "commit", "-q", "--allow-empty", "-m", "next");
    Run head =
        trainyard(
            r.source(),
            "preview",
            "--gitops",
            r.gitops().toString(),
            "--head",
            "HEAD~1",
            "jobs/a/train.yaml");
    assertEquals(2, head.exit(), head.err());
    assertTrue(
        head.err().startsWith("trainyard: --head HEAD~1 is not the checked-out commit"),
        head.err());
  }

  @Test
  @DisplayName(
      "source repo with --base and no job folder changed since it: exit 0, a preview that says merging starts no run")
  void nothingChangedSinceBase() {
    Repos r = repos();
    Run preview =
        trainyard(r.source(), "preview", "--gitops", r.gitops().toString(), "--base", "HEAD");
    assertEquals(0, preview.exit(), preview.err());
    assertTrue(preview.out().contains("merging starts no run"), preview.out());
    assertEquals("", preview.err());
  }

  @Test
  @DisplayName(
      "--out that cannot be created (below a file): exit 3 naming the folder as typed, nothing written")
  void outCannotBeWritten() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Files.writeString(work.resolve("blocker"), "x\n");
    Run r = trainyard(work, "preview", "--base", "HEAD~1", "--out", "blocker/sub");
    assertEquals(3, r.exit(), r.err());
    assertTrue(
        r.err().startsWith("trainyard: error: ") && r.err().contains("blocker/sub"), r.err());
    assertEquals("", r.out());
  }

  @Test
  @DisplayName(
      "--out a relative path naming a file of the working directory is refused as a file, named as typed")
  void outRelativeFile() throws Exception {
    Path work = gitOpsRepo("run: torchrun train.py\nnodes: 2\n", Edit.README);
    Run r = trainyard(work, "preview", "--base", "HEAD~1", "--out", "README.md");
    assertEquals(2, r.exit(), r.err());
    assertTrue(
        r.err()
            .startsWith(
                "trainyard: --out README.md is a file, not a folder; hint: name a folder (it is created if missing)\n"),
        r.err());
  }

  private static JsonNode readJson(String text) {
    try {
      return CanonicalJson.mapper().readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
