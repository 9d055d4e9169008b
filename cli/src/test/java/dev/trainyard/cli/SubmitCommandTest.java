package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.gitops.GitOpsLocation;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI contract of {@code submit} and {@code prune}: output, JSON, exit codes. */
class SubmitCommandTest {
  @TempDir Path temp;
  Path bare;
  TrainProject project;

  @BeforeEach
  void setUp() throws Exception {
    System.setProperty("trainyard.cache", temp.resolve("cache").toString());
    bare = temp.resolve("gitops.git");
    Process p =
        new ProcessBuilder("git", "init", "-q", "--bare", bare.toString())
            .redirectErrorStream(true)
            .start();
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(
        0, p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    project = TrainProject.create(temp, "run: torchrun train.py\nnodes: 2\n");
  }

  @AfterEach
  void tearDown() {
    System.clearProperty("trainyard.cache");
  }

  @Test
  @DisplayName(
      "submit prints the run and the commit; a second submit says nothing changed; both exit 0")
  void submitTwice() {
    MainTest.Run first =
        MainTest.run("submit", project.trainYaml().toString(), "--gitops", bare.toString());
    assertEquals(0, first.exit(), first.err());
    assertTrue(
        first
            .out()
            .matches(
                "(?s)run demo-[0-9a-f]{6}: 2 node\\(s\\) x \\d+ process\\(es\\), runtime torch@.* — new\n"
                    + "committed [0-9a-f]{12} to file:.*gitops\\.git/ \\(main\\): 1 new run\\(s\\)\n"),
        first.out());
    MainTest.Run second =
        MainTest.run("submit", project.trainYaml().toString(), "--gitops", bare.toString());
    assertEquals(0, second.exit(), second.err());
    assertTrue(
        second
            .out()
            .contains(
                "— already in the GitOps repo, unchanged\nnothing to submit: every run is already in file:"),
        second.out());
  }

  @Test
  @DisplayName("--output json lists the runs with outcome and path, the commit and pushed")
  void json() throws Exception {
    MainTest.Run r =
        MainTest.run(
            "submit",
            project.trainYaml().toString(),
            "--gitops",
            bare.toString(),
            "--output",
            "json",
            "--dry-run");
    assertEquals(0, r.exit(), r.err());
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertEquals("new", j.at("/runs/0/outcome").asText());
    assertTrue(j.at("/runs/0/path").asText().startsWith("clusters/local/default/demo-"), r.out());
    assertEquals(2, j.at("/runs/0/nodes").asInt());
    assertEquals(
        List.of("gitops", "branch", "dryRun", "pushed", "commit", "attempts"), tail(j, 6), r.out());
    assertTrue(
        j.get("dryRun").asBoolean() && !j.get("pushed").asBoolean() && j.get("commit").isNull(),
        r.out());
    assertEquals("main", j.get("branch").asText());
    assertTrue(j.at("/dryRun").asBoolean());
    assertFalse(j.at("/pushed").asBoolean());
    assertTrue(j.at("/commit").isNull());
    assertEquals(0, j.at("/errors").asInt());
  }

  @Test
  @DisplayName(
      "submit --help documents what a --changed-since SHA the checkout lacks does (W810) and the null SHA")
  void helpDocumentsMissingBase() {
    MainTest.Run r = MainTest.run("submit", "--help");
    assertEquals(0, r.exit(), r.err());
    String help = r.out().replaceAll("\\s+", " ");
    assertTrue(
        help.contains(
            "A full SHA the checkout lacks (after a force push, or in a shallow clone) submits the jobs HEAD's own commit changed,"
                + " with warning W810; a branch or short SHA it lacks is a usage error."),
        r.out());
    assertTrue(help.contains("(all zeros: every job)"), r.out());
  }

  @Test
  @DisplayName(
      "TRAIN_YAML files and --changed-since together are a usage error: exit 2, nothing compiled")
  void changedSinceAndFiles() {
    MainTest.Run r =
        MainTest.run(
            "submit",
            project.trainYaml().toString(),
            "--changed-since",
            "HEAD~1",
            "--gitops",
            bare.toString());
    assertEquals(2, r.exit(), r.err());
    assertTrue(
        r.err().startsWith("trainyard: give TRAIN_YAML files or --changed-since, not both\n"),
        r.err());
  }

  @Test
  @DisplayName("a compile error exits 1, prints file:line:col and says nothing was written")
  void compileError() {
    TrainProject bad =
        TrainProject.create(temp.resolve("bad"), "run: torchrun train.py\nnodes: 0\n");
    MainTest.Run r =
        MainTest.run("submit", bad.trainYaml().toString(), "--gitops", bare.toString());
    assertEquals(1, r.exit());
    assertTrue(
        r.err().contains("train.yaml:2:8: error[E204]: `nodes` must be at least 1, got 0"),
        r.err());
    assertTrue(r.err().contains("nothing was written to file:"), r.err());
  }

  @Test
  @DisplayName(
      "no --gitops and no TRAINYARD_GITOPS is a usage error: exit 2, one hint line, not the whole help")
  void missingGitops() {
    MainTest.Run r = MainTest.run("submit", project.trainYaml().toString());
    assertEquals(2, r.exit());
    assertEquals(
        "trainyard: Missing --gitops URL|PATH (or set TRAINYARD_GITOPS)\nTry 'trainyard submit --help' for more information.\n",
        r.err());
  }

  @Test
  @DisplayName("a usage error never echoes a token that a URL carries")
  void usageErrorRedactsToken() {
    MainTest.Run r =
        MainTest.run(
            "submit", "--gitops", "https://bot:ghp_S3CRET@github.com/acme/gitops.git", "--bogus");
    assertEquals(2, r.exit());
    assertFalse(r.err().contains("ghp_S3CRET") || r.out().contains("ghp_S3CRET"), r.err());
    MainTest.Run extra =
        MainTest.run("compile", "train.yaml", "https://bot:ghp_S3CRET@github.com/x.git");
    assertEquals(2, extra.exit());
    assertTrue(
        extra.err().contains("'https://github.com/x.git'"),
        "picocli echoes the unmatched argument, without its token: " + extra.err());
    assertFalse(extra.err().contains("ghp_S3CRET"), extra.err());
  }

  @Test
  @DisplayName(
      "an unreachable GitOps server is an environment error: exit 3, message and hint, no stack trace")
  void unreachable() {
    MainTest.Run r =
        MainTest.run(
            "submit",
            project.trainYaml().toString(),
            "--gitops",
            "http://127.0.0.1:9/acme/gitops.git");
    assertEquals(3, r.exit(), r.err());
    assertTrue(
        r.err()
            .startsWith(
                "trainyard: error: cannot fetch main from http://127.0.0.1:9/acme/gitops.git: "),
        r.err());
    assertTrue(r.err().contains("    hint: "), r.err());
    assertFalse(r.err().contains("\tat "), r.err());
  }

  @Test
  @DisplayName("prune removes a submitted run (exit 0); an unknown run exits 1 with E801")
  void prune() throws Exception {
    MainTest.Run submit =
        MainTest.run(
            "submit",
            project.trainYaml().toString(),
            "--gitops",
            bare.toString(),
            "--output",
            "json");
    String run = new ObjectMapper().readTree(submit.out()).at("/runs/0/name").asText();
    MainTest.Run unknown = MainTest.run("prune", "--gitops", bare.toString(), "demo-000000");
    assertEquals(1, unknown.exit());
    assertTrue(
        unknown
            .err()
            .startsWith(
                "trainyard prune: error[E801]: no run \"demo-000000\" in the GitOps repo\n"),
        unknown.err());
    MainTest.Run dry =
        MainTest.run("prune", "--gitops", bare.toString(), run, "--dry-run", "--output", "json");
    assertEquals(0, dry.exit(), dry.err());
    JsonNode plan = new ObjectMapper().readTree(dry.out());
    assertEquals(
        List.of("pruned", "gitops", "branch", "dryRun", "pushed", "commit"),
        tail(plan, 6),
        dry.out());
    assertEquals(run, plan.at("/pruned/0/name").asText());
    assertTrue(
        plan.get("dryRun").asBoolean()
            && !plan.get("pushed").asBoolean()
            && plan.get("commit").isNull(),
        dry.out());
    MainTest.Run pruned = MainTest.run("prune", "--gitops", bare.toString(), run);
    assertEquals(0, pruned.exit(), pruned.err());
    assertTrue(
        pruned.out().startsWith("prune clusters/local/default/" + run + "\ncommitted "),
        pruned.out());
    MainTest.Run again =
        MainTest.run("submit", project.trainYaml().toString(), "--gitops", bare.toString());
    assertEquals(0, again.exit(), again.err());
    assertTrue(
        again
            .out()
            .contains(
                "— already ran and was pruned; --rerun starts it again\nnothing to submit: every run is already in file:"),
        again.out());
    assertTrue(again.out().endsWith(" (main) or already ran there and was pruned\n"), again.out());
  }

  @Test
  @DisplayName(
      "a --branch the GitOps repo lacks is a usage error (exit 2); a URL with credentials gets a warning")
  void branchAndCredentials() {
    assertEquals(
        0,
        MainTest.run("submit", project.trainYaml().toString(), "--gitops", bare.toString()).exit());
    MainTest.Run r =
        MainTest.run(
            "submit",
            project.trainYaml().toString(),
            "--gitops",
            bare.toString(),
            "--branch",
            "mian");
    assertEquals(2, r.exit(), r.err());
    assertTrue(
        r.err().startsWith("trainyard: error: --branch \"mian\" does not exist in file:"), r.err());
    assertEquals(
        2,
        MainTest.run(
                "submit",
                project.trainYaml().toString(),
                "--gitops",
                bare.toString(),
                "--branch",
                "refs/heads/main")
            .exit());
    MainTest.Run lock =
        MainTest.run(
            "submit",
            project.trainYaml().toString(),
            "--gitops",
            bare.toString(),
            "--branch",
            "runs.lock");
    assertEquals(2, lock.exit(), lock.err());
    assertTrue(
        lock.err().contains("--branch \"runs.lock\" is not a branch name"),
        "git's own ref-name rules, not a hand-made subset: " + lock.err());
    MainTest.Run creds =
        MainTest.run(
            "submit",
            "--gitops",
            "http://bot:tok3n@127.0.0.1:9/x.git",
            project.trainYaml().toString());
    assertTrue(
        creds.err().startsWith("trainyard: warning: the GitOps URL carries credentials"),
        creds.err());
    assertFalse(creds.err().contains("tok3n"), creds.err());
  }

  @Test
  @DisplayName(
      "prune needs run names or --older-than, and --older-than a duration: usage errors, exit 2")
  void pruneUsage() {
    assertEquals(2, MainTest.run("prune", "--gitops", bare.toString()).exit());
    assertEquals(
        2, MainTest.run("prune", "--gitops", bare.toString(), "x", "--older-than", "1d").exit());
    assertEquals(2, MainTest.run("prune", "--gitops", bare.toString(), "").exit());
    MainTest.Run running = MainTest.run("prune", "--gitops", bare.toString(), "--older-than", "1d");
    assertEquals(2, running.exit(), running.err());
    assertTrue(
        running.err().contains("--older-than selects runs by age only, running ones too")
            && running.err().contains("--include-running"),
        "an age-only prune that could remove running runs is refused: " + running.err());
    MainTest.Run r =
        MainTest.run(
            "prune", "--gitops", bare.toString(), "--older-than", "soon", "--include-running");
    assertEquals(2, r.exit());
    assertTrue(r.err().startsWith("trainyard: --older-than 'soon' is not a duration"), r.err());
  }

  /** The last {@code n} field names of {@code node}, in order. */
  static List<String> tail(JsonNode node, int n) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names.subList(names.size() - n, names.size());
  }

