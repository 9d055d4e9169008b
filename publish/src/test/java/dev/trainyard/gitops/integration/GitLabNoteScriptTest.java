package dev.trainyard.gitops.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline's note step ({@code post_preview} in examples/ci/gitlab/.gitlab-ci.yml) run with the
 * real bash, curl and jq against {@link FakeGitLab}: one merge request note updated in place, parts
 * with their own markers, left-overs deleted, other people's and system notes untouched, pages
 * followed. GitLab's runner runs a job's script with {@code set -eo pipefail}; so does this test.
 * Not run (assumption) without curl or jq.
 */
class GitLabNoteScriptTest {
  static final String TOKEN = "glpat-test-token-0123456789";

  /** CI_PROJECT_ID of a fork's pipeline: FakeGitLab knows only the MR's project, 42. */
  static final String FORK_PROJECT = "99";

  static final String SCRIPT =
      GitHubWorkflowTest.texts(GitLabPipelineTest.PREVIEW.path("script")).stream()
          .filter(s -> s.contains("post_preview()"))
          .findFirst()
          .orElseThrow();

  @TempDir Path temp;
  FakeGitLab gitlab;
  Path previewDir;

  @BeforeEach
  void start() throws IOException {
    for (String tool : List.of("curl", "jq")) {
      assumeTrue(onPath(tool), "not run: no " + tool + " on PATH (apt-get install " + tool + ")");
    }
    gitlab = new FakeGitLab(TOKEN, 42, 7);
    previewDir = Files.createDirectories(temp.resolve("preview"));
  }

  @AfterEach
  void stop() {
    if (gitlab != null) {
      gitlab.close();
    }
  }

  @Test
  @DisplayName(
      "the first preview creates one note with the marker; other people's and system notes stay as they are")
  void createsOne() throws Exception {
    long human = gitlab.addNote(5, false, "<!-- trainyard-preview -->\nquoted by a person");
    long system = gitlab.addNote(FakeGitLab.BOT_ID, true, "added 1 commit");
    assertEquals(0, post(Map.of("preview.md", "## Runs added\n")).exit());
    assertEquals(List.of("<!-- trainyard-preview -->\n## Runs added"), bodies(ours()));
    assertEquals("<!-- trainyard-preview -->\nquoted by a person", body(human));
    assertEquals("added 1 commit", body(system));
  }

  @Test
  @DisplayName("a new preview updates the same note in place (PUT), no second note")
  void updatesInPlace() throws Exception {
    post(Map.of("preview.md", "one run\n"));
    long id = ours().get(0).path("id").asLong();
    gitlab.clearRequests();
    assertEquals(0, post(Map.of("preview.md", "two runs\n")).exit());
    assertEquals(List.of(id), ids(ours()));
    assertEquals("<!-- trainyard-preview -->\ntwo runs", body(id));
    assertFalse(
        gitlab.requests().stream().anyMatch(r -> r.startsWith("POST ")),
        gitlab.requests().toString());
  }

  @Test
  @DisplayName(
      "a split preview gets one note per part in number order; fewer parts later delete the left-over ones")
  void parts() throws Exception {
    post(Map.of("preview.md", "whole\n"));
    Map<String, String> eleven = new TreeMap<>();
    for (int i = 1; i <= 11; i++) {
      eleven.put("preview-" + i + ".md", "p" + i + "\n");
    }
    assertEquals(0, post(eleven).exit());
    List<String> bodies = bodies(ours());
    assertEquals(11, bodies.size());
    assertEquals("<!-- trainyard-preview part 10 -->\np10", bodies.get(9));
    List<Long> partIds = ids(ours());
    assertEquals(0, post(Map.of("preview-1.md", "q1\n", "preview-2.md", "q2\n")).exit());
    assertEquals(partIds.subList(0, 2), ids(ours()));
    assertEquals(
        List.of("<!-- trainyard-preview part 1 -->\nq1", "<!-- trainyard-preview part 2 -->\nq2"),
        bodies(ours()));
    assertEquals(0, post(Map.of("preview.md", "small again\n")).exit());
    assertEquals(List.of("<!-- trainyard-preview -->\nsmall again"), bodies(ours()));
  }

  @Test
  @DisplayName(
      "the note is found on a later page (X-Next-Page) behind 150 newer notes, and duplicates collapse")
  void followsPagesAndCollapsesDuplicates() throws Exception {
    long first = gitlab.addNote(FakeGitLab.BOT_ID, false, "<!-- trainyard-preview -->\nold");
    gitlab.addNote(FakeGitLab.BOT_ID, false, "<!-- trainyard-preview -->\nold duplicate");
    for (int i = 0; i < 150; i++) {
      gitlab.addNote(5, false, "comment " + i);
    }
    gitlab.clearRequests();
    assertEquals(0, post(Map.of("preview.md", "new\n")).exit());
    assertEquals(1, ours().size());
    assertEquals("<!-- trainyard-preview -->\nnew", bodies(ours()).get(0));
    assertEquals(
        2,
        gitlab.requests().stream().filter(r -> r.startsWith("GET /api/v4/projects/")).count(),
        gitlab.requests().toString());
    assertFalse(gitlab.requests().stream().anyMatch(r -> r.startsWith("POST ")));
    assertEquals(List.of(first), ids(ours()).stream().filter(id -> id == first).toList());
  }

