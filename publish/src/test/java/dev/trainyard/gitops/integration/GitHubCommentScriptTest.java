package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workflow's comment step ({@code actions/github-script} body in
 * examples/ci/github/trainyard.yml) run with Node.js and the real Octokit against {@link
 * FakeGitHub}: one comment updated in place, parts with their own markers, left-overs deleted,
 * humans' comments untouched, pages followed, over-long parts refused. Not run (assumption) where
 * node/npm are missing or the npm install fails.
 */
class GitHubCommentScriptTest {
  static final String TOKEN = "ghs_test-token-0123456789";
  static final String SCRIPT =
      GitHubWorkflowTest.step(GitHubWorkflowTest.RUNS, "actions/github-script")
          .at("/with/script")
          .asText();
  static GitHubScript.Result node;

  @TempDir Path previewDir;
  FakeGitHub github;
  Path event;

  @BeforeAll
  static void installNode() {
    node = GitHubScript.prepare();
  }

  @BeforeEach
  void start() throws IOException {
    assumeTrue(node.script() != null, "not run: " + node.whyNot());
    github = new FakeGitHub(TOKEN, "acme/ml", 7);
    event =
        Files.writeString(
            previewDir.resolveSibling(previewDir.getFileName() + "-event.json"),
            "{\"pull_request\": {\"number\": 7}, \"number\": 7}");
  }

  @AfterEach
  void stop() throws IOException {
    if (github != null) {
      github.close();
    }
    if (event != null) {
      Files.deleteIfExists(event);
    }
  }

  @Test
  @DisplayName(
      "the first preview creates one comment that starts with the marker; humans' comments stay as they are")
  void createsOne() throws IOException {
    long human = github.addHumanComment("alice", "LGTM");
    long quoting = github.addHumanComment("bob", "<!-- trainyard-preview -->\nI pasted the marker");
    assertEquals(0, post(Map.of("preview.md", "## Runs added\n")).exit());
    List<JsonNode> ours = ours();
    assertEquals(1, ours.size());
    assertEquals("<!-- trainyard-preview -->\n## Runs added\n", ours.get(0).path("body").asText());
    assertEquals("LGTM", body(human));
    assertEquals("<!-- trainyard-preview -->\nI pasted the marker", body(quoting));
  }

  @Test
  @DisplayName(
      "a new preview updates the same comment in place; an unchanged one sends no write at all")
  void updatesInPlace() throws IOException {
    post(Map.of("preview.md", "one run\n"));
    long id = ours().get(0).path("id").asLong();
    github.clearRequests();
    assertEquals(0, post(Map.of("preview.md", "two runs\n")).exit());
    assertEquals(List.of(id), ids(ours()));
    assertEquals("<!-- trainyard-preview -->\ntwo runs\n", body(id));
    assertEquals(
        List.of(
            "GET /repos/acme/ml/issues/7/comments", "PATCH /repos/acme/ml/issues/comments/" + id),
        github.requests());
    github.clearRequests();
    post(Map.of("preview.md", "two runs\n"));
    assertEquals(List.of("GET /repos/acme/ml/issues/7/comments"), github.requests());
  }

  @Test
  @DisplayName(
      "a split preview gets one comment per part; fewer parts later delete the left-over ones, and back")
  void parts() throws IOException {
    post(Map.of("preview.md", "whole\n"));
    assertEquals(
        0,
        post(Map.of(
                "preview.md",
                "",
                "preview-1.md",
                "p1\n",
                "preview-2.md",
                "p2\n",
                "preview-3.md",
                "p3\n"))
            .exit());
    assertEquals(
        List.of(
            "<!-- trainyard-preview part 1 -->\np1\n",
            "<!-- trainyard-preview part 2 -->\np2\n",
            "<!-- trainyard-preview part 3 -->\np3\n"),
        bodies(ours()));
    List<Long> partIds = ids(ours());
    assertEquals(
        0, post(Map.of("preview.md", "", "preview-1.md", "q1\n", "preview-2.md", "q2\n")).exit());
    assertEquals(
        partIds.subList(0, 2), ids(ours()), "parts 1 and 2 updated in place, part 3 deleted");
    assertEquals(
        List.of(
            "<!-- trainyard-preview part 1 -->\nq1\n", "<!-- trainyard-preview part 2 -->\nq2\n"),
        bodies(ours()));
    assertEquals(0, post(Map.of("preview.md", "small again\n")).exit());
    assertEquals(List.of("<!-- trainyard-preview -->\nsmall again\n"), bodies(ours()));
  }

  @Test
  @DisplayName("parts are ordered by number, not by name: part 10 comes after part 9")
  void partOrder() throws IOException {
    Map<String, String> files = new TreeMap<>();
    for (int i = 1; i <= 10; i++) {
      files.put("preview-" + i + ".md", "p" + i + "\n");
    }
    assertEquals(0, post(files).exit());
    List<String> bodies = bodies(ours());
    assertEquals(10, bodies.size());
    assertEquals("<!-- trainyard-preview part 9 -->\np9\n", bodies.get(8));
    assertEquals("<!-- trainyard-preview part 10 -->\np10\n", bodies.get(9));
  }

