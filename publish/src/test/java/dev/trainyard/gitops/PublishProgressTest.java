package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an interrupted submit or prune can say: {@link PublishProgress} as the publisher moves it.
 */
class PublishProgressTest {
  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";
  private static final String REPO = "https://git.example.com/gitops.git";
  @TempDir Path temp;

  @Test
  @DisplayName("each phase says in one line whether the commit landed, naming the sha and repo")
  void lines() {
    PublishProgress p = new PublishProgress();
    assertEquals(PublishProgress.Phase.NOT_PUSHED, p.phase());
    assertEquals("interrupted; nothing was pushed", p.interruptedLine());
    p.publishing(REPO, "main");
    assertEquals("interrupted; nothing was pushed to " + REPO + " (main)", p.interruptedLine());
    p.pushing(REPO, "main", SHA);
    assertEquals(PublishProgress.Phase.PUSHING, p.phase());
    assertEquals(
        "interrupted while pushing "
            + SHA
            + " to "
            + REPO
            + " (main): whether it landed is unknown; check with git ls-remote "
            + REPO
            + " refs/heads/main",
        p.interruptedLine());
    p.answered(false);
    assertEquals(PublishProgress.Phase.NOT_PUSHED, p.phase(), "a lost race pushed nothing");
    assertEquals("interrupted; nothing was pushed to " + REPO + " (main)", p.interruptedLine());
    p.pushing(REPO, "main", SHA);
    p.answered(true);
    assertEquals(PublishProgress.Phase.PUSHED, p.phase());
    assertEquals(
        "interrupted after the push: " + SHA + " landed in " + REPO + " (main)",
        p.interruptedLine());
  }

