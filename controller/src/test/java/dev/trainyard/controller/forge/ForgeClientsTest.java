package dev.trainyard.controller.forge;

import static dev.trainyard.controller.forge.ForgeFixture.SHA;
import static dev.trainyard.controller.forge.ForgeFixture.status;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
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
    @DisplayName("a project that is not owner/repo is refused")
    void badProject() {
      assertThrows(
          IllegalArgumentException.class,
          () -> f.github().post(new CommitRef("acme", SHA), status(CommitState.PENDING, "x")));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.github().post(new CommitRef("a/b/c", SHA), status(CommitState.PENDING, "x")));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.github().post(new CommitRef("acme/", SHA), status(CommitState.PENDING, "x")));
      assertThrows(
          IllegalArgumentException.class,
          () -> f.github().post(new CommitRef("/llm", SHA), status(CommitState.PENDING, "x")));
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
    @DisplayName("a 502 from Gitea is retried and the status arrives once")
    void retries502() throws Exception {
      f.forge.script(FakeForge.Fault.status(502));
      f.gitea().post(GH, status(CommitState.SUCCESS, "succeeded"));
      assertEquals(1, f.forge.accepted().size());
      assertEquals(List.of("gitea:retry:5xx"), f.events.lines);
    }
  }
}