  @Test
  @DisplayName(
      "submit --fresh of a commit that already ran names --rerun (text and JSON); --rerun --fresh makes the new run")
  void freshNeedsRerun() throws Exception {
    TrainProject ck =
        TrainProject.create(temp.resolve("ck"), "run: torchrun train.py\ncheckpoint: {}\n");
    String file = ck.trainYaml().toString();
    MainTest.Run first = MainTest.run("submit", file, "--gitops", bare.toString());
    assertEquals(0, first.exit(), first.err());
    assertFalse(first.out().contains("--rerun --fresh"), first.out());
    MainTest.Run again = MainTest.run("submit", file, "--gitops", bare.toString(), "--fresh");
    assertEquals(0, again.exit(), again.err());
    assertTrue(
        again
            .out()
            .endsWith(
                "hint: --fresh starts over only in a new run, and this commit already ran:"
                    + " trainyard submit --rerun --fresh starts a new run of it from step 0\n"),
        again.out());
    MainTest.Run json =
        MainTest.run("submit", file, "--gitops", bare.toString(), "--fresh", "--output", "json");
    assertEquals(0, json.exit(), json.err());
    assertTrue(
        new ObjectMapper()
            .readTree(json.out())
            .path("hint")
            .asText()
            .startsWith("--fresh starts over only in a new run"),
        json.out());
    MainTest.Run plain = MainTest.run("submit", file, "--gitops", bare.toString());
    assertFalse(plain.out().contains("hint:"), "without --fresh nothing to say: " + plain.out());
    MainTest.Run rerun =
        MainTest.run("submit", file, "--gitops", bare.toString(), "--fresh", "--rerun");
    assertEquals(0, rerun.exit(), rerun.err());
    assertTrue(rerun.out().contains("1 new run(s)"), rerun.out());
    assertFalse(rerun.out().contains("hint:"), rerun.out());
  }

