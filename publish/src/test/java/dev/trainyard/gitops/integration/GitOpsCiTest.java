package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.gitops.integration.YamlScalars.Scalar;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GitOps repo's own CI ({@code examples/ci/github/trainyard-gitops.yml}, {@code
 * examples/ci/gitlab/gitops/.gitlab-ci.yml}): on a pull request, {@code trainyard platform render
 * --check} and the GitOps-mode preview, posted as the source repo's is. The action's and the
 * template's script lines run under bash with a stand-in {@code trainyard} that records its calls
 * and exits as told.
 */
class GitOpsCiTest {
  static final String WORKFLOW_FILE = "examples/ci/github/trainyard-gitops.yml";
  static final String GITLAB_FILE = "examples/ci/gitlab/gitops/.gitlab-ci.yml";
  static final JsonNode WORKFLOW = RepoFiles.yaml(WORKFLOW_FILE);
  static final JsonNode RUNS = GitHubWorkflowTest.RUNS;
  static final JsonNode TEMPLATE = RepoFiles.yamlDocuments("templates/trainyard.yml").get(1);
  static final JsonNode SPEC = RepoFiles.yamlDocuments("templates/trainyard.yml").get(0);

  @TempDir Path temp;

  @Test
  @DisplayName(
      "the GitOps workflow runs on pull requests only, forks included, with no secret or variable, and calls the pinned action's gitops-preview")
  void workflow() {
    assertEquals(List.of("pull_request"), GitHubWorkflowTest.names(WORKFLOW.path("on")));
    assertEquals(List.of("preview"), GitHubWorkflowTest.names(WORKFLOW.path("jobs")));
    JsonNode job = WORKFLOW.at("/jobs/preview");
    assertTrue(job.path("if").isMissingNode(), "forks get the check and the job summary");
    assertEquals(
        Map.of("contents", "read", "pull-requests", "write"),
        GitHubWorkflowTest.map(job.path("permissions")));
    JsonNode checkout = GitHubWorkflowTest.step(job, "actions/checkout");
    assertEquals(0, checkout.at("/with/fetch-depth").asInt(-1), "the base commit must exist");
    assertTrue(
        checkout.at("/with/ref").isMissingNode(),
        "checks out GITHUB_SHA, the merge commit (what will be merged), never the head alone");
    JsonNode uses = GitHubWorkflowTest.step(job, "trainyard-dev/trainyard");
    assertTrue(GitHubWorkflowTest.PINNED.matcher(uses.path("uses").asText()).matches());
    assertEquals(Map.of("command", "gitops-preview"), GitHubWorkflowTest.map(uses.path("with")));
    for (Scalar s : YamlScalars.strings(WORKFLOW)) {
      assertTrue(
          !s.value().contains("secrets.") && !s.value().contains("vars."),
          "needs no secret or variable: " + s.path());
    }
  }

  @Test
  @DisplayName(
      "the action accepts gitops-preview on a pull request without a gitops URL, refuses preview and submit without one, and gitops-preview on a push (exit 2)")
  void commandChecked() throws Exception {
    String check = GitHubWorkflowTest.stepNamed(RUNS, "Check the command").path("run").asText();
    assertEquals(
        0,
        bash(check, Map.of("COMMAND", "gitops-preview", "EVENT", "pull_request", "GITOPS", ""))
            .exit());
    Run preview = bash(check, Map.of("COMMAND", "preview", "EVENT", "pull_request", "GITOPS", ""));
    assertEquals(2, preview.exit());
    assertTrue(preview.out().contains("use command: gitops-preview"), preview.out());
    assertEquals(
        0,
        bash(
                check,
                Map.of("COMMAND", "preview", "EVENT", "pull_request", "GITOPS", "https://g/x.git"))
            .exit());
    assertEquals(
        2, bash(check, Map.of("COMMAND", "gitops-preview", "EVENT", "push", "GITOPS", "")).exit());
    assertEquals(
        2, bash(check, Map.of("COMMAND", "render", "EVENT", "pull_request", "GITOPS", "")).exit());
    assertTrue(
        GitHubWorkflowTest.step(RUNS, "actions/github-script")
            .path("if")
            .asText()
            .contains("inputs.command == 'preview' || inputs.command == 'gitops-preview'"),
        "the comment is posted for both");
  }

  @Test
  @DisplayName(
      "the action's gitops-preview runs platform render --check, then preview of base and the merge commit without --gitops; the worse exit code is the step's")
  void actionRuns() throws Exception {
    String run = GitHubWorkflowTest.stepNamed(RUNS, "Run trainyard").path("run").asText();
    Map<String, String> env =
        Map.of("COMMAND", "gitops-preview", "BASE_SHA", "b1", "HEAD_SHA", "h1", "MERGE_SHA", "m1");
    Run clean = trainyard(run, env, 0, 0);
    assertEquals(
        List.of(
            "platform render --check",
            "preview --base b1 --head m1 --out " + temp.resolve("preview") + " --part-size 65000"),
        clean.calls());
    assertEquals("exit-code=0", Files.readString(temp.resolve("output")).strip());
    trainyard(run, env, 1, 0);
    assertEquals(
        "exit-code=1",
        Files.readString(temp.resolve("output")).strip(),
        "stale files fail the step");
    trainyard(run, env, 1, 3);
    assertEquals("exit-code=3", Files.readString(temp.resolve("output")).strip());
    trainyard(run, env, 2, 1);
    assertEquals("exit-code=2", Files.readString(temp.resolve("output")).strip());
  }

