package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.gitops.PublishProgress;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The shutdown hook of submit and prune, called in this JVM (InterruptTest sends real signals). */
class InterruptReportTest {
  private static final String SHA = "0123456789abcdef0123456789abcdef01234567";
  private static final String REPO = "https://git.example.com/gitops.git";

  @Test
  @DisplayName("the hook prints the progress' one line with the trainyard: prefix")
  void printsTheLine() {
    PublishProgress progress = new PublishProgress();
    progress.publishing(REPO, "main");
    assertEquals(
        "trainyard: interrupted; nothing was pushed to " + REPO + " (main)\n",
        report(progress, Duration.ofSeconds(30)));
  }

  @Test
  @DisplayName(
      "a push in flight that answers within the grace is reported as landed; one that does not, as unknown")
  void waitsForAPushInFlight() throws Exception {
    PublishProgress progress = new PublishProgress();
    progress.pushing(REPO, "main", SHA);
    Thread answer =
        new Thread(
            () -> {
              try {
                TimeUnit.MILLISECONDS.sleep(200);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              progress.answered(true);
            });
    answer.start();
    assertEquals(
        "trainyard: interrupted after the push: " + SHA + " landed in " + REPO + " (main)\n",
        report(progress, Duration.ofSeconds(60)));
    answer.join(10_000);

    PublishProgress stuck = new PublishProgress();
    stuck.pushing(REPO, "main", SHA);
    assertTrue(
        report(stuck, Duration.ofMillis(100))
            .startsWith("trainyard: interrupted while pushing " + SHA));
    assertEquals(Duration.ofSeconds(5), InterruptReport.PUSH_GRACE);
  }

  @Test
  @DisplayName(
      "watch registers a shutdown hook and close removes it; close after shutdown began is quiet")
  void registersAndRemoves() {
    InterruptReport watch =
        InterruptReport.watch(new PublishProgress(), new PrintWriter(new StringWriter()));
    watch.close();
    assertFalse(Runtime.getRuntime().removeShutdownHook(watch.hook), "close left the hook");
    InterruptReport again =
        InterruptReport.watch(new PublishProgress(), new PrintWriter(new StringWriter()));
    assertTrue(Runtime.getRuntime().removeShutdownHook(again.hook), "watch registered no hook");
    again.close();

    StringWriter out = new StringWriter();
    PublishProgress progress = new PublishProgress();
    progress.publishing(REPO, "main");
    InterruptReport third = InterruptReport.watch(progress, new PrintWriter(out));
    third.close();
    third.hook.run(); // what the JVM runs on SIGINT/SIGTERM, here in this thread
    assertEquals(
        "trainyard: interrupted; nothing was pushed to " + REPO + " (main)\n", out.toString());
  }

  @Test
  @DisplayName("submit --help and prune --help name the exit codes 130/143 of an interrupt")
  void helpNamesTheExitCodes() {
    for (String command : new String[] {"submit", "prune"}) {
      MainTest.Run r = MainTest.run(command, "--help");
      assertEquals(0, r.exit(), r.err());
      assertTrue(
          r.out()
              .contains(
                  "130/143 interrupted (SIGINT/SIGTERM): one line says whether the commit landed."),
          r.out());
    }
  }

  private static String report(PublishProgress progress, Duration grace) {
    StringWriter out = new StringWriter();
    InterruptReport.report(progress, new PrintWriter(out), grace);
    return out.toString();
  }
}
