package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.gitops.integration.YamlScalars.Scalar;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract of the composite GitHub Action {@code action.yml} and of {@code
 * examples/ci/github/trainyard.yml}, the workflow a source repo copies, which uses it: triggers,
 * the fork guard, permissions, the comment marker, tokens only through env from secrets, submit
 * only on the default branch, full-depth checkouts, concurrency, one cached build per Trainyard
 * source, and bash-parseable scripts.
 */
class GitHubWorkflowTest {
  static final String FILE = "examples/ci/github/trainyard.yml";
  static final JsonNode WORKFLOW = RepoFiles.yaml(FILE);
  static final JsonNode ACTION = RepoFiles.yaml("action.yml");
  static final JsonNode RUNS = ACTION.path("runs");
  static final JsonNode PREVIEW = WORKFLOW.at("/jobs/preview");
  static final JsonNode SUBMIT = WORKFLOW.at("/jobs/submit");
  static final String SAME_REPO =
      "github.event.pull_request.head.repo.full_name == github.repository";
  static final Pattern PINNED = Pattern.compile("trainyard-dev/trainyard@[0-9a-f]{40}");

  /** A flag that would put a credential on a command line (visible in ps, logs, shell history). */
  static final Pattern CREDENTIAL_FLAG =
      Pattern.compile("(?i)(^|\\s)--?[a-z-]*(token|password|passwd|secret|credential)");

  @Test
  @DisplayName(
      "runs on pull requests and on pushes to main, and has exactly the jobs preview and submit")
  void triggers() {
    assertEquals(
        List.of("opened", "synchronize", "reopened"), texts(WORKFLOW.at("/on/pull_request/types")));
    assertEquals(List.of("main"), texts(WORKFLOW.at("/on/push/branches")));
    assertEquals(List.of("pull_request", "push"), names(WORKFLOW.path("on")));
    assertEquals(List.of("preview", "submit"), names(WORKFLOW.path("jobs")));
  }

  @Test
  @DisplayName(
      "the preview skips fork pull requests (GitHub gives them no secrets and no vars.*, so no opt-in read from vars can work), and forks never comment")
  void forkGuard() {
    assertEquals(
        "github.event_name == 'pull_request' && " + SAME_REPO,
        PREVIEW.path("if").asText().replaceAll("\\s+", " ").trim());
    assertFalse(
        RepoFiles.text(FILE).contains("TRAINYARD_PREVIEW_FORKS"),
        "a fork opt-in in vars.* is never true in a fork's run");
    assertTrue(WORKFLOW.at("/on/pull_request_target").isMissingNode());
    String comment = step(RUNS, "actions/github-script").path("if").asText();
    assertTrue(
        comment.replaceAll("\\s+", " ").trim().endsWith(") && " + SAME_REPO),
        "the comment step requires a same-repo pull request");
    assertTrue(
        comment.startsWith("(inputs.command == 'preview' || inputs.command == 'gitops-preview')"),
        comment);
  }

  @Test
  @DisplayName(
      "permissions are minimal: contents read everywhere, pull-requests write only for the preview")
  void permissions() {
    assertEquals(Map.of("contents", "read"), map(WORKFLOW.path("permissions")));
    assertEquals(
        Map.of("contents", "read", "pull-requests", "write"), map(PREVIEW.path("permissions")));
    assertTrue(SUBMIT.path("permissions").isMissingNode(), "submit keeps contents: read");
  }

  @Test
  @DisplayName(
      "the action runs preview with the given flags on the pull request's base and head SHAs, into preview-N.md parts with room for the marker line")
  void previewCommand() {
    JsonNode run = stepNamed(RUNS, "Run trainyard");
    assertTrue(
        run.path("run")
            .asText()
            .contains(
                "trainyard preview --gitops \"$TRAINYARD_GITOPS\" --base \"$BASE_SHA\" --head \"$HEAD_SHA\" --out \"$PREVIEW_DIR\" --part-size 65000"),
        run.path("run").asText());
    assertEquals("${{ github.event.pull_request.base.sha }}", run.at("/env/BASE_SHA").asText());
    assertEquals("${{ github.event.pull_request.head.sha }}", run.at("/env/HEAD_SHA").asText());
    assertEquals("${{ inputs.gitops }}", run.at("/env/TRAINYARD_GITOPS").asText());
    JsonNode uses = usesStep(PREVIEW);
    assertEquals("preview", uses.at("/with/command").asText());
    assertEquals("${{ vars.TRAINYARD_GITOPS }}", uses.at("/with/gitops").asText());
    assertEquals(
        "${{ secrets.TRAINYARD_GITOPS_READ_TOKEN }}",
        uses.at("/env/TRAINYARD_GITOPS_TOKEN").asText());
  }