  /** {@code trainyard args} in-process in {@code dir} with only {@code env} as environment. */
  static MainTest.Run runIn(Path dir, Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(new Invocation(dir, env), new PrintWriter(out), new PrintWriter(err), args);
    return new MainTest.Run(exit, out.toString(), err.toString());
  }

  @Test
  @DisplayName(
      "in a job folder without TRAIN_YAML: submit reads ./train.yaml of the working directory and $TRAINYARD_GITOPS of its environment; --dry-run pushes nothing")
  void defaultsFromWorkingDirectoryAndEnvironment() throws Exception {
    Map<String, String> env = Map.of(GitOpsOptions.GITOPS_ENV, bare.toString());
    Path job = project.trainYaml().getParent();
    MainTest.Run dry = runIn(job, env, "submit", "--dry-run");
    assertEquals(0, dry.exit(), dry.err());
    assertTrue(
        dry.out()
            .matches(
                "(?s)run demo-[0-9a-f]{6}: .* — new\n"
                    + "dry run: would commit 1 new run\\(s\\) to file:.*gitops\\.git/ \\(main\\); nothing was pushed\n"),
        dry.out());
    assertEquals("", CliJvm.git(temp, "--git-dir", bare.toString(), "for-each-ref"));
    MainTest.Run json = runIn(job, env, "submit", "--dry-run", "--output", "json");
    JsonNode root = new ObjectMapper().readTree(json.out());
    assertEquals("train.yaml", root.path("runs").path(0).path("trainYaml").asText(), json.out());
    assertTrue(root.path("dryRun").asBoolean() && !root.path("pushed").asBoolean(), json.out());
    assertTrue(root.path("commit").isNull(), json.out());
  }

