package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.gitops.integration.YamlScalars.Scalar;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@code examples/ci/github/trainyard.yml}, the GitHub Actions workflow for a
 * source repo: triggers, the fork guard, permissions, the comment marker, tokens only through env
 * from secrets, submit only on the default branch, full-depth checkouts, concurrency, and
 * bash-parseable scripts.
 */
class GitHubWorkflowTest {
  static final String FILE = "examples/ci/github/trainyard.yml";
  static final JsonNode WORKFLOW = RepoFiles.yaml(FILE);
  static final JsonNode PREVIEW = WORKFLOW.at("/jobs/preview");
  static final JsonNode SUBMIT = WORKFLOW.at("/jobs/submit");
  static final String SAME_REPO =
      "github.event.pull_request.head.repo.full_name == github.repository";

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
      "the preview skips fork pull requests unless vars.TRAINYARD_PREVIEW_FORKS is 'true', and forks never comment")
  void forkGuard() {
    assertEquals(
        "github.event_name == 'pull_request' && ("
            + SAME_REPO
            + " || vars.TRAINYARD_PREVIEW_FORKS == 'true')",
        PREVIEW.path("if").asText().replaceAll("\\s+", " ").trim());
    assertTrue(
        step(PREVIEW, "actions/github-script")
            .path("if")
            .asText()
            .replaceAll("\\s+", " ")
            .trim()
            .endsWith(") && " + SAME_REPO),
        "the comment step requires a same-repo pull request");
  }

  @Test
  @DisplayName(
      "permissions are minimal: contents read everywhere, pull-requests write only for the preview")
  void permissions() {
    assertEquals(Map.of("contents", "read"), map(WORKFLOW.path("permissions")));
    assertEquals(
        Map.of("contents", "read", "pull-requests", "write"), map(PREVIEW.path("permissions")));
    assertEquals(Map.of("contents", "read"), map(SUBMIT.path("permissions")));
  }

  @Test
  @DisplayName(
      "the preview runs with the given flags on the pull request's base and head SHAs, into preview-N.md parts with room for the marker line")
  void previewCommand() {
    JsonNode preview = stepNamed(PREVIEW, "Preview");
    assertTrue(
        preview
            .path("run")
            .asText()
            .contains(
                "trainyard preview --gitops \"$TRAINYARD_GITOPS\" --base \"$BASE_SHA\" --head \"$HEAD_SHA\" --out \"$PREVIEW_DIR\" --part-size 65000"),
        preview.path("run").asText());
    assertEquals("${{ github.event.pull_request.base.sha }}", preview.at("/env/BASE_SHA").asText());
    assertEquals("${{ github.event.pull_request.head.sha }}", preview.at("/env/HEAD_SHA").asText());
    assertEquals("${{ vars.TRAINYARD_GITOPS }}", preview.at("/env/TRAINYARD_GITOPS").asText());
    assertEquals(
        "${{ secrets.TRAINYARD_GITOPS_READ_TOKEN }}",
        preview.at("/env/TRAINYARD_GITOPS_TOKEN").asText());
  }

  @Test
  @DisplayName(
      "the comment is found by its hidden marker and updated in place; parts get their own markers, left-overs are deleted")
  void commentUpsert() {
    JsonNode script = step(PREVIEW, "actions/github-script");
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
        stepNamed(PREVIEW, "Preview").at("/env/PREVIEW_DIR").asText(),
        script.at("/env/PREVIEW_DIR").asText());
  }

  @Test
  @DisplayName(
      "the preview step comes first, then the comment, then the check fails on a non-zero preview exit")
  void previewOrder() {
    int preview = index(PREVIEW, "Preview");
    int comment = index(PREVIEW, "Post the preview as one comment, updated in place");
    int fail = index(PREVIEW, "Fail on preview problems");
    assertTrue(
        index(PREVIEW, "Put trainyard on PATH") < preview && preview < comment && comment < fail);
    assertEquals(
        "steps.preview.outputs.exit-code != '0'", PREVIEW.at("/steps/" + fail + "/if").asText());
    assertTrue(
        stepNamed(PREVIEW, "Post the preview as one comment, updated in place")
            .path("if")
            .asText()
            .contains("steps.preview.outputs.exit-code == '1'"),
        "diagnostics (exit 1) are posted too");
  }

  @Test
  @DisplayName(
      "submit runs only on a push to the default branch, with the token from a secret in env")
  void submitOnDefaultBranch() {
    assertEquals(
        "github.event_name == 'push' && github.ref == format('refs/heads/{0}', github.event.repository.default_branch)",
        SUBMIT.path("if").asText());
    JsonNode submit = stepNamed(SUBMIT, "Submit");
    assertEquals(
        "trainyard submit --changed-since \"$BEFORE_SHA\" --gitops \"$TRAINYARD_GITOPS\"",
        submit.path("run").asText().trim());
    assertEquals(
        "${{ github.event.before }}",
        submit.at("/env/BEFORE_SHA").asText(),
        "the jobs the push changed, as the preview selected them");
    assertEquals(
        "${{ secrets.TRAINYARD_GITOPS_TOKEN }}", submit.at("/env/TRAINYARD_GITOPS_TOKEN").asText());
    assertEquals(
        List.of("/jobs/submit/steps/" + index(SUBMIT, "Submit") + "/run"),
        pathsContaining("trainyard submit "));
    assertEquals(
        List.of("/jobs/preview/steps/" + index(PREVIEW, "Preview") + "/run"),
        pathsContaining("trainyard preview --"));
  }

  @Test
  @DisplayName(
      "secrets appear only as step env values, never inline in a script, and no credential flag exists")
  void tokensOnlyThroughEnv() {
    List<String> secretUses = new ArrayList<>();
    for (Scalar s : YamlScalars.strings(WORKFLOW)) {
      if (s.value().contains("secrets.")) {
        secretUses.add(s.path());
        assertTrue(
            s.path().matches("/jobs/[a-z]+/steps/\\d+/env/TRAINYARD_GITOPS_TOKEN"), s.path());
      }
      if (s.path().endsWith("/run")) {
        assertFalse(
            s.value().contains("${{"),
            "expressions go through env, never into a script: " + s.path());
      }
      assertFalse(
          CREDENTIAL_FLAG.matcher(s.value()).find(),
          "credential flag in " + s.path() + ": " + s.value());
    }
    assertEquals(2, secretUses.size(), secretUses.toString());
  }

  @Test
  @DisplayName(
      "every checkout of the source repo fetches full history (fetch-depth 0) and no checkout keeps credentials")
  void checkouts() {
    for (JsonNode job : List.of(PREVIEW, SUBMIT)) {
      JsonNode source = job.at("/steps/0");
      assertTrue(source.path("uses").asText().startsWith("actions/checkout@"));
      assertEquals(0, source.at("/with/fetch-depth").asInt(-1));
      for (JsonNode step : job.path("steps")) {
        if (step.path("uses").asText().startsWith("actions/checkout@")) {
          assertFalse(step.at("/with/persist-credentials").asBoolean(true), step.toString());
        }
      }
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
      "both jobs obtain trainyard the same way: a cached build of a pinned Trainyard commit, put on PATH")
  void obtainTrainyard() {
    assertTrue(
        WORKFLOW.at("/env/TRAINYARD_REF").asText().matches("[0-9a-f]{40}"), "a full commit SHA");
    List<JsonNode> previewSteps = obtainSteps(PREVIEW);
    assertEquals(previewSteps, obtainSteps(SUBMIT));
    JsonNode cache = stepNamed(PREVIEW, "Restore the Trainyard distribution");
    assertEquals("trainyard-dist-${{ env.TRAINYARD_REF }}", cache.at("/with/key").asText());
    assertEquals("~/.cache/trainyard-dist", cache.at("/with/path").asText());
    assertEquals(
        "${{ env.TRAINYARD_REF }}",
        stepNamed(PREVIEW, "Check out Trainyard (pinned)").at("/with/ref").asText());
    String build = stepNamed(PREVIEW, "Build Trainyard").path("run").asText();
    assertTrue(
        build.contains("mvn -B -q -f .trainyard-src/pom.xml -pl cli -am -DskipTests package"),
        build);
    assertTrue(
        build.contains("-C \"$HOME/.cache/trainyard-dist\" --strip-components=1"),
        "unpacks where the cache looks");
    assertTrue(
        stepNamed(PREVIEW, "Put trainyard on PATH")
            .path("run")
            .asText()
            .contains("echo \"$HOME/.cache/trainyard-dist/bin\" >> \"$GITHUB_PATH\""));
    for (String name : List.of("Check out Trainyard (pinned)", "Build Trainyard")) {
      assertEquals(
          "steps.trainyard-cache.outputs.cache-hit != 'true'",
          stepNamed(PREVIEW, name).path("if").asText());
    }
    assertEquals("17", stepNamed(PREVIEW, "Set up Java 17").at("/with/java-version").asText());
  }

  @Test
  @DisplayName("every run script parses with bash -n")
  void scriptsParse() throws Exception {
    for (Scalar s : YamlScalars.strings(WORKFLOW)) {
      if (s.path().endsWith("/run")) {
        assertEquals("", BashSyntax.errors(s.value()), s.path());
      }
    }
  }

  private static List<JsonNode> obtainSteps(JsonNode job) {
    int from = index(job, "Set up Java 17");
    int to = index(job, "Put trainyard on PATH");
    List<JsonNode> steps = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      steps.add(job.at("/steps/" + i));
    }
    assertEquals(5, steps.size(), "Java, cache, Trainyard checkout, build, PATH");
    return steps;
  }

  private static List<String> pathsContaining(String text) {
    return YamlScalars.strings(WORKFLOW).stream()
        .filter(s -> s.value().contains(text) && !s.path().endsWith("/name"))
        .map(Scalar::path)
        .toList();
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
    Map<String, String> out = new java.util.TreeMap<>();
    object.properties().forEach(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }
}