  @Test
  @DisplayName(
      "the comment is found by its hidden marker and updated in place; parts get their own markers, left-overs are deleted")
  void commentUpsert() {
    JsonNode script = step(RUNS, "actions/github-script");
    assertTrue(script.path("uses").asText().startsWith("actions/github-script@v"));
    String js = script.at("/with/script").asText();
    for (String needle :
        List.of(
            "'<!-- trainyard-preview -->'",
            "`<!-- trainyard-preview part ${n} -->`",
            "github.paginate(github.rest.issues.listComments",
            "github.rest.issues.updateComment",
            "github.rest.issues.createComment",
            "github.rest.issues.deleteComment",
            "/^preview-(\\d+)\\.md$/",
            "65536")) {
      assertTrue(js.contains(needle), needle);
    }
    assertEquals("${{ runner.temp }}/trainyard-preview", script.at("/env/PREVIEW_DIR").asText());
    assertEquals(
        stepNamed(RUNS, "Run trainyard").at("/env/PREVIEW_DIR").asText(),
        script.at("/env/PREVIEW_DIR").asText());
  }

  @Test
  @DisplayName(
      "trainyard runs first, then the comment, then the step fails on a non-zero exit (diagnostics are posted too)")
  void previewOrder() {
    int run = index(RUNS, "Run trainyard");
    int comment = index(RUNS, "Post the preview as one comment, updated in place");
    int fail = index(RUNS, "Fail on trainyard problems");
    assertTrue(index(RUNS, "Put trainyard on PATH") < run && run < comment && comment < fail);
    assertEquals("steps.run.outputs.exit-code != '0'", RUNS.at("/steps/" + fail + "/if").asText());
    assertTrue(
        RUNS.at("/steps/" + comment + "/if")
            .asText()
            .contains("steps.run.outputs.exit-code == '1'"),
        "diagnostics (exit 1) are posted too");
  }

  @Test
  @DisplayName(
      "submit runs only on a push to the default branch, with the token from a secret in env")
  void submitOnDefaultBranch() {
    assertEquals(
        "github.event_name == 'push' && github.ref == format('refs/heads/{0}', github.event.repository.default_branch)",
        SUBMIT.path("if").asText());
    JsonNode run = stepNamed(RUNS, "Run trainyard");
    assertTrue(
        run.path("run")
            .asText()
            .contains(
                "trainyard submit --changed-since \"$BEFORE_SHA\" --gitops \"$TRAINYARD_GITOPS\""),
        run.path("run").asText());
    assertEquals(
        "${{ github.event.before }}",
        run.at("/env/BEFORE_SHA").asText(),
        "the jobs the push changed, as the preview selected them");
    JsonNode uses = usesStep(SUBMIT);
    assertEquals("submit", uses.at("/with/command").asText());
    assertEquals(
        "${{ secrets.TRAINYARD_GITOPS_TOKEN }}", uses.at("/env/TRAINYARD_GITOPS_TOKEN").asText());
  }

  @Test
  @DisplayName(
      "the action refuses a command other than preview or submit, and a command on the wrong event, with exit 2")
  void commandChecked() {
    String check = stepNamed(RUNS, "Check the command").path("run").asText();
    assertTrue(
        check.contains(
            "preview:pull_request | preview:pull_request_target | submit:push | gitops-preview:pull_request) ;;"));
    assertTrue(check.contains("exit 2"));
    assertTrue(ACTION.at("/inputs/command/required").asBoolean(false));
    assertFalse(
        ACTION.at("/inputs/gitops/required").asBoolean(true),
        "gitops-preview (the GitOps repo itself) needs no URL; the step checks it for the others");
    assertTrue(check.contains("needs the gitops input"));
  }