  @Test
  @DisplayName(
      "--changed-since HEAD in the working directory: nothing to submit (exit 0), as text and as JSON with no runs, 0 attempts and the note")
  void changedSinceNothing() throws Exception {
    MainTest.Run text =
        runIn(
            project.root(),
            Map.of(),
            "submit",
            "--changed-since",
            "HEAD",
            "--gitops",
            bare.toString());
    assertEquals(0, text.exit(), text.err());
    assertEquals("nothing to submit: no job folder changed since HEAD\n", text.out());
    assertEquals("", text.err());
    MainTest.Run json =
        runIn(
            project.root(),
            Map.of(),
            "submit",
            "--changed-since",
            "HEAD",
            "--gitops",
            bare.toString(),
            "--output",
            "json");
    assertEquals(0, json.exit(), json.err());
    JsonNode root = new ObjectMapper().readTree(json.out());
    assertEquals(0, root.path("runs").size());
    assertEquals(0, root.path("attempts").asInt());
    assertEquals("nothing to submit: no job folder changed since HEAD", root.path("note").asText());
    assertFalse(root.path("pushed").asBoolean());
    assertTrue(root.path("commit").isNull());
    assertEquals("main", root.path("branch").asText());
  }

  @Test
  @DisplayName(
      "--changed-since with the all-zero SHA submits every job of the working directory's repo; a branch the checkout lacks is a usage error (exit 2)")
  void changedSinceEverything() {
    MainTest.Run all =
        runIn(
            project.root(),
            Map.of(),
            "submit",
            "--changed-since",
            "0000000000000000000000000000000000000000",
            "--gitops",
            bare.toString());
    assertEquals(0, all.exit(), all.err());
    assertTrue(all.out().contains(" — new\n") && all.out().contains("1 new run(s)"), all.out());
    MainTest.Run missing =
        runIn(
            project.root(),
            Map.of(),
            "submit",
            "--changed-since",
            "no-such-branch",
            "--gitops",
            bare.toString());
    assertEquals(2, missing.exit(), missing.err());
    assertTrue(missing.err().startsWith("trainyard: error: "), missing.err());
    assertTrue(missing.err().contains("no-such-branch"), missing.err());
  }