  @Test
  @DisplayName(
      "notes go to the merge request's project (CI_MERGE_REQUEST_PROJECT_ID), never to CI_PROJECT_ID, a fork's in a fork's pipeline")
  void mergeRequestProject() throws Exception {
    assertEquals(0, post(Map.of("preview.md", "x\n")).exit());
    List<String> projects =
        gitlab.requests().stream().filter(r -> r.contains("/projects/")).toList();
    assertFalse(projects.isEmpty());
    for (String r : projects) {
      assertTrue(r.contains("/api/v4/projects/42/merge_requests/7/notes"), r);
    }
    assertEquals(1, ours().size());
  }

  @Test
  @DisplayName(
      "a page of notes that fails to load fails the job: not read as 'no note yet', so no duplicate note is posted")
  void failedPageIsNotEmpty() throws Exception {
    gitlab.addNote(FakeGitLab.BOT_ID, false, "<!-- trainyard-preview -->\nold");
    for (int i = 0; i < 150; i++) {
      gitlab.addNote(5, false, "comment " + i);
    }
    gitlab.failPage(2);
    gitlab.clearRequests();
    GitHubScript.Run run = post(Map.of("preview.md", "new\n"));
    assertNotEquals(0, run.exit(), run.output());
    assertEquals(List.of("<!-- trainyard-preview -->\nold"), bodies(ours()));
    assertFalse(
        gitlab.requests().stream().anyMatch(r -> !r.startsWith("GET ")),
        gitlab.requests().toString());
    try (Stream<Path> left = Files.list(temp.resolve("tmp"))) {
      for (Path file : left.toList()) {
        assertFalse(
            Files.readString(file, StandardCharsets.ISO_8859_1).contains(TOKEN), file.toString());
      }
    }
  }

  @Test
  @DisplayName("a wrong token or an over-long note fails the job; nothing is half-written")
  void failures() throws Exception {
    writeFiles(Map.of("preview.md", "x\n"));
    assertNotEquals(0, run("glpat-wrong").exit());
    assertEquals(List.of(), gitlab.notes());
    assertNotEquals(0, post(Map.of("preview.md", "y".repeat(FakeGitLab.BODY_LIMIT))).exit());
    assertEquals(List.of(), gitlab.notes());
  }

  @Test
  @DisplayName("the token reaches curl only through a header file, which is removed afterwards")
  void tokenFileRemoved() throws Exception {
    assertEquals(0, post(Map.of("preview.md", "x\n")).exit());
    try (Stream<Path> left = Files.list(temp.resolve("tmp"))) {
      for (Path file : left.toList()) {
        assertFalse(
            Files.readString(file, StandardCharsets.ISO_8859_1).contains(TOKEN), file.toString());
      }
    }
  }

  private GitHubScript.Run post(Map<String, String> files) throws Exception {
    writeFiles(files);
    return run(TOKEN);
  }

  private GitHubScript.Run run(String token) throws Exception {
    Path tmp = Files.createDirectories(temp.resolve("tmp"));
    Path script =
        Files.writeString(temp.resolve("job.sh"), "set -eo pipefail\nstatus=0\n" + SCRIPT + "\n");
    ProcessBuilder builder =
        new ProcessBuilder("bash", script.toString())
            .redirectErrorStream(true)
            .redirectOutput(temp.resolve("job.log").toFile());
    Map<String, String> env = builder.environment();
    env.clear();
    env.putAll(
        new HashMap<>(
            Map.of(
                "PATH",
                System.getenv("PATH"),
                "TMPDIR",
                tmp.toString(),
                "HOME",
                temp.toString(),
                "CI_API_V4_URL",
                gitlab.apiUrl(),
                "CI_MERGE_REQUEST_PROJECT_ID",
                "42",
                "CI_PROJECT_ID",
                FORK_PROJECT,
                "CI_MERGE_REQUEST_IID",
                "7",
                "TRAINYARD_GITLAB_TOKEN",
                token,
                "PREVIEW_DIR",
                previewDir.toString())));
    Process bash = builder.start();
    if (!bash.waitFor(60, TimeUnit.SECONDS)) {
      bash.destroyForcibly();
      return new GitHubScript.Run(-1, "timed out");
    }
    return new GitHubScript.Run(bash.exitValue(), Files.readString(temp.resolve("job.log")));
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

  private List<JsonNode> ours() {
    return gitlab.notes().stream()
        .filter(
            n -> n.at("/author/id").asLong() == FakeGitLab.BOT_ID && !n.path("system").asBoolean())
        .toList();
  }

  private String body(long id) {
    return gitlab.notes().stream()
        .filter(n -> n.path("id").asLong() == id)
        .findFirst()
        .orElseThrow()
        .path("body")
        .asText();
  }

  private static List<Long> ids(List<JsonNode> notes) {
    return notes.stream().map(n -> n.path("id").asLong()).toList();
  }

  private static List<String> bodies(List<JsonNode> notes) {
    return notes.stream().map(n -> n.path("body").asText()).toList();
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv("PATH").split(":")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }
}