  @Test
  @DisplayName(
      "secrets appear only as step env values of the workflow, never in the action; no credential flag or input exists")
  void tokensOnlyThroughEnv() {
    List<String> secretUses = new ArrayList<>();
    for (Scalar s : YamlScalars.strings(WORKFLOW)) {
      if (s.value().contains("secrets.")) {
        secretUses.add(s.path());
        assertTrue(
            s.path().matches("/jobs/[a-z]+/steps/\\d+/env/TRAINYARD_GITOPS_TOKEN"), s.path());
      }
      assertFalse(
          CREDENTIAL_FLAG.matcher(s.value()).find(),
          "credential flag in " + s.path() + ": " + s.value());
    }
    assertEquals(2, secretUses.size(), secretUses.toString());
    for (Scalar s : YamlScalars.strings(ACTION)) {
      assertFalse(s.value().contains("secrets."), s.path());
      if (s.path().endsWith("/run")) {
        assertFalse(
            s.value().contains("${{"),
            "expressions go through env, never into a script: " + s.path());
        assertFalse(CREDENTIAL_FLAG.matcher(s.value()).find(), s.path() + ": " + s.value());
      }
    }
    for (String input : names(ACTION.path("inputs"))) {
      assertFalse(input.toLowerCase(Locale.ROOT).contains("token"), input);
    }
  }

  @Test
  @DisplayName(
      "every checkout of the source repo fetches full history (fetch-depth 0) and keeps no credentials")
  void checkouts() {
    for (JsonNode job : List.of(PREVIEW, SUBMIT)) {
      JsonNode source = job.at("/steps/0");
      assertTrue(source.path("uses").asText().startsWith("actions/checkout@"));
      assertEquals(0, source.at("/with/fetch-depth").asInt(-1));
      assertFalse(source.at("/with/persist-credentials").asBoolean(true), source.toString());
    }
    assertEquals(
        "${{ github.event.pull_request.head.sha }}", PREVIEW.at("/steps/0/with/ref").asText());
  }

  @Test
  @DisplayName(
      "concurrency: a newer push cancels an older preview; submits are grouped per commit and never cancelled")
  void concurrency() {
    assertEquals(
        "trainyard-preview-${{ github.event.pull_request.number }}",
        PREVIEW.at("/concurrency/group").asText());
    assertTrue(PREVIEW.at("/concurrency/cancel-in-progress").asBoolean(false));
    assertEquals("trainyard-submit-${{ github.sha }}", SUBMIT.at("/concurrency/group").asText());
    assertFalse(SUBMIT.at("/concurrency/cancel-in-progress").asBoolean(true));
  }

  @Test
  @DisplayName(
      "both jobs use the action at one pinned SHA; it builds Trainyard from its own source once, cached by that source's content, and puts it on PATH")
  void obtainTrainyard() {
    String preview = usesStep(PREVIEW).path("uses").asText();
    assertTrue(PINNED.matcher(preview).matches(), preview);
    assertEquals(preview, usesStep(SUBMIT).path("uses").asText());
    assertEquals("composite", RUNS.path("using").asText());
    for (String half : List.of("actions/cache/restore", "actions/cache/save")) {
      JsonNode cache = step(RUNS, half);
      assertEquals("~/.cache/trainyard-dist", cache.at("/with/path").asText(), half);
      assertEquals("${{ steps.key.outputs.key }}", cache.at("/with/key").asText(), half);
    }
    String key = stepNamed(RUNS, "Key Trainyard's build by its source").path("run").asText();
    assertTrue(key.contains("cd \"$GITHUB_ACTION_PATH\""), key);
    assertTrue(
        key.contains(
            "java=\"$( { cat \"$JAVA_HOME/release\" 2>/dev/null || \"$JAVA_HOME/bin/java\" -version 2>&1; }"
                + " | sha256sum"
                + " | cut -c1-12)\""),
        "a new Java builds (and archives) again: " + key);
    assertTrue(
        key.contains("echo \"key=trainyard-dist-$RUNNER_OS-$key-$java\" >> \"$GITHUB_OUTPUT\""),
        key);
    JsonNode build = stepNamed(RUNS, "Build Trainyard");
    assertEquals("steps.cache.outputs.cache-hit != 'true'", build.path("if").asText());
    assertTrue(
        build
            .path("run")
            .asText()
            .contains(
                "mvn -B -q -f \"$GITHUB_ACTION_PATH/pom.xml\" -pl cli -am -DskipTests package"));
    assertTrue(
        build
            .path("run")
            .asText()
            .contains("-C \"$HOME/.cache/trainyard-dist\" --strip-components=1"),
        "unpacks where the cache looks");
    assertTrue(
        build
            .path("run")
            .asText()
            .contains(
                "TRAINYARD_STARTUP_ARCHIVE=on"
                    + " TRAINYARD_STARTUP_DIR=\"$HOME/.cache/trainyard-dist/startup\" \\\n"
                    + "  \"$HOME/.cache/trainyard-dist/bin/trainyard\" --version"),
        "makes the start-up archive inside the cached folder, before the save: " + build);
    String path = stepNamed(RUNS, "Put trainyard on PATH").path("run").asText();
    assertTrue(path.contains("echo \"$HOME/.cache/trainyard-dist/bin\" >> \"$GITHUB_PATH\""));
    assertTrue(
        path.contains(
            "echo \"TRAINYARD_STARTUP_DIR=$HOME/.cache/trainyard-dist/startup\" >> \"$GITHUB_ENV\""),
        "later calls find the cached archive (under CI the launcher makes none): " + path);
    assertEquals("17", ACTION.at("/inputs/java-version/default").asText());
  }

