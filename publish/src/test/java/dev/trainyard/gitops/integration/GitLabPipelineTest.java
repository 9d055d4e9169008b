package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.gitops.integration.YamlScalars.Scalar;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract of the GitLab CI template {@code templates/trainyard.yml} (a CI/CD component: a
 * {@code spec: inputs} document, then the jobs) and of {@code examples/ci/gitlab/.gitlab-ci.yml},
 * which includes it: merge request pipelines preview (fork guard, one note found by its marker
 * through the notes API), the default branch submits, tokens only from CI/CD variables in the
 * environment, full clone depth, and bash-parseable scripts.
 */
class GitLabPipelineTest {
  static final String FILE = "examples/ci/gitlab/.gitlab-ci.yml";
  static final String TEMPLATE_FILE = "templates/trainyard.yml";
  static final JsonNode USER = RepoFiles.yaml(FILE);
  static final JsonNode SPEC = RepoFiles.yamlDocuments(TEMPLATE_FILE).get(0);
  static final JsonNode PIPELINE = RepoFiles.yamlDocuments(TEMPLATE_FILE).get(1);
  static final JsonNode PREVIEW = PIPELINE.path("trainyard-preview");
  static final JsonNode SUBMIT = PIPELINE.path("trainyard-submit");
  static final String DEFAULT_BRANCH_PUSH =
      "$CI_PIPELINE_SOURCE == \"push\" && $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH";

  @Test
  @DisplayName("pipelines run for merge requests and for pushes to the default branch only")
  void workflowRules() {
    JsonNode rules = USER.at("/workflow/rules");
    assertEquals(3, rules.size());
    assertEquals("$CI_PIPELINE_SOURCE == \"merge_request_event\"", rules.at("/0/if").asText());
    assertEquals(DEFAULT_BRANCH_PUSH, rules.at("/1/if").asText());
    assertEquals("never", rules.at("/2/when").asText());
  }

  @Test
  @DisplayName(
      "the preview runs only in merge request pipelines, skipping forks unless TRAINYARD_PREVIEW_FORKS is \"true\"")
  void forkGuard() {
    assertEquals(1, PREVIEW.path("rules").size());
    assertEquals(
        "$CI_PIPELINE_SOURCE == \"merge_request_event\" && ($CI_MERGE_REQUEST_SOURCE_PROJECT_ID == $CI_MERGE_REQUEST_PROJECT_ID"
            + " || $TRAINYARD_PREVIEW_FORKS == \"true\")",
        PREVIEW.at("/rules/0/if").asText());
  }

  @Test
  @DisplayName("submit runs only on a push to the default branch, one at a time, never interrupted")
  void submitOnDefaultBranch() {
    assertEquals(1, SUBMIT.path("rules").size());
    assertEquals(DEFAULT_BRANCH_PUSH, SUBMIT.at("/rules/0/if").asText());
    assertEquals(
        List.of(
            "trainyard submit --changed-since \"$CI_COMMIT_BEFORE_SHA\" --gitops \"$TRAINYARD_GITOPS\""),
        GitHubWorkflowTest.texts(SUBMIT.path("script")));
    assertEquals("trainyard-submit", SUBMIT.path("resource_group").asText());
    assertFalse(SUBMIT.path("interruptible").asBoolean(true));
    assertTrue(PREVIEW.path("interruptible").asBoolean(false));
    for (Scalar s : YamlScalars.strings(PIPELINE)) {
      if (s.value().contains("trainyard submit ")) {
        assertEquals("/trainyard-submit/script/0", s.path());
      }
      if (s.value().contains("trainyard preview --")) {
        assertTrue(s.path().startsWith("/trainyard-preview/script/"), s.path());
      }
    }
  }

  @Test
  @DisplayName(
      "the preview stage (default test) comes before submit's (default deploy), and the preview uses the merge request's base and the checked-out commit as head (merged-results pipelines check out the merge commit)")
  void previewBeforeSubmit() {
    assertTrue(PIPELINE.path("stages").isMissingNode(), "the including project owns stages:");
    assertEquals("$[[ inputs.preview-stage ]]", PREVIEW.path("stage").asText());
    assertEquals("$[[ inputs.submit-stage ]]", SUBMIT.path("stage").asText());
    assertEquals("test", SPEC.at("/spec/inputs/preview-stage/default").asText());
    assertEquals("deploy", SPEC.at("/spec/inputs/submit-stage/default").asText());
    String script = String.join("\n", GitHubWorkflowTest.texts(PREVIEW.path("script")));
    assertTrue(
        script.contains(
            "trainyard preview --gitops \"$TRAINYARD_GITOPS\" --base \"$PREVIEW_BASE\""
                + " --head \"$CI_COMMIT_SHA\" --out \"$PREVIEW_DIR\" --part-size 65000"),
        script);
    // Merged-results pipelines check out the merge commit (CI_COMMIT_SHA); preview --head must be
    // the checked-out commit,
    // so the source branch's SHA would make it refuse to run.
    assertFalse(script.contains("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"), script);
    assertTrue(
        script.indexOf("git fetch --quiet origin \"$CI_MERGE_REQUEST_TARGET_BRANCH_NAME\"")
            < script.indexOf("trainyard preview --"),
        "the target branch (holding the base commit) is fetched first");
    assertTrue(script.indexOf("trainyard preview --") < script.indexOf("post_preview;"));
  }

