package dev.trainyard.controller.forge;

import java.time.Duration;
import java.time.Instant;

/** A fake forge, a test clock and clients for the three forges, all wired to each other. */
final class ForgeFixture implements AutoCloseable {

  static final String SHA = "6f1c2d3e4a5b6c7d8e9f00112233445566778899";
  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");

  final FakeForge forge = FakeForge.start();
  final TestTime time = new TestTime(T0);
  final RecordingEvents events = new RecordingEvents();
  final RetryingTransport http;

  ForgeFixture() {
    this(Duration.ofSeconds(5));
  }

  ForgeFixture(Duration requestTimeout) {
    http =
        new RetryingTransport(
            new JdkTransport(requestTimeout), RetryPolicy.standard(), time, time, events);
  }

  Forge github() {
    return CommitStatusApi.github(forge.githubApi(), new Token(FakeForge.GITHUB_TOKEN), http);
  }

  Forge gitlab() {
    return new GitLabForge(forge.gitlabApi(), new Token(FakeForge.GITLAB_TOKEN), http);
  }

  Forge gitea() {
    return CommitStatusApi.gitea(forge.giteaApi(), new Token(FakeForge.GITEA_TOKEN), http);
  }

  static CommitStatus status(CommitState state, String description) {
    return new CommitStatus(state, description, "trainyard/dev/llama-ft-7f3a9c", "");
  }

  @Override
  public void close() {
    forge.close();
  }
}