  @Test
  @DisplayName(
      "the comment is found on a later page: 150 other comments first, still updated, not duplicated")
  void followsPages() throws IOException {
    for (int i = 0; i < 150; i++) {
      github.addHumanComment("alice", "comment " + i);
    }
    post(Map.of("preview.md", "first\n"));
    long id = ours().get(0).path("id").asLong();
    github.clearRequests();
    assertEquals(0, post(Map.of("preview.md", "second\n")).exit());
    assertEquals(List.of(id), ids(ours()));
    assertEquals("<!-- trainyard-preview -->\nsecond\n", body(id));
    assertEquals(
        2,
        github.requests().stream().filter(r -> r.startsWith("GET ")).count(),
        "151 comments, pages of 100: " + github.requests());
  }

  @Test
  @DisplayName(
      "a page of comments that fails to load fails the step: it is not read as 'no comment yet', so no duplicate is posted")
  void failedPageIsNotEmpty() throws IOException {
    for (int i = 0; i < 150; i++) {
      github.addHumanComment("alice", "comment " + i);
    }
    post(Map.of("preview.md", "first\n"));
    github.failPage(2);
    github.clearRequests();
    GitHubScript.Run run = post(Map.of("preview.md", "second\n"));
    assertNotEquals(0, run.exit(), run.output());
    assertEquals(List.of("<!-- trainyard-preview -->\nfirst\n"), bodies(ours()));
    assertFalse(
        github.requests().stream().anyMatch(r -> !r.startsWith("GET ")),
        github.requests().toString());
  }

  @Test
  @DisplayName("duplicate marker comments (left by racing runs) collapse into one, the oldest kept")
  void duplicates() throws IOException {
    long first = github.addBotComment("<!-- trainyard-preview -->\nold");
    github.addBotComment("<!-- trainyard-preview -->\nold too");
    github.addBotComment("<!-- trainyard-preview part 2 -->\nleft over");
    assertEquals(0, post(Map.of("preview.md", "new\n")).exit());
    assertEquals(List.of(first), ids(ours()));
    assertEquals("<!-- trainyard-preview -->\nnew\n", body(first));
  }

  @Test
  @DisplayName("a part too long for one GitHub comment fails the step before anything is written")
  void tooLong() throws IOException {
    post(Map.of("preview.md", "old\n"));
    github.clearRequests();
    GitHubScript.Run run =
        post(Map.of("preview-1.md", "x".repeat(FakeGitHub.BODY_LIMIT), "preview-2.md", "y\n"));
    assertNotEquals(0, run.exit());
    assertTrue(
        run.output()
            .contains("preview-1.md makes a comment of 65570 characters; GitHub allows 65536"),
        run.output());
    assertEquals(List.of(), github.requests());
    assertEquals(List.of("<!-- trainyard-preview -->\nold\n"), bodies(ours()));
  }

  @Test
  @DisplayName("a wrong token is refused by the forge and fails the step")
  void badToken() throws IOException {
    writeFiles(Map.of("preview.md", "x\n"));
    GitHubScript.Run run = node.script().run(SCRIPT, env("ghs_wrong"));
    assertNotEquals(0, run.exit());
    assertTrue(run.output().contains("Bad credentials"), "[" + run.output() + "]");
    assertEquals(List.of(), github.comments());
  }

  private GitHubScript.Run post(Map<String, String> files) throws IOException {
    writeFiles(files);
    GitHubScript.Run run = node.script().run(SCRIPT, env(TOKEN));
    return run;
  }

  private void writeFiles(Map<String, String> files) throws IOException {
    try (Stream<Path> old = Files.list(previewDir)) {
      for (Path f : old.toList()) {
        Files.delete(f);
      }
    }
    for (Map.Entry<String, String> file : files.entrySet()) {
      Files.writeString(previewDir.resolve(file.getKey()), file.getValue());
    }
  }

  private Map<String, String> env(String token) {
    return Map.of(
        "INPUT_GITHUB-TOKEN",
        token,
        "GITHUB_API_URL",
        github.apiUrl(),
        "GITHUB_REPOSITORY",
        "acme/ml",
        "GITHUB_EVENT_NAME",
        "pull_request",
        "GITHUB_EVENT_PATH",
        event.toString(),
        "PREVIEW_DIR",
        previewDir.toString());
  }

  private List<JsonNode> ours() {
    return github.comments().stream()
        .filter(c -> c.at("/user/login").asText().equals(FakeGitHub.BOT))
        .toList();
  }

  private String body(long id) {
    return github.comments().stream()
        .filter(c -> c.path("id").asLong() == id)
        .findFirst()
        .orElseThrow()
        .path("body")
        .asText();
  }

  private static List<Long> ids(List<JsonNode> comments) {
    return comments.stream().map(c -> c.path("id").asLong()).toList();
  }

  private static List<String> bodies(List<JsonNode> comments) {
    return comments.stream().map(c -> c.path("body").asText()).toList();
  }
}