  @Test
  @DisplayName(
      "awaitSettled returns at once when no push is in flight, at the answer, or after its limit")
  void awaitSettled() throws Exception {
    PublishProgress p = new PublishProgress();
    long start = System.nanoTime();
    assertEquals(PublishProgress.Phase.NOT_PUSHED, p.awaitSettled(Duration.ofSeconds(30)));
    assertTrue(millisSince(start) < 5_000, "waited with no push in flight");

    p.pushing(REPO, "main", SHA);
    start = System.nanoTime();
    assertEquals(PublishProgress.Phase.PUSHING, p.awaitSettled(Duration.ofMillis(300)));
    long waited = millisSince(start);
    assertTrue(waited >= 300 && waited < 20_000, "waited " + waited + " ms for a 300 ms limit");

    Thread answer =
        new Thread(
            () -> {
              try {
                TimeUnit.MILLISECONDS.sleep(200);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              p.answered(true);
            });
    start = System.nanoTime();
    answer.start();
    assertEquals(PublishProgress.Phase.PUSHED, p.awaitSettled(Duration.ofSeconds(60)));
    assertTrue(millisSince(start) < 30_000, "did not wake at the answer");
    answer.join(10_000);

    p.pushing(REPO, "main", SHA);
    Thread replan =
        new Thread(
            () -> {
              try {
                TimeUnit.MILLISECONDS.sleep(200);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              p.publishing(REPO, "main");
            });
    start = System.nanoTime();
    replan.start();
    assertEquals(PublishProgress.Phase.NOT_PUSHED, p.awaitSettled(Duration.ofSeconds(60)));
    assertTrue(millisSince(start) < 30_000, "did not wake when the publish started over");
    replan.join(10_000);
  }

  @Test
  @DisplayName(
      "a real submit: nothing pushed while planning, PUSHED with the pushed sha after; a dry run never pushes")
  void submitMovesIt() throws Exception {
    GitOpsFixture f = new GitOpsFixture(temp, "run: torchrun train.py\n");
    PublishProgress progress = new PublishProgress();
    Submitter submitter =
        new Submitter(temp.resolve("cache"), Map.of(), Clock.systemUTC(), progress);
    List<String> beforePush = new ArrayList<>();
    SubmitResult done =
        submitter.submit(
            f.request(f.project.trainYaml(), false, false),
            attempt -> beforePush.add(progress.phase() + " " + progress.interruptedLine()));
    String shown = f.location().shown();
    assertEquals(
        List.of("NOT_PUSHED interrupted; nothing was pushed to " + shown + " (main)"), beforePush);
    assertEquals(
        "interrupted after the push: "
            + done.commit().orElseThrow()
            + " landed in "
            + shown
            + " (main)",
        progress.interruptedLine());
    assertEquals(GitCli.git(f.bare, "rev-parse", "main").strip(), done.commit().orElseThrow());

    PublishProgress dry = new PublishProgress();
    new Submitter(temp.resolve("cache"), Map.of(), Clock.systemUTC(), dry)
        .submit(f.request(f.project.trainYaml(), true, true));
    assertEquals("interrupted; nothing was pushed to " + shown + " (main)", dry.interruptedLine());
  }

  @Test
  @DisplayName(
      "stop before the push: startPush refuses (nothing pushed, for good); stop after it: the push in flight is reported as for a signal")
  void stopGatesThePush() throws Exception {
    PublishProgress p = new PublishProgress();
    p.publishing(REPO, "main");
    assertFalse(p.isStopped());
    p.startPush(REPO, "main", SHA);
    assertEquals(PublishProgress.Phase.PUSHING, p.phase());
    p.stop();
    assertTrue(p.isStopped());
    assertEquals(PublishProgress.Phase.PUSHING, p.phase(), "a stop does not undo a push sent");
    p.answered(true);
    assertEquals(
        "interrupted after the push: " + SHA + " landed in " + REPO + " (main)",
        p.interruptedLine());

    PublishProgress q = new PublishProgress();
    q.publishing(REPO, "main");
    q.stop();
    GitOpsException refused =
        assertThrows(GitOpsException.class, () -> q.startPush(REPO, "main", SHA));
    assertEquals("stopped before pushing " + SHA + " to " + REPO + " (main)", refused.getMessage());
    assertEquals("nothing was pushed", refused.hint());
    assertEquals(PublishProgress.Phase.NOT_PUSHED, q.phase());
    assertEquals("interrupted; nothing was pushed to " + REPO + " (main)", q.interruptedLine());
  }

  @Test
  @DisplayName(
      "a real submit stopped while it plans pushes nothing: it fails with 'stopped', the branch stays, the next submit lands")
  void stoppedSubmitPushesNothing() throws Exception {
    GitOpsFixture f = new GitOpsFixture(temp, "run: torchrun train.py\n");
    SubmitResult first =
        f.submitter(GitOpsFixture.T0).submit(f.request(f.project.trainYaml(), false, false));
    String tip = GitCli.git(f.bare, "rev-parse", "main").strip();
    assertEquals(first.commit().orElseThrow(), tip);
    PublishProgress progress = new PublishProgress();
    Submitter submitter =
        new Submitter(temp.resolve("cache"), Map.of(), Clock.systemUTC(), progress);
    GitOpsException stopped =
        assertThrows(
            GitOpsException.class,
            () ->
                submitter.submit(
                    f.request(f.project.trainYaml(), true, false), attempt -> progress.stop()));
    assertTrue(stopped.getMessage().startsWith("stopped before pushing "), stopped.getMessage());
    assertEquals(tip, GitCli.git(f.bare, "rev-parse", "main").strip(), "the branch moved");
    assertEquals(
        "interrupted; nothing was pushed to " + f.location().shown() + " (main)",
        progress.interruptedLine());
    SubmitResult again =
        f.submitter(GitOpsFixture.T0).submit(f.request(f.project.trainYaml(), true, false));
    assertTrue(again.pushed(), again.diagnostics().toString());
  }

  @Test
  @DisplayName(
      "a submit waiting for another process's lock on the mirror already names the repository and branch in its line")
  void namedWhileWaitingForTheLock() throws Exception {
    GitOpsFixture f = new GitOpsFixture(temp, "run: torchrun train.py\n");
    f.submitter(GitOpsFixture.T0).submit(f.request(f.project.trainYaml(), false, false));
    Path lock;
    try (Stream<Path> files = Files.list(temp.resolve("cache/gitops"))) {
      lock = files.filter(p -> p.toString().endsWith(".git.lock")).findFirst().orElseThrow();
    }
    Path locked = temp.resolve("locked");
    Process holder =
        new ProcessBuilder(
                "python3",
                "-c",
                "import fcntl, sys, time\n"
                    + "f = open(sys.argv[1], 'r+')\n"
                    + "fcntl.lockf(f, fcntl.LOCK_EX)\n"
                    + "open(sys.argv[2], 'w').close()\n"
                    + "time.sleep(60)\n",
                lock.toString(),
                locked.toString())
            .start();
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.exists(locked) && System.nanoTime() < until) {
        TimeUnit.MILLISECONDS.sleep(20);
      }
      assertTrue(Files.exists(locked), "python3 never took the lock");
      PublishProgress progress = new PublishProgress();
      Thread submit =
          new Thread(
              () -> {
                try {
                  new Submitter(temp.resolve("cache"), Map.of(), Clock.systemUTC(), progress)
                      .submit(f.request(f.project.trainYaml(), true, false));
                } catch (GitOpsException e) {
                  // released below: it may then land or time out; only the wait matters here
                }
              });
      submit.setDaemon(true);
      submit.start();
      String expected = "interrupted; nothing was pushed to " + f.location().shown() + " (main)";
      until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!progress.interruptedLine().equals(expected) && System.nanoTime() < until) {
        TimeUnit.MILLISECONDS.sleep(20);
      }
      assertEquals(expected, progress.interruptedLine());
      assertEquals(PublishProgress.Phase.NOT_PUSHED, progress.phase());
      holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      submit.join(TimeUnit.SECONDS.toMillis(120));
    } finally {
      holder.destroyForcibly();
    }
  }

  @Test
  @DisplayName("a prune keeps the progress too: after it, the pruning commit landed")
  void pruneMovesIt() throws Exception {
    GitOpsFixture f = new GitOpsFixture(temp, "run: torchrun train.py\n");
    SubmitResult submitted =
        f.submitter(GitOpsFixture.T0).submit(f.request(f.project.trainYaml(), false, false));
    String run = submitted.newRuns().get(0).folder().run();
    PublishProgress progress = new PublishProgress();
    PruneResult pruned =
        new Pruner(temp.resolve("cache"), Map.of(), Clock.systemUTC(), progress)
            .prune(
                new PruneRequest(
                    f.location(), "main", List.of(run), Optional.empty(), Optional.empty(), false));
    assertEquals(
        "interrupted after the push: "
            + pruned.commit().orElseThrow()
            + " landed in "
            + f.location().shown()
            + " (main)",
        progress.interruptedLine());
  }

  @Test
  @DisplayName(
      "lock files and incoming packs a killed process left in the mirror are removed, so the next submit works")
  void leftoversRemoved() throws Exception {
    GitOpsFixture f = new GitOpsFixture(temp, "run: torchrun train.py\n");
    f.submitter(GitOpsFixture.T0).submit(f.request(f.project.trainYaml(), false, false));
    Path mirror = mirror();
    List<Path> left =
        List.of(
            mirror.resolve("refs/remotes/origin/main.lock"),
            mirror.resolve("packed-refs.lock"),
            mirror.resolve("config.lock"),
            mirror.resolve("objects/pack/incoming_123.pack"));
    for (Path p : left) {
      Files.createDirectories(p.getParent());
      Files.writeString(p, "0123456789abcdef0123456789abcdef01234567\n");
    }
    SubmitResult again =
        f.submitter(GitOpsFixture.T0).submit(f.request(f.project.trainYaml(), true, false));
    assertTrue(again.pushed(), again.diagnostics().toString());
    for (Path p : left) {
      assertFalse(Files.exists(p), p + " is still there");
    }
  }

  @Test
  @DisplayName("a mirror cut off while being created (no config) is made anew")
  void halfCreatedMirror() throws Exception {
    GitOpsFixture f = new GitOpsFixture(temp, "run: torchrun train.py\n");
    f.submitter(GitOpsFixture.T0).submit(f.request(f.project.trainYaml(), false, false));
    Path mirror = mirror();
    Files.delete(mirror.resolve("config"));
    Files.writeString(mirror.resolve("refs/heads/junk"), "not a sha\n");
    SubmitResult again =
        f.submitter(GitOpsFixture.T0).submit(f.request(f.project.trainYaml(), true, false));
    assertTrue(again.pushed(), again.diagnostics().toString());
    assertTrue(Files.exists(mirror.resolve("config")));
    assertFalse(Files.exists(mirror.resolve("refs/heads/junk")), "the old mirror was kept");
  }

  private Path mirror() throws Exception {
    try (Stream<Path> dirs = Files.list(temp.resolve("cache/gitops"))) {
      return dirs.filter(Files::isDirectory).findFirst().orElseThrow();
    }
  }

  private static long millisSince(long start) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }
}
