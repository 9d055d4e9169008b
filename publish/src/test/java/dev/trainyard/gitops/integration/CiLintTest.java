package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI files a user copies or includes, checked by the forges' own rules as real tools apply
 * them: <a href="https://github.com/rhysd/actionlint">actionlint</a> over the example workflow and
 * the composite action it uses (run as a local action, so actionlint reads its inputs), and
 * check-jsonschema with the workflow, action and GitLab CI schemas it ships (SchemaStore's {@code
 * github-workflow.json}, {@code github-action.json}, {@code gitlab-ci.json}). Both are built by
 * {@code scripts/secrets-tools} into the tools cache; without it the test is reported as not run.
 */
class CiLintTest {
  static final String WORKFLOW = "examples/ci/github/trainyard.yml";
  static final String ACTION = "action.yml";
  static final String GITLAB = "examples/ci/gitlab/.gitlab-ci.yml";
  static final String TEMPLATE = "templates/trainyard.yml";
  static final String GITOPS_WORKFLOW = "examples/ci/github/trainyard-gitops.yml";
  static final String GITOPS_GITLAB = "examples/ci/gitlab/gitops/.gitlab-ci.yml";
  static final String PINNED = "trainyard-dev/trainyard@0000000000000000000000000000000000000000";

  @TempDir Path temp;

  @Test
  @DisplayName(
      "actionlint accepts the example workflow with the action as a local action (inputs, expressions, contexts)")
  void actionlintAccepts() throws Exception {
    Result lint = actionlint(RepoFiles.text(WORKFLOW).replace(PINNED, "./"));
    assertEquals(new Result(0, ""), lint, lint.output());
  }

  @Test
  @DisplayName("actionlint accepts the GitOps repo's workflow with the action as a local action")
  void actionlintAcceptsGitOps() throws Exception {
    Result lint = actionlint(RepoFiles.text(GITOPS_WORKFLOW).replace(PINNED, "./"));
    assertEquals(new Result(0, ""), lint, lint.output());
  }

  @Test
  @DisplayName(
      "actionlint reads the action's inputs: a misspelt input and the missing required one are refused")
  void actionlintReadsTheAction() throws Exception {
    String workflow = RepoFiles.text(WORKFLOW).replace(PINNED, "./");
    Result lint = actionlint(workflow.replaceFirst("command: preview", "comand: preview"));
    assertEquals(1, lint.exit(), lint.output());
    assertTrue(lint.output().contains("input \"comand\" is not defined"), lint.output());
    assertTrue(lint.output().contains("missing input \"command\""), lint.output());
  }

  @Test
  @DisplayName("the workflow, the action and the GitLab file pass the forges' JSON schemas")
  void schemas() throws Exception {
    assertValid("vendor.github-workflows", RepoFiles.path(WORKFLOW));
    assertValid("vendor.github-actions", RepoFiles.path(ACTION));
    assertValid("vendor.gitlab-ci", RepoFiles.path(GITLAB));
    assertValid("vendor.github-workflows", RepoFiles.path(GITOPS_WORKFLOW));
    assertValid("vendor.gitlab-ci", RepoFiles.path(GITOPS_GITLAB));
  }

  @Test
  @DisplayName(
      "both documents of the GitLab template (spec: inputs, then the jobs) pass the GitLab CI schema")
  void templateSchema() throws Exception {
    String[] documents = RepoFiles.text(TEMPLATE).split("(?m)^---$", -1);
    assertEquals(2, documents.length, "a spec document and the jobs");
    assertTrue(documents[0].contains("\nspec:\n"), documents[0]);
    for (int i = 0; i < documents.length; i++) {
      Path doc = Files.writeString(temp.resolve("template-" + i + ".yml"), documents[i]);
      assertValid("vendor.gitlab-ci", doc);
    }
  }

  @Test
  @DisplayName("the GitLab schema check is not vacuous: a job whose stage is a number is refused")
  void schemaRefuses() throws Exception {
    String jobs = RepoFiles.text(TEMPLATE).split("(?m)^---$", -1)[1];
    Path bad =
        Files.writeString(
            temp.resolve("bad.yml"),
            jobs.replace("stage: $[[ inputs.preview-stage ]]", "stage: 7"));
    Result check = checkJsonSchema("vendor.gitlab-ci", bad);
    assertEquals(1, check.exit(), check.output());
    assertTrue(check.output().contains("$['trainyard-preview'].stage"), check.output());
  }

  @Test
  @DisplayName("a user's workflow file and GitLab file are each under 30 lines")
  void userFilesShort() {
    for (String file : List.of(WORKFLOW, GITLAB, GITOPS_WORKFLOW, GITOPS_GITLAB)) {
      long lines = RepoFiles.text(file).lines().count();
      assertTrue(lines < 30, file + " has " + lines + " lines");
    }
  }

  private Result actionlint(String workflow) throws Exception {
    Path repo = temp.resolve("repo");
    Files.createDirectories(repo.resolve(".github/workflows"));
    Files.copy(RepoFiles.path(ACTION), repo.resolve("action.yml"));
    Files.writeString(repo.resolve(".github/workflows/trainyard.yml"), workflow);
    // actionlint finds the project by its .git folder.
    Files.createDirectories(repo.resolve(".git"));
    return run(repo, List.of(tool("actionlint").toString(), "-no-color", "-shellcheck="));
  }

  private void assertValid(String schema, Path file) throws Exception {
    Result check = checkJsonSchema(schema, file);
    assertEquals(0, check.exit(), file + ": " + check.output());
  }

  private Result checkJsonSchema(String schema, Path file) throws Exception {
    return run(
        temp,
        List.of(
            tool("check-jsonschema").toString(),
            "--no-cache",
            "--builtin-schema",
            schema,
            file.toString()));
  }

  /** A tool from the cache {@code scripts/secrets-tools} fills; not run without it. */
  private static Path tool(String name) {
    String configured = System.getProperty("trainyard.tools.dir", "");
    Path dir =
        configured.isBlank()
            ? Path.of(System.getProperty("user.home"), ".cache/trainyard/tools")
            : Path.of(configured);
    Path tool = dir.resolve("bin").resolve(name);
    assumeTrue(
        Files.isExecutable(tool),
        "NOT RUN: " + tool + " missing (scripts/secrets-tools builds it)");
    return tool;
  }

  /** Exit code and the merged stdout and stderr. */
  record Result(int exit, String output) {}

  private static Result run(Path dir, List<String> command) throws Exception {
    Path out = Files.createTempFile("ci-lint", ".out");
    try {
      Process p =
          new ProcessBuilder(new ArrayList<>(command))
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + " did not finish in 120 s");
      }
      return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