  @Test
  @DisplayName(
      "a $TRAINYARD_GITOPS of an unknown scheme is a usage error naming the variable, not --gitops; a URL with credentials warns once")
  void gitopsFromEnvironment() {
    MainTest.Run bad =
        runIn(
            project.root(), Map.of(GitOpsOptions.GITOPS_ENV, "ftp://example.com/g.git"), "submit");
    assertEquals(2, bad.exit(), bad.err());
    assertTrue(bad.err().contains(GitOpsOptions.GITOPS_ENV), bad.err());
    assertFalse(bad.err().contains("--gitops"), bad.err());
    MainTest.Run creds =
        runIn(
            project.root(),
            Map.of(),
            "submit",
            "--gitops",
            "https://bot:tok3n@127.0.0.1:9/acme/gitops.git",
            "--branch",
            "refs/heads/main");
    assertEquals(2, creds.exit(), creds.err());
    assertTrue(
        creds
            .err()
            .startsWith(
                "trainyard: --branch \"refs/heads/main\" is not a branch name: git refuses blanks,"),
        creds.err());
    assertTrue(creds.err().contains(" (give it without refs/heads/)\n"), creds.err());
  }

  @Test
  @DisplayName(
      "--output json of a compile error: exit 1, the error counted, no run, nothing pushed")
  void jsonCompileError() throws Exception {
    TrainProject bad =
        TrainProject.create(temp.resolve("bad"), "run: torchrun train.py\nnodes: 0\n");
    MainTest.Run r =
        runIn(
            bad.root(),
            Map.of(GitOpsOptions.GITOPS_ENV, bare.toString()),
            "submit",
            bad.trainYaml().toString(),
            "--output",
            "json");
    assertEquals(1, r.exit(), r.err());
    JsonNode root = new ObjectMapper().readTree(r.out());
    assertEquals(1, root.path("errors").asInt(), r.out());
    assertEquals("E204", root.at("/diagnostics/0/code").asText(), r.out());
    assertFalse(root.path("pushed").asBoolean(), r.out());
    assertEquals("", CliJvm.git(temp, "--git-dir", bare.toString(), "for-each-ref"));
  }

  @Test
  @DisplayName(
      "a re-submit whose run is still in the repo says only `already in` (no word of pruning); --fresh on a first submit makes the run with no hint")
  void unchangedAndFreshFirst() {
    Map<String, String> env = Map.of(GitOpsOptions.GITOPS_ENV, bare.toString());
    TrainProject ck =
        TrainProject.create(temp.resolve("ck"), "run: torchrun train.py\ncheckpoint: {}\n");
    MainTest.Run first = runIn(ck.root(), env, "submit", ck.trainYaml().toString(), "--fresh");
    assertEquals(0, first.exit(), first.err());
    assertTrue(first.out().endsWith(": 1 new run(s)\n"), first.out());
    assertFalse(first.out().contains("hint:"), first.out());
    MainTest.Run again = runIn(ck.root(), env, "submit", ck.trainYaml().toString());
    assertEquals(0, again.exit(), again.err());
    String where = GitOpsLocation.parse(bare.toString(), temp).shown() + " (main)";
    assertTrue(
        again
            .out()
            .endsWith(
                " — already in the GitOps repo, unchanged\n"
                    + "nothing to submit: every run is already in "
                    + where
                    + "\n"),
        again.out());
  }

  @Test
  @DisplayName(
      "--changed-since a full SHA the checkout lacks, when HEAD's own commit changed no job: W810 on stderr, then nothing to submit (exit 0)")
  void changedSinceMissingShaNothing() throws Exception {
    java.nio.file.Files.writeString(project.root().resolve("README.md"), "docs\n");
    CliJvm.git(project.root(), "add", "README.md");
    CliJvm.git(
        project.root(),
        "-c",
        "user.name=T",
        "-c",
        "user.email=t@example.com",
        "commit",
        "-q",
        "-m",
        "docs");
    String missing = "1234567890123456789012345678901234567890";
    MainTest.Run r =
        runIn(
            project.root(),
            Map.of(),
            "submit",
            "--changed-since",
            missing,
            "--gitops",
            bare.toString());
    assertEquals(0, r.exit(), r.err());
    assertEquals("nothing to submit: no job folder changed since " + missing + "\n", r.out());
    assertTrue(r.err().contains("warning[W810]"), r.err());
  }
}
