package dev.trainyard.controller.forge;

import static dev.trainyard.controller.forge.ForgeFixture.SHA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The fake forge refuses what the real forges' documented contracts refuse (raw requests, no
 * client).
 */
class FakeForgeTest {

  final FakeForge forge = FakeForge.start();
  final JdkTransport http = new JdkTransport(Duration.ofSeconds(5));
  static final Map<String, String> GH_AUTH =
      Map.of("Authorization", "Bearer " + FakeForge.GITHUB_TOKEN);
  static final Map<String, String> GL_AUTH = Map.of("PRIVATE-TOKEN", FakeForge.GITLAB_TOKEN);
  static final Map<String, String> GT_AUTH =
      Map.of("Authorization", "token " + FakeForge.GITEA_TOKEN);

  @AfterEach
  void close() {
    forge.close();
  }

  @Test
  @DisplayName(
      "GitHub: a valid post is 201; unknown field, wrong type, unknown state and 'running' are 422")
  void githubFields() throws Exception {
    assertEquals(
        201, github("{\"state\":\"pending\",\"context\":\"c\",\"description\":\"d\"}", GH_AUTH));
    assertEquals(422, github("{\"state\":\"pending\",\"name\":\"c\"}", GH_AUTH));
    assertEquals(422, github("{\"state\":\"pending\",\"description\":5}", GH_AUTH));
    assertEquals(422, github("{\"state\":\"running\"}", GH_AUTH));
    assertEquals(422, github("{\"context\":\"c\"}", GH_AUTH));
    assertEquals(422, github("not json", GH_AUTH));
    assertEquals(422, github("[1]", GH_AUTH));
    assertEquals(1, forge.accepted().size());
    assertEquals(6, forge.rejected().size());
  }

  @Test
  @DisplayName(
      "GitHub: a 141-character description and a 256-character context are 422; 140 and 255 pass")
  void githubLengths() throws Exception {
    assertEquals(
        201,
        github("{\"state\":\"pending\",\"description\":\"" + "d".repeat(140) + "\"}", GH_AUTH));
    assertEquals(
        422,
        github("{\"state\":\"pending\",\"description\":\"" + "d".repeat(141) + "\"}", GH_AUTH));
    assertEquals(
        201, github("{\"state\":\"pending\",\"context\":\"" + "c".repeat(255) + "\"}", GH_AUTH));
    assertEquals(
        422, github("{\"state\":\"pending\",\"context\":\"" + "c".repeat(256) + "\"}", GH_AUTH));
  }

  @Test
  @DisplayName(
      "GitHub: the 1,000th status for a SHA and context passes, the 1,001st is 422, another context passes")
  void githubCap() throws Exception {
    forge.seedGitHub("acme/llm", SHA, "ctx", "pending", 999);
    assertEquals(201, github("{\"state\":\"pending\",\"context\":\"ctx\"}", GH_AUTH));
    assertEquals(422, github("{\"state\":\"success\",\"context\":\"CTX\"}", GH_AUTH));
    assertEquals(201, github("{\"state\":\"success\",\"context\":\"other\"}", GH_AUTH));
    assertTrue(
        forge.rejected().get(0).message().contains("reached the maximum number of statuses"));
  }

  @Test
  @DisplayName("GitHub: no auth, a wrong token or PRIVATE-TOKEN instead of Authorization is 401")
  void githubAuth() throws Exception {
    String body = "{\"state\":\"pending\"}";
    assertEquals(401, github(body, Map.of()));
    assertEquals(401, github(body, Map.of("Authorization", "Bearer nope")));
    assertEquals(401, github(body, Map.of("PRIVATE-TOKEN", FakeForge.GITHUB_TOKEN)));
    assertEquals(201, github(body, Map.of("Authorization", "token " + FakeForge.GITHUB_TOKEN)));
  }

  @Test
  @DisplayName("a wrong path shape, a short SHA or a GET on the POST path is refused")
  void paths() throws Exception {
    assertEquals(
        404,
        post(
            forge.githubApi() + "/repos/acme/statuses/" + SHA, "{\"state\":\"pending\"}", GH_AUTH));
    assertEquals(
        422,
        post(
            forge.githubApi() + "/repos/acme/llm/statuses/abc123",
            "{\"state\":\"pending\"}",
            GH_AUTH));
    assertEquals(
        404,
        http.send(
                new HttpCall(
                    "GET",
                    URI.create(forge.githubApi() + "/repos/acme/llm/statuses/" + SHA),
                    GH_AUTH,
                    ""))
            .status());
  }

  @Test
  @DisplayName(
      "GitLab: repeating the current state and moving back are 400 'Cannot transition status'")
  void gitlabTransitions() throws Exception {
    assertEquals(201, gitlab("{\"state\":\"pending\",\"name\":\"c\"}"));
    assertEquals(400, gitlab("{\"state\":\"pending\",\"name\":\"c\"}"));
    assertEquals(201, gitlab("{\"state\":\"running\",\"name\":\"c\"}"));
    assertEquals(400, gitlab("{\"state\":\"running\",\"name\":\"c\"}"));
    assertEquals(400, gitlab("{\"state\":\"pending\",\"name\":\"c\"}"));
    List<String> messages = forge.rejected().stream().map(FakeForge.Rejected::message).toList();
    assertEquals(
        List.of(
            "{\"message\":\"Cannot transition status via :enqueue from :pending\"}",
            "{\"message\":\"Cannot transition status via :run from :running\"}",
            "{\"message\":\"Cannot transition status via :enqueue from :running\"}"),
        messages);
  }

