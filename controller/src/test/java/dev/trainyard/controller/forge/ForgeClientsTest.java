package dev.trainyard.controller.forge;

import static dev.trainyard.controller.forge.ForgeFixture.SHA;
import static dev.trainyard.controller.forge.ForgeFixture.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ForgeClientsTest {

  final ForgeFixture f = new ForgeFixture();
  static final CommitRef GH = new CommitRef("acme/llm", SHA);
  static final CommitRef GL = new CommitRef("ml/team-a/llm", SHA);

  @AfterEach
  void close() {
    f.close();
  }

  @Nested
  class GitHub {
    @Test
    @DisplayName("RUNNING is posted as pending with the description, context and target URL, once")
    void runningIsPending() throws Exception {
      Forge gh = f.github();
      assertEquals(
          Forge.PostOutcome.POSTED,
          gh.post(
              GH,
              new CommitStatus(
                  CommitState.RUNNING,
                  "running: 2 of 2 nodes ready",
                  "trainyard/dev/run-1",
                  "https://grafana.example/d/x?run=run-1")));
      assertEquals(
          List.of(
              new FakeForge.Accepted(
                  "github",
                  "acme/llm",
                  SHA,
                  "trainyard/dev/run-1",
                  "pending",
                  "running: 2 of 2 nodes ready",
                  "https://grafana.example/d/x?run=run-1",
                  false)),
          f.forge.accepted());
      assertEquals(List.of(), f.forge.rejected());
    }

    @Test
    @DisplayName("states map to pending, success, failure (user) and error (platform)")
    void states() {
      Forge gh = f.github();
      assertEquals("pending", gh.wireState(CommitState.PENDING));
      assertEquals("pending", gh.wireState(CommitState.RUNNING));
      assertEquals("success", gh.wireState(CommitState.SUCCESS));
      assertEquals("failure", gh.wireState(CommitState.FAILURE));
      assertEquals("error", gh.wireState(CommitState.ERROR));
      assertEquals("error", gh.wireState(CommitState.CANCELED), "GitHub has no canceled state");
      assertEquals("github", gh.kind());
    }

    @Test
    @DisplayName(
        "the current status is read back per context, case-insensitively; none reads empty")
    void current() throws Exception {
      Forge gh = f.github();
      assertEquals(Optional.empty(), gh.current(GH, "trainyard/dev/llama-ft-7f3a9c"));
      gh.post(GH, status(CommitState.PENDING, "queued in team-a: waiting for quota"));
      gh.post(GH, new CommitStatus(CommitState.SUCCESS, "other run", "trainyard/dev/other", ""));
      gh.post(GH, status(CommitState.ERROR, "failed (platform error): OOMKilled"));
      assertEquals(
          Optional.of(new PostedStatus("error", "failed (platform error): OOMKilled", "")),
          gh.current(GH, "TRAINYARD/dev/llama-ft-7f3a9c"));
    }

    @Test
    @DisplayName("a description over 140 characters is cut to 140 and accepted")
    void longDescription() throws Exception {
      f.github().post(GH, status(CommitState.PENDING, "q".repeat(300)));
      assertEquals(140, f.forge.accepted().get(0).description().length());
    }

    @Test
    @DisplayName("the 1,001st status for one SHA and context is refused with 422, not retried")
    void cap() {
      f.forge.seedGitHub("acme/llm", SHA, "trainyard/dev/llama-ft-7f3a9c", "pending", 1000);
      ForgeException e =
          assertThrows(
              ForgeException.class, () -> f.github().post(GH, status(CommitState.SUCCESS, "done")));
      assertEquals(ForgeException.Kind.REJECTED, e.kind());
      assertEquals(422, e.httpStatus());
      assertTrue(e.getMessage().contains("maximum number of statuses"), e.getMessage());
      assertEquals(1, f.forge.requests());
    }

    @Test
    @DisplayName("a wrong token is a permission error whose message holds no token")
    void wrongToken() {
      Forge gh = CommitStatusApi.github(f.forge.githubApi(), new Token("wrong-token"), f.http);
      ForgeException e =
          assertThrows(ForgeException.class, () -> gh.post(GH, status(CommitState.PENDING, "x")));
      assertEquals(ForgeException.Kind.PERMISSION, e.kind());
      assertEquals(401, e.httpStatus());
      assertFalse(e.getMessage().contains("wrong-token"));
      assertEquals(List.of(), f.time.waits());
    }

    @Test
    @DisplayName("a context over 255 characters is refused before anything is sent")
    void longContext() {
      ForgeException e =
          assertThrows(
              ForgeException.class,
              () ->
                  f.github()
                      .post(GH, new CommitStatus(CommitState.PENDING, "x", "c".repeat(256), "")));
      assertEquals(ForgeException.Kind.REJECTED, e.kind());
      assertEquals(0, f.forge.requests());
    }

    @Test
    @DisplayName("a context of exactly 255 characters is sent; an empty one is refused locally")
    void contextBounds() throws Exception {
      f.github().post(GH, new CommitStatus(CommitState.PENDING, "x", "c".repeat(255), ""));
      assertEquals(255, f.forge.accepted().get(0).context().length());
      assertThrows(
          ForgeException.class,
          () -> f.github().post(GH, new CommitStatus(CommitState.PENDING, "x", "", "")));
    }

    @Test
    @DisplayName(
        "a project that is not owner/repo is REJECTED before anything is sent, and the client says it does not serve it")
    void badProject() {
      Forge gh = f.github();
      for (String project : List.of("acme", "a/b/c", "acme/", "/llm")) {
        ForgeException e =
            assertThrows(
                ForgeException.class,
                () -> gh.post(new CommitRef(project, SHA), status(CommitState.PENDING, "x")));
        assertEquals(ForgeException.Kind.REJECTED, e.kind());
        assertEquals("expected owner/repo, got '" + project + "'", e.getMessage());
        assertThrows(ForgeException.class, () -> gh.current(new CommitRef(project, SHA), "c"));
        assertFalse(gh.serves(project), project);
      }
      assertTrue(gh.serves("acme/llm"));
      assertTrue(f.gitlab().serves("a/b/c"), "GitLab has groups and subgroups");
      assertEquals(0, f.forge.requests());
    }

    @Test
    @DisplayName(
        "a commit with 250 other contexts: the read follows the Link header to page 3 and finds the run's status")
    void readPages() throws Exception {
      Forge gh = f.github();
      f.forge.seedContexts("github", "acme/llm", SHA, 250);
      gh.post(GH, status(CommitState.SUCCESS, "succeeded"));
      int before = f.forge.requests();
      assertEquals(
          Optional.of(new PostedStatus("success", "succeeded", "")),
          gh.current(GH, "trainyard/dev/llama-ft-7f3a9c"));
      assertEquals(3, f.forge.requests() - before, "pages of 100: 1, 2, 3");
      before = f.forge.requests();
      assertEquals(Optional.empty(), gh.current(GH, "trainyard/dev/absent"));
      assertEquals(
          3, f.forge.requests() - before, "stops where the Link header names no next page");
    }

    @Test
    @DisplayName("an API root with a trailing slash gives the same paths")
    void trailingSlash() throws Exception {
      Forge gh =
          CommitStatusApi.github(
              URI.create(f.forge.githubApi() + "/"), new Token(FakeForge.GITHUB_TOKEN), f.http);
      gh.post(GH, status(CommitState.PENDING, "x"));
      assertEquals(1, f.forge.accepted().size());
    }
  }

  @Nested
  class GitLab {
    @Test
    @DisplayName(
        "pending → running → success are posted once each, and a group/sub/project path is one segment")
    void forward() throws Exception {
      Forge gl = f.gitlab();
      assertEquals(Forge.PostOutcome.POSTED, gl.post(GL, status(CommitState.PENDING, "queued")));
      assertEquals(Forge.PostOutcome.POSTED, gl.post(GL, status(CommitState.RUNNING, "running")));
      assertEquals(Forge.PostOutcome.POSTED, gl.post(GL, status(CommitState.SUCCESS, "succeeded")));
      assertEquals(
          List.of("pending", "running", "success"),
          f.forge.accepted().stream().map(FakeForge.Accepted::state).toList());
      assertEquals("ml/team-a/llm", f.forge.accepted().get(0).project());
      assertEquals(List.of(), f.forge.rejected());
    }

    @Test
    @DisplayName(
        "repeating the current state, moving back, or posting after a terminal state sends nothing")
    void neverBackOrRepeat() throws Exception {
      Forge gl = f.gitlab();
      gl.post(GL, status(CommitState.RUNNING, "running: 1 of 2"));
      assertEquals(
          Forge.PostOutcome.SKIPPED, gl.post(GL, status(CommitState.RUNNING, "running: 2 of 2")));
      assertEquals(Forge.PostOutcome.SKIPPED, gl.post(GL, status(CommitState.PENDING, "queued")));
      gl.post(GL, status(CommitState.FAILURE, "failed"));
      assertEquals(Forge.PostOutcome.SKIPPED, gl.post(GL, status(CommitState.SUCCESS, "ok")));
      assertEquals(
          List.of("running", "failed"),
          f.forge.accepted().stream().map(FakeForge.Accepted::state).toList());
      assertEquals(List.of(), f.forge.rejected());
    }

    @Test
    @DisplayName("FAILURE and ERROR are both failed; RUNNING is running")
    void states() {
      Forge gl = f.gitlab();
      assertEquals("failed", gl.wireState(CommitState.FAILURE));
      assertEquals("failed", gl.wireState(CommitState.ERROR));
      assertEquals("canceled", gl.wireState(CommitState.CANCELED));
      assertEquals("running", gl.wireState(CommitState.RUNNING));
      assertEquals("pending", gl.wireState(CommitState.PENDING));
      assertEquals("success", gl.wireState(CommitState.SUCCESS));
      assertEquals("gitlab", gl.kind());
    }

    @Test
    @DisplayName(
        "the current status is the newest for the name (asked with name=), not another context's")
    void current() throws Exception {
      Forge gl = f.gitlab();
      assertEquals(Optional.empty(), gl.current(GL, "trainyard/dev/llama-ft-7f3a9c"));
      gl.post(GL, new CommitStatus(CommitState.SUCCESS, "other run", "trainyard/dev/other", ""));
      assertEquals(Optional.empty(), gl.current(GL, "trainyard/dev/llama-ft-7f3a9c"));
      gl.post(GL, status(CommitState.PENDING, "queued"));
      gl.post(GL, status(CommitState.RUNNING, "running"));
      assertEquals(
          Optional.of(new PostedStatus("running", "running", "")),
          gl.current(GL, "trainyard/dev/llama-ft-7f3a9c"));
    }

    @Test
    @DisplayName("description over 255 is cut; a target URL over 255 is left out rather than cut")
    void limits() throws Exception {
      f.gitlab()
          .post(
              GL,
              new CommitStatus(
                  CommitState.PENDING,
                  "d".repeat(400),
                  "ctx",
                  "https://x.example/" + "u".repeat(300)));
      FakeForge.Accepted a = f.forge.accepted().get(0);
      assertEquals(255, a.description().length());
      assertEquals("", a.targetUrl());
      String exactly255 = "https://x.example/" + "u".repeat(255 - "https://x.example/".length());
      f.gitlab().post(GL, new CommitStatus(CommitState.RUNNING, "d", "ctx", exactly255));
      assertEquals(exactly255, f.forge.accepted().get(1).targetUrl());
    }

    @Test
    @DisplayName(
        "later posts carry the first post's pipeline_id: a merge request pipeline created meanwhile does not get the run's job")
    void pipelineId() throws Exception {
      Forge gl = f.gitlab();
      gl.post(GL, status(CommitState.PENDING, "queued"));
      long first = f.forge.gitlabJobs("ml/team-a/llm", SHA).get(0).pipelineId();
      long mr = f.forge.gitlabPipeline("ml/team-a/llm", SHA, "main", "merge_request_event");
      gl.post(GL, status(CommitState.RUNNING, "running"));
      gl.post(GL, status(CommitState.SUCCESS, "succeeded"));
      List<ForgeRules.Job> jobs = f.forge.gitlabJobs("ml/team-a/llm", SHA);
      assertEquals(1, jobs.size(), "one job, moved forward in place: " + jobs);
      assertEquals(first, jobs.get(0).pipelineId());
      assertEquals("success", jobs.get(0).status());
      assertTrue(mr > first);
      assertEquals(List.of(), f.forge.rejected());
    }

    @Test
    @DisplayName(
        "without pipeline_id GitLab would put the next state in the newest pipeline and leave the first job pending (the fake does what GitLab does)")
    void withoutPipelineIdTheJobIsStranded() throws Exception {
      f.gitlab().post(GL, status(CommitState.PENDING, "queued"));
      f.forge.gitlabPipeline("ml/team-a/llm", SHA, "main", "merge_request_event");
      HttpAnswer a =
          new JdkTransport(Duration.ofSeconds(5))
              .send(
                  new HttpCall(
                      "POST",
                      URI.create(
                          f.forge.gitlabApi() + "/projects/ml%2Fteam-a%2Fllm/statuses/" + SHA),
                      Map.of("PRIVATE-TOKEN", FakeForge.GITLAB_TOKEN),
                      "{\"state\":\"success\",\"name\":\"trainyard/dev/llama-ft-7f3a9c\"}"));
      assertEquals(201, a.status());
      assertEquals(
          List.of("pending", "success"),
          f.forge.gitlabJobs("ml/team-a/llm", SHA).stream().map(ForgeRules.Job::status).toList(),
          "two jobs in two pipelines; the first stays pending");
    }

    @Test
    @DisplayName(
        "a pipeline_id the SHA does not have is 404; a restarted client reads the pipeline from the job and goes on in it")
    void pipelineFromTheRead() throws Exception {
      f.gitlab().post(GL, status(CommitState.PENDING, "queued"));
      f.forge.gitlabPipeline("ml/team-a/llm", SHA, "main", "merge_request_event");
      Forge restarted = f.gitlab();
      restarted.post(GL, status(CommitState.FAILURE, "failed"));
      assertEquals(
          List.of("failed"),
          f.forge.gitlabJobs("ml/team-a/llm", SHA).stream().map(ForgeRules.Job::status).toList());
      HttpAnswer a =
          new JdkTransport(Duration.ofSeconds(5))
              .send(
                  new HttpCall(
                      "POST",
                      URI.create(
                          f.forge.gitlabApi() + "/projects/ml%2Fteam-a%2Fllm/statuses/" + SHA),
                      Map.of("PRIVATE-TOKEN", FakeForge.GITLAB_TOKEN),
                      "{\"state\":\"pending\",\"name\":\"x\",\"pipeline_id\":999999}"));
      assertEquals(404, a.status());
      assertTrue(
          a.body().contains("404 Pipeline for pipeline_id, sha and ref Not Found"), a.body());
    }

    @Test
    @DisplayName(
        "GitLab's 409 (another update holds the SHA's lock) is UNAVAILABLE, to be tried again, never refused; the next try posts")
    void conflictIsRetried() throws Exception {
      Forge gl = f.gitlab();
      f.forge.script(FakeForge.Fault.status(200), FakeForge.Fault.gitlabLocked());
      ForgeException e =
          assertThrows(ForgeException.class, () -> gl.post(GL, status(CommitState.RUNNING, "r")));
      assertEquals(ForgeException.Kind.UNAVAILABLE, e.kind());
      assertEquals(409, e.httpStatus());
      assertTrue(
          e.getMessage().contains("Another update to this commit status is in progress"),
          e.getMessage());
      assertTrue(e.getMessage().contains("tried again shortly"), e.getMessage());
      assertEquals(List.of(), f.time.waits(), "no wait in the worker");
      assertEquals(
          Forge.PostOutcome.POSTED,
          gl.post(GL, status(CommitState.RUNNING, "r")),
          "the gate stays open");
    }

    @Test
    @DisplayName(
        "the read follows X-Next-Page: the newest job of the name across 121 pipelines and two pages")
    void readPages() throws Exception {
      JdkTransport raw = new JdkTransport(Duration.ofSeconds(5));
      URI post = URI.create(f.forge.gitlabApi() + "/projects/ml%2Fteam-a%2Fllm/statuses/" + SHA);
      Map<String, String> auth = Map.of("PRIVATE-TOKEN", FakeForge.GITLAB_TOKEN);
      for (int i = 0; i <= 120; i++) {
        long pipeline = f.forge.gitlabPipeline("ml/team-a/llm", SHA, "main", "push");
        String state = i < 120 ? "success" : "failed";
        assertEquals(
            201,
            raw.send(
                    new HttpCall(
                        "POST",
                        post,
                        auth,
                        "{\"state\":\""
                            + state
                            + "\",\"name\":\"trainyard/dev/llama-ft-7f3a9c\",\"description\":\"run "
                            + i
                            + "\",\"pipeline_id\":"
                            + pipeline
                            + "}"))
                .status());
      }
      int before = f.forge.requests();
      assertEquals(
          Optional.of(new PostedStatus("failed", "run 120", "")),
          f.gitlab().current(GL, "trainyard/dev/llama-ft-7f3a9c"));
      assertEquals(2, f.forge.requests() - before, "pages of 100: 1, 2");
    }

    @Test
    @DisplayName("ranks: pending 0, running 1, terminal 2, anything else -1")
    void ranks() {
      assertEquals(0, GitLabForge.rank("pending"));
      assertEquals(1, GitLabForge.rank("running"));
      for (String s : List.of("success", "failed", "canceled", "skipped")) {
        assertEquals(2, GitLabForge.rank(s), s);
      }
      assertEquals(-1, GitLabForge.rank("created"));
    }
  }

  @Nested
  class Gitea {
    @Test
    @DisplayName(
        "posts with 'token' auth; RUNNING is pending, ERROR is error; the current status is read from 'status'")
    void postAndRead() throws Exception {
      Forge g = f.gitea();
      assertEquals(Forge.PostOutcome.POSTED, g.post(GH, status(CommitState.RUNNING, "running")));
      g.post(GH, status(CommitState.ERROR, "failed (platform error): node lost"));
      assertEquals(
          List.of("pending", "error"),
          f.forge.accepted().stream().map(FakeForge.Accepted::state).toList());
      assertEquals(
          Optional.of(new PostedStatus("error", "failed (platform error): node lost", "")),
          g.current(GH, "trainyard/dev/llama-ft-7f3a9c"));
      assertEquals(Optional.empty(), g.current(GH, "trainyard/dev/other"));
      assertEquals(
          Optional.empty(),
          g.current(GH, "Trainyard/dev/llama-ft-7f3a9c"),
          "Gitea compares contexts exactly (GitHub ignores case)");
      assertEquals("failure", g.wireState(CommitState.FAILURE));
      assertEquals("success", g.wireState(CommitState.SUCCESS));
      assertEquals("pending", g.wireState(CommitState.PENDING));
      assertEquals("gitea", g.kind());
    }

    @Test
    @DisplayName(
        "Gitea pages of at most 50 (it caps limit): the read follows X-Total-Count past 120 other contexts")
    void readPages() throws Exception {
      Forge g = f.gitea();
      f.forge.seedContexts("gitea", "acme/llm", SHA, 120);
      g.post(GH, status(CommitState.ERROR, "failed (platform error)"));
      int before = f.forge.requests();
      assertEquals(
          Optional.of(new PostedStatus("error", "failed (platform error)", "")),
          g.current(GH, "trainyard/dev/llama-ft-7f3a9c"));
      assertEquals(3, f.forge.requests() - before, "pages of 50: 1, 2, 3");
      before = f.forge.requests();
      assertEquals(Optional.empty(), g.current(GH, "trainyard/dev/absent"));
      assertEquals(3, f.forge.requests() - before);
    }

    @Test
    @DisplayName("a 502 from Gitea is retried and the status arrives once")
    void retries502() throws Exception {
      f.forge.script(FakeForge.Fault.status(502));
      f.gitea().post(GH, status(CommitState.SUCCESS, "succeeded"));
      assertEquals(1, f.forge.accepted().size());
      assertEquals(List.of("gitea:retry:5xx"), f.events.lines);
    }
  }
}