  @Test
  @DisplayName(
      "the GitLab file includes the template with kind gitops, runs merge request pipelines only and never submit")
  void gitlabFile() {
    JsonNode user = RepoFiles.yaml(GITLAB_FILE);
    assertEquals("gitops", user.at("/include/0/inputs/kind").asText());
    assertEquals(user.at("/include/0/ref").asText(), user.at("/include/0/inputs/ref").asText());
    assertEquals(2, user.at("/workflow/rules").size());
    assertEquals(
        "$CI_PIPELINE_SOURCE == \"merge_request_event\"", user.at("/workflow/rules/0/if").asText());
    assertEquals("never", user.at("/workflow/rules/1/when").asText());
    assertEquals("never", user.at("/trainyard-submit/rules/0/when").asText());
    assertEquals(
        List.of("source", "gitops"),
        GitHubWorkflowTest.texts(SPEC.at("/spec/inputs/kind/options")));
    assertEquals("source", SPEC.at("/spec/inputs/kind/default").asText());
    assertEquals(
        "$[[ inputs.kind ]]", TEMPLATE.at("/.trainyard/variables/TRAINYARD_KIND").asText());
  }

  @Test
  @DisplayName(
      "the template's preview job: kind gitops runs platform render --check and the GitOps preview; kind source the source preview")
  void gitlabRuns() throws Exception {
    List<String> lines = GitHubWorkflowTest.texts(TEMPLATE.at("/trainyard-preview/script"));
    int from = -1;
    int to = -1;
    for (int i = 0; i < lines.size(); i++) {
      from = from < 0 && lines.get(i).startsWith("PREVIEW_BASE=") ? i : from;
      to = to < 0 && lines.get(i).contains("trainyard preview --") ? i : to;
    }
    String script =
        "status=0\n"
            + String.join("\n", lines.subList(from, to + 1))
            + "\necho \"status=$status\" > \"$GITHUB_OUTPUT\"\n";
    Map<String, String> env =
        Map.of(
            "TRAINYARD_KIND", "gitops",
            "CI_MERGE_REQUEST_DIFF_BASE_SHA", "b2",
            "CI_COMMIT_SHA", "h2",
            "TRAINYARD_GITOPS", "https://g/x.git");
    Run gitops = trainyard(script, env, 1, 0);
    assertEquals(
        List.of(
            "platform render --check",
            "preview --base b2 --head h2 --out " + temp.resolve("preview") + " --part-size 65000"),
        gitops.calls());
    assertEquals("status=1", Files.readString(temp.resolve("output")).strip());
    Map<String, String> source = new HashMap<>(env);
    source.put("TRAINYARD_KIND", "source");
    Run sourceRun = trainyard(script, source, 0, 1);
    assertEquals(
        List.of(
            "preview --gitops https://g/x.git --base b2 --head h2 --out "
                + temp.resolve("preview")
                + " --part-size 65000"),
        sourceRun.calls());
    assertEquals("status=1", Files.readString(temp.resolve("output")).strip());
  }

  record Run(int exit, String out, List<String> calls) {}

  /**
   * Runs {@code script} with a stand-in trainyard on PATH: {@code platform ...} exits {@code
   * checkExit}, anything else {@code previewExit}; every call is recorded.
   */
  private Run trainyard(String script, Map<String, String> env, int checkExit, int previewExit)
      throws Exception {
    Path bin = Files.createDirectories(temp.resolve("bin"));
    Path calls = temp.resolve("calls");
    Files.deleteIfExists(calls);
    Files.writeString(
        bin.resolve("trainyard"),
        "#!/bin/bash\necho \"$*\" >> \"$CALLS\"\n"
            + "if [ \"$1\" = platform ]; then exit "
            + checkExit
            + "; fi\nexit "
            + previewExit
            + "\n");
    assertTrue(bin.resolve("trainyard").toFile().setExecutable(true));
    Map<String, String> all = new HashMap<>(env);
    all.put("PATH", bin + ":" + System.getenv("PATH"));
    all.put("CALLS", calls.toString());
    all.put("PREVIEW_DIR", temp.resolve("preview").toString());
    all.put("GITHUB_OUTPUT", temp.resolve("output").toString());
    all.put("GITHUB_STEP_SUMMARY", temp.resolve("summary").toString());
    Files.deleteIfExists(temp.resolve("output"));
    Run r = bash(script, all);
    List<String> recorded = Files.exists(calls) ? Files.readAllLines(calls) : new ArrayList<>();
    return new Run(r.exit(), r.out(), recorded);
  }

  private Run bash(String script, Map<String, String> env) throws Exception {
    Path file = Files.writeString(temp.resolve("step.sh"), "set -eo pipefail\n" + script + "\n");
    ProcessBuilder pb = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("CI_") || k.startsWith("GITHUB_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), out);
    return new Run(p.exitValue(), out, List.of());
  }
}