  @Test
  @DisplayName("GitLab: a post after a terminal state is a new status that retires the old one")
  void gitlabRetried() throws Exception {
    assertEquals(201, gitlab("{\"state\":\"failed\",\"name\":\"c\"}"));
    assertEquals(201, gitlab("{\"state\":\"pending\",\"name\":\"c\"}"));
    assertEquals(
        List.of(false, true),
        forge.accepted().stream().map(FakeForge.Accepted::retiredPrevious).toList());
  }

  @Test
  @DisplayName(
      "GitLab: 256-character description or target URL, unknown state, wrong token are refused")
  void gitlabRefusals() throws Exception {
    assertEquals(
        400, gitlab("{\"state\":\"pending\",\"description\":\"" + "d".repeat(256) + "\"}"));
    assertEquals(400, gitlab("{\"state\":\"pending\",\"target_url\":\"" + "u".repeat(256) + "\"}"));
    assertEquals(400, gitlab("{\"state\":\"error\"}"));
    assertEquals(400, gitlab("{\"state\":\"pending\",\"coverage\":\"high\"}"));
    assertEquals(
        201,
        gitlab(
            "{\"state\":\"pending\",\"coverage\":81.5,\"description\":\""
                + "d".repeat(255)
                + "\"}"));
    assertEquals(
        401,
        post(
            forge.gitlabApi() + "/projects/ml%2Fllm/statuses/" + SHA,
            "{\"state\":\"pending\"}",
            Map.of("Authorization", "Bearer " + FakeForge.GITLAB_TOKEN)));
    assertEquals(
        404,
        post(
            forge.gitlabApi() + "/projects/ml%2Fllm/statuses/nothex",
            "{\"state\":\"pending\"}",
            GL_AUTH));
  }

  @Test
  @DisplayName("Gitea: 'token' auth, the warning state, and refusal of running and unknown fields")
  void gitea() throws Exception {
    String url = forge.giteaApi() + "/repos/acme/llm/statuses/" + SHA;
    assertEquals(201, post(url, "{\"state\":\"warning\",\"context\":\"c\"}", GT_AUTH));
    assertEquals(422, post(url, "{\"state\":\"running\",\"context\":\"c\"}", GT_AUTH));
    assertEquals(422, post(url, "{\"state\":\"pending\",\"name\":\"c\"}", GT_AUTH));
    assertEquals(401, post(url, "{\"state\":\"pending\"}", Map.of("Authorization", "token x")));
    HttpAnswer read =
        http.send(
            new HttpCall(
                "GET",
                URI.create(forge.giteaApi() + "/repos/acme/llm/commits/" + SHA + "/status"),
                GT_AUTH,
                ""));
    assertTrue(read.body().contains("\"status\":\"warning\""), read.body());
  }

  @Test
  @DisplayName("a forbidden project answers every POST with a bare 403 and still serves reads")
  void forbidden() throws Exception {
    forge.forbid("acme/llm");
    assertEquals(403, github("{\"state\":\"pending\"}", GH_AUTH));
    assertEquals(
        200,
        http.send(
                new HttpCall(
                    "GET",
                    URI.create(forge.githubApi() + "/repos/acme/llm/commits/" + SHA + "/status"),
                    GH_AUTH,
                    ""))
            .status());
    assertEquals(
        201,
        post(
            forge.githubApi() + "/repos/acme/other/statuses/" + SHA,
            "{\"state\":\"pending\"}",
            GH_AUTH));
  }

  @Test
  @DisplayName(
      "scripted failure shapes are the documented ones: secondary limit a bare 403 with its message, GitLab's 409, 429 with Retry-After")
  void failureShapes() throws Exception {
    forge.script(
        FakeForge.Fault.secondaryLimit(),
        FakeForge.Fault.gitlabLocked(),
        FakeForge.Fault.retryAfter(900));
    HttpAnswer secondary =
        http.send(
            new HttpCall(
                "POST",
                URI.create(forge.githubApi() + "/repos/acme/llm/statuses/" + SHA),
                GH_AUTH,
                "{\"state\":\"pending\"}"));
    assertEquals(403, secondary.status());
    assertTrue(secondary.header("Retry-After").isEmpty());
    assertTrue(secondary.header("X-RateLimit-Remaining").isEmpty());
    assertTrue(
        secondary.body().startsWith("{\"message\":\"You have exceeded a secondary rate limit."),
        secondary.body());
    HttpAnswer locked =
        http.send(
            new HttpCall(
                "POST",
                URI.create(forge.gitlabApi() + "/projects/ml%2Fllm/statuses/" + SHA),
                GL_AUTH,
                "{\"state\":\"pending\"}"));
    assertEquals(409, locked.status());
    assertEquals(
        "{\"message\":\"Another update to this commit status is in progress\"}", locked.body());
    HttpAnswer limited =
        http.send(
            new HttpCall(
                "GET",
                URI.create(forge.githubApi() + "/repos/acme/llm/commits/" + SHA + "/status"),
                GH_AUTH,
                ""));
    assertEquals(429, limited.status());
    assertEquals(Optional.of("900"), limited.header("Retry-After"));
    forge.always(FakeForge.Fault.retryAfter(900));
    assertEquals(429, github("{\"state\":\"pending\"}", GH_AUTH));
    assertEquals(429, github("{\"state\":\"pending\"}", GH_AUTH));
    forge.always(null);
    assertEquals(201, github("{\"state\":\"pending\"}", GH_AUTH));
  }