  @Test
  @DisplayName(
      "a merged results pipeline previews against CI_MERGE_REQUEST_TARGET_BRANCH_SHA; a merge request pipeline (unset or empty) against CI_MERGE_REQUEST_DIFF_BASE_SHA")
  void previewBase(@TempDir Path temp) throws Exception {
    String target = "1111111111111111111111111111111111111111";
    String diffBase = "2222222222222222222222222222222222222222";
    assertEquals(
        target,
        previewArgument(temp, Map.of("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", target), diffBase));
    assertEquals(diffBase, previewArgument(temp, Map.of(), diffBase));
    assertEquals(
        diffBase,
        previewArgument(temp, Map.of("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", ""), diffBase));
  }

  /**
   * The --base that the preview job's lines from PREVIEW_BASE to the trainyard call pass, run by
   * bash with a stand-in trainyard that records its arguments.
   */
  private static String previewArgument(Path temp, Map<String, String> extra, String diffBase)
      throws Exception {
    List<String> lines = GitHubWorkflowTest.texts(PREVIEW.path("script"));
    int from = indexOf(lines, "PREVIEW_BASE=");
    int to = from;
    while (!lines.get(to).contains("trainyard preview --")) {
      to++;
    }
    Path bin = Files.createDirectories(temp.resolve("bin"));
    Path args = temp.resolve("args");
    Path fake =
        Files.writeString(
            bin.resolve("trainyard"), "#!/bin/bash\nprintf '%s\\n' \"$@\" > \"$ARGS\"\n");
    assertTrue(fake.toFile().setExecutable(true));
    Path job =
        Files.writeString(
            temp.resolve("job.sh"),
            "set -eo pipefail\nstatus=0\n" + String.join("\n", lines.subList(from, to + 1)) + "\n");
    ProcessBuilder pb = new ProcessBuilder("bash", job.toString()).redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("CI_"));
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("ARGS", args.toString());
    env.put("CI_MERGE_REQUEST_DIFF_BASE_SHA", diffBase);
    env.put("CI_COMMIT_SHA", "3333333333333333333333333333333333333333");
    env.put("TRAINYARD_GITOPS", "https://git.example.com/gitops.git");
    env.put("PREVIEW_DIR", temp.toString());
    env.putAll(extra);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), out);
    assertEquals(0, p.exitValue(), out);
    List<String> got = Files.readAllLines(args);
    return got.get(got.indexOf("--base") + 1);
  }

  private static int indexOf(List<String> lines, String start) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(start)) {
        return i;
      }
    }
    throw new AssertionError("no script line starts with " + start + ": " + lines);
  }

  @Test
  @DisplayName(
      "the note is found by its hidden marker through the notes API with TRAINYARD_GITLAB_TOKEN, parts by their own markers")
  void noteUpsert() {
    String script = String.join("\n", GitHubWorkflowTest.texts(PREVIEW.path("script")));
    for (String needle :
        List.of(
            "\"<!-- trainyard-preview -->\"",
            "\"<!-- trainyard-preview part $part -->\"",
            "$CI_API_V4_URL/projects/$CI_MERGE_REQUEST_PROJECT_ID/merge_requests/$CI_MERGE_REQUEST_IID/notes",
            "printf 'PRIVATE-TOKEN: %s\\n' \"$TRAINYARD_GITLAB_TOKEN\" > \"${auth#@}\"",
            "-H \"$auth\"",
            "-X PUT",
            "-X POST",
            "-X DELETE",
            "[Xx]-[Nn]ext-[Pp]age")) {
      assertTrue(script.contains(needle), needle);
    }
  }

  @Test
  @DisplayName(
      "tokens come only from CI/CD variables: none is set in the file, none goes on a command line")
  void tokensOnlyThroughEnv() {
    for (Scalar s : YamlScalars.strings(PIPELINE)) {
      assertFalse(
          GitHubWorkflowTest.CREDENTIAL_FLAG.matcher(s.value()).find(),
          "credential flag in " + s.path());
      assertFalse(
          s.path().startsWith("/variables/") && s.path().contains("TOKEN"),
          "token defined in the file: " + s.path());
      for (String line : s.value().split("\n")) {
        if (line.contains("TRAINYARD_GITOPS_TOKEN=")) {
          assertEquals(
              "export TRAINYARD_GITOPS_TOKEN=\"$TRAINYARD_GITOPS_READ_TOKEN\"",
              line.trim(),
              s.path());
        }
        if (line.matches(".*\\b(echo|printf)\\b.*\\$TRAINYARD_[A-Z_]*TOKEN.*")) {
          assertTrue(
              line.trim().endsWith("> \"${auth#@}\""),
              "a token printed anywhere but curl's header file: " + line);
        }
        assertFalse(line.matches(".*curl .*TOKEN.*"), "a token on curl's command line: " + line);
      }
    }
  }

  @Test
  @DisplayName(
      "full clone depth (GIT_DEPTH 0) and a distribution built from a pinned commit, cached per commit, kept out of git status")
  void cloneAndObtain() {
    JsonNode base = PIPELINE.path(".trainyard");
    assertEquals("0", base.at("/variables/GIT_DEPTH").asText());
    assertTrue(base.at("/variables/GIT_DEPTH").isTextual(), "GitLab variables are strings");
    assertEquals("$[[ inputs.ref ]]", base.at("/variables/TRAINYARD_REF").asText());
    assertEquals("$[[ inputs.repository ]]", base.at("/variables/TRAINYARD_REPOSITORY").asText());
    assertEquals("^[0-9a-f]{40}$", SPEC.at("/spec/inputs/ref/regex").asText());
    assertEquals("trainyard-dist-$[[ inputs.ref ]]", base.at("/cache/key").asText());
    assertEquals(".trainyard/dist/", base.at("/cache/paths/0").asText());
    assertEquals(
        "always",
        base.at("/cache/when").asText(),
        "GitLab saves a cache only after a successful job unless when: always");
    String before = String.join("\n", GitHubWorkflowTest.texts(base.path("before_script")));
    assertTrue(before.contains("echo \"/.trainyard/\" >> .git/info/exclude"));
    assertTrue(before.contains("git -C .trainyard/src checkout --quiet \"$TRAINYARD_REF\""));
    assertTrue(
        before.contains("mvn -B -q -f .trainyard/src/pom.xml -pl cli -am -DskipTests package"));
    assertTrue(
        before.indexOf("export PATH=\"$CI_PROJECT_DIR/.trainyard/dist/bin:$PATH\"")
            < before.indexOf("TRAINYARD_STARTUP_ARCHIVE=on trainyard --version"),
        "makes the start-up archive when the cache has none for this Java: " + before);
    assertEquals(
        "$CI_PROJECT_DIR/.trainyard/dist/startup",
        base.at("/variables/TRAINYARD_STARTUP_DIR").asText(),
        "inside the cached folder; under CI the launcher uses it and makes none");
    assertEquals(".trainyard", PREVIEW.path("extends").asText());
    assertEquals(".trainyard", SUBMIT.path("extends").asText());
  }

  @Test
  @DisplayName(
      "the user's file includes the template at a pinned commit and builds that same commit, and sets no token")
  void userFileIncludesTemplate() {
    JsonNode include = USER.at("/include/0");
    assertEquals(TEMPLATE_FILE, include.path("file").asText());
    assertTrue(include.path("ref").asText().matches("[0-9a-f]{40}"), include.toString());
    assertEquals(include.path("ref").asText(), include.at("/inputs/ref").asText());
    assertTrue(include.at("/inputs/repository").asText().startsWith("https://"));
    for (Scalar s : YamlScalars.strings(USER)) {
      assertFalse(s.value().contains("TOKEN"), "a token in the user's file: " + s.path());
    }
  }

  @Test
  @DisplayName("every job's before_script + script parses with bash -n")
  void scriptsParse() throws Exception {
    String before =
        String.join("\n", GitHubWorkflowTest.texts(PIPELINE.at("/.trainyard/before_script")));
    for (JsonNode job : List.of(PREVIEW, SUBMIT)) {
      String script =
          before + "\n" + String.join("\n", GitHubWorkflowTest.texts(job.path("script")));
      assertEquals("", BashSyntax.errors(script));
    }
  }
}
