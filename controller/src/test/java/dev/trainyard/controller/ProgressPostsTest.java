package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.StatusLedger.StatusKey;
import dev.trainyard.controller.state.Progress;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** When a progress alone is worth a post. */
class ProgressPostsTest {

  static final Instant T0 = Instant.parse("2026-12-02T08:00:00Z");
  static final StatusKey KEY = new StatusKey("github", "acme/llm", "abc", "trainyard/it/ns/run");

  static Progress percent(int p) {
    return new Progress(null, null, p, null, null, T0, Progress.Source.PUSH);
  }

  @Test
  @DisplayName(
      "a pushed percent without steps: each 5 % (step 5), else after 'every' when it moved; never past the budget")
  void percentOnly() {
    ProgressPosts posts =
        new ProgressPosts(new ProgressPosts.Settings(5, Duration.ofMinutes(10), 3));
    assertTrue(posts.due(KEY, percent(1), T0, "anything"));
    posts.posted(KEY, percent(1), T0, "running: 1 %");
    assertFalse(posts.due(KEY, percent(4), T0.plusSeconds(60), "running: 1 %"));
    assertTrue(posts.due(KEY, percent(5), T0.plusSeconds(60), "running: 1 %"));
    assertTrue(posts.due(KEY, percent(4), T0.plusSeconds(600), "running: 1 %"));
    assertTrue(posts.due(KEY, percent(2), T0.plusSeconds(60), "stalled: no progress for 30m"));
    posts.posted(KEY, percent(5), T0.plusSeconds(60), "running: 5 %");
    posts.posted(KEY, percent(10), T0.plusSeconds(120), "running: 10 %");
    assertFalse(
        posts.due(KEY, percent(50), T0.plusSeconds(9000), "running: 10 %"), "3 posts: the budget");
    assertTrue(posts.due(KEY, percent(50), T0, "stalled"), "what the forge shows is not ours");
    posts.forget(KEY);
    assertTrue(posts.due(KEY, percent(1), T0, "running: 10 %"));
    posts.posted(KEY, percent(1), T0, "running: 1 %");
    posts.clear();
    assertTrue(posts.due(KEY, percent(1), T0, "running: 1 %"));
  }

  @Test
  @DisplayName("without a percent or a moved step nothing is due by time; a new whole step is")
  void unmoved() {
    ProgressPosts posts = new ProgressPosts(ProgressPosts.DEFAULT);
    Progress none = new Progress(null, null, null, null, null, T0, Progress.Source.LOG);
    posts.posted(KEY, none, T0, "running: x");
    assertFalse(posts.due(KEY, none, T0.plus(Duration.ofHours(2)), "running: x"));
    assertTrue(posts.due(KEY, percent(0), T0, "running: x"), "the first percent");
    Progress step = new Progress(5L, null, null, null, null, T0, Progress.Source.LOG);
    posts.posted(KEY, step, T0, "running: step 5");
    assertFalse(posts.due(KEY, step, T0.plus(Duration.ofHours(2)), "running: step 5"));
    Progress later = new Progress(6L, null, null, null, null, T0, Progress.Source.LOG);
    assertFalse(posts.due(KEY, later, T0.plus(Duration.ofMinutes(29)), "running: step 5"));
    assertTrue(posts.due(KEY, later, T0.plus(Duration.ofMinutes(30)), "running: step 5"));
  }
}