  @Test
  @DisplayName(
      "combined status pages: GitHub per_page at most 100 with a Link header; Gitea limit at most 50 with X-Total-Count")
  void paging() throws Exception {
    forge.seedContexts("github", "acme/llm", SHA, 150);
    forge.seedContexts("gitea", "acme/llm", SHA, 70);
    HttpAnswer gh1 =
        http.send(
            new HttpCall(
                "GET",
                URI.create(
                    forge.githubApi() + "/repos/acme/llm/commits/" + SHA + "/status?per_page=500"),
                GH_AUTH,
                ""));
    assertEquals(
        100,
        FakeForge.JSON.readTree(gh1.body()).get("statuses").size(),
        "per_page is capped at 100");
    assertTrue(
        gh1.header("Link").orElseThrow().contains("page=2>; rel=\"next\""),
        gh1.header("Link").toString());
    HttpAnswer gh2 =
        http.send(
            new HttpCall(
                "GET",
                URI.create(
                    forge.githubApi()
                        + "/repos/acme/llm/commits/"
                        + SHA
                        + "/status?per_page=100&page=2"),
                GH_AUTH,
                ""));
    assertEquals(50, FakeForge.JSON.readTree(gh2.body()).get("statuses").size());
    assertTrue(gh2.header("Link").isEmpty(), "the last page names no next");
    HttpAnswer gtDefault =
        http.send(
            new HttpCall(
                "GET",
                URI.create(forge.giteaApi() + "/repos/acme/llm/commits/" + SHA + "/status"),
                GT_AUTH,
                ""));
    assertEquals(
        30,
        FakeForge.JSON.readTree(gtDefault.body()).get("statuses").size(),
        "Gitea's default page is 30");
    HttpAnswer gt =
        http.send(
            new HttpCall(
                "GET",
                URI.create(
                    forge.giteaApi() + "/repos/acme/llm/commits/" + SHA + "/status?limit=100"),
                GT_AUTH,
                ""));
    assertEquals(
        50, FakeForge.JSON.readTree(gt.body()).get("statuses").size(), "limit is capped at 50");
    assertEquals(Optional.of("70"), gt.header("X-Total-Count"));
  }

  @Test
  @DisplayName(
      "GitLab: a post joins the SHA's newest pipeline or the one pipeline_id names; an unknown pipeline_id is 404")
  void gitlabPipelines() throws Exception {
    assertEquals(201, gitlab("{\"state\":\"pending\",\"name\":\"c\"}"));
    long first = forge.gitlabJobs("ml/llm", SHA).get(0).pipelineId();
    long mr = forge.gitlabPipeline("ml/llm", SHA, "main", "merge_request_event");
    assertEquals(
        201, gitlab("{\"state\":\"running\",\"name\":\"c\",\"pipeline_id\":" + first + "}"));
    assertEquals(
        201,
        gitlab("{\"state\":\"pending\",\"name\":\"c\"}"),
        "no pipeline_id: the newest (MR) pipeline");
    assertEquals(404, gitlab("{\"state\":\"pending\",\"name\":\"c\",\"pipeline_id\":424242}"));
    assertEquals(
        List.of(first + " running", mr + " pending"),
        forge.gitlabJobs("ml/llm", SHA).stream()
            .map(j -> j.pipelineId() + " " + j.status())
            .toList());
    HttpAnswer list =
        http.send(
            new HttpCall(
                "GET",
                URI.create(
                    forge.gitlabApi()
                        + "/projects/ml%2Fllm/repository/commits/"
                        + SHA
                        + "/statuses?name=c"),
                GL_AUTH,
                ""));
    assertTrue(list.body().contains("\"pipeline_id\":" + first), list.body());
    assertEquals(Optional.of(""), list.header("X-Next-Page").or(() -> Optional.of("")));
  }

  private int github(String body, Map<String, String> auth) throws Exception {
    return post(forge.githubApi() + "/repos/acme/llm/statuses/" + SHA, body, auth);
  }

  private int gitlab(String body) throws Exception {
    return post(forge.gitlabApi() + "/projects/ml%2Fllm/statuses/" + SHA, body, GL_AUTH);
  }

  private int post(String url, String body, Map<String, String> headers) throws Exception {
    return http.send(new HttpCall("POST", URI.create(url), headers, body)).status();
  }
}