  @Test
  @DisplayName(
      "the distribution is saved right after it is built, before trainyard runs: a failing preview keeps the cache (actions/cache saves only on success)")
  void cacheSavedBeforeTrainyardRuns() {
    int restore = index(RUNS, "Restore the Trainyard distribution");
    int build = index(RUNS, "Build Trainyard");
    int save = -1;
    for (int i = 0; i < RUNS.path("steps").size(); i++) {
      if (RUNS.at("/steps/" + i + "/uses").asText().startsWith("actions/cache/save@")) {
        save = i;
      }
    }
    int run = index(RUNS, "Run trainyard");
    assertTrue(
        restore < build && build < save && save < run,
        restore + " " + build + " " + save + " " + run);
    assertEquals(
        "steps.cache.outputs.cache-hit != 'true'", RUNS.at("/steps/" + save + "/if").asText());
    assertTrue(
        RUNS.at("/steps/" + restore + "/uses").asText().startsWith("actions/cache/restore@"));
    for (JsonNode step : RUNS.path("steps")) {
      assertFalse(
          step.path("uses").asText().startsWith("actions/cache@"),
          "actions/cache saves only on success");
    }
  }

  @Test
  @DisplayName(
      "every action is at its current major (the newest actionlint 1.7.12 knows) or a full commit SHA")
  void currentMajors() {
    Map<String, String> current =
        Map.of(
            "actions/checkout", "v6",
            "actions/setup-java", "v5",
            "actions/cache/restore", "v5",
            "actions/cache/save", "v5",
            "actions/github-script", "v8");
    List<String> uses = new ArrayList<>();
    for (Scalar s : YamlScalars.strings(ACTION)) {
      if (s.path().endsWith("/uses")) {
        uses.add(s.value());
      }
    }
    for (Scalar s : YamlScalars.strings(WORKFLOW)) {
      if (s.path().endsWith("/uses")) {
        uses.add(s.value());
      }
    }
    assertTrue(uses.size() >= 7, uses.toString());
    for (String u : uses) {
      String name = u.substring(0, u.indexOf('@'));
      String ref = u.substring(u.indexOf('@') + 1);
      assertTrue(
          ref.matches("[0-9a-f]{40}") || ref.equals(current.get(name)),
          u + ": pin a full commit SHA or the current major " + current.get(name));
    }
  }

  @Test
  @DisplayName("every run script of the action parses with bash -n")
  void scriptsParse() throws Exception {
    for (Scalar s : YamlScalars.strings(ACTION)) {
      if (s.path().endsWith("/run")) {
        assertEquals("", BashSyntax.errors(s.value()), s.path());
      }
    }
  }

  private static JsonNode usesStep(JsonNode job) {
    return step(job, "trainyard-dev/trainyard");
  }

  static JsonNode step(JsonNode job, String usesPrefix) {
    for (JsonNode step : job.path("steps")) {
      if (step.path("uses").asText().startsWith(usesPrefix + "@")) {
        return step;
      }
    }
    throw new AssertionError("no step uses " + usesPrefix);
  }

  static JsonNode stepNamed(JsonNode job, String name) {
    return job.at("/steps/" + index(job, name));
  }

  static int index(JsonNode job, String name) {
    for (int i = 0; i < job.path("steps").size(); i++) {
      if (name.equals(job.at("/steps/" + i + "/name").asText())) {
        return i;
      }
    }
    throw new AssertionError("no step named " + name);
  }

  static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  static List<String> names(JsonNode object) {
    List<String> out = new ArrayList<>();
    object.fieldNames().forEachRemaining(out::add);
    return out;
  }

  static Map<String, String> map(JsonNode object) {
    Map<String, String> out = new TreeMap<>();
    object.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }
}
