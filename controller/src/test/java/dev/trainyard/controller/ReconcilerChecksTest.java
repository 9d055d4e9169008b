package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.forge.FakeGitHubChecks;
import dev.trainyard.controller.forge.ForgeDirectory;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.ForgeKind;
import dev.trainyard.controller.forge.GitHubApp;
import dev.trainyard.controller.forge.JdkTransport;
import dev.trainyard.controller.forge.RetryPolicy;
import dev.trainyard.controller.forge.RetryingTransport;
import dev.trainyard.controller.forge.TestTime;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reconciler with a GitHub App forge ({@code status.forges[].app}): a failed run's check run
 * carries the whole failure and the failing pod's last log lines, masked; the log is read once; a
 * run its timeout ended concludes {@code timed_out}.
 */
class ReconcilerChecksTest {

  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  static final String SHA = "6f1c2d3e4a5b6c7d8e9f00112233445566778899";
  static final RunKey KEY = new RunKey("team-a", "llama-ft-7f3a9c");
  static final String LEAKED = "ghp_" + "A".repeat(36);

  @TempDir Path temp;
  final TestTime time = new TestTime(T0);
  final List<String> logReads = new ArrayList<>();
  String tail = "epoch 1 loss 2.1\ntoken " + LEAKED + "\nTraceback: boom\n";
  final ReconcilerTest.FakeSource source =
      new ReconcilerTest.FakeSource() {
        @Override
        public Optional<String> logTail(
            RunKey key, String pod, String container, int lines, int maxBytes) {
          logReads.add(key.cacheKey() + " " + pod + " " + container + " " + lines + " " + maxBytes);
          return Optional.ofNullable(tail);
        }
      };
  FakeGitHubChecks github;
  Reconciler reconciler;

  @BeforeEach
  void start() throws Exception {
    Path key = FakeGitHubChecks.appKey(temp);
    github = FakeGitHubChecks.start(FakeGitHubChecks.publicKeyOf(key), time::instant);
    RetryingTransport http =
        new RetryingTransport(
            new JdkTransport(Duration.ofSeconds(5)),
            RetryPolicy.standard(),
            time,
            time,
            new ControllerMetrics());
    ForgeDirectory forges =
        new ForgeDirectory(
            List.of(
                new ForgeEndpoint(
                    "github.com",
                    ForgeKind.GITHUB,
                    github.api(),
                    null,
                    new GitHubApp(FakeGitHubChecks.APP_ID, key))),
            http);
    reconciler =
        new Reconciler(
            source,
            new RunStateMapper(Duration.ofMinutes(10)),
            forges,
            new StatusLedger(),
            new TargetUrl("https://grafana.example/d/runs?run={run}"),
            new ControllerMetrics(),
            time);
    source.provenance.put(
        KEY,
        new RunProvenance(
            "https://github.com/acme/llm.git", SHA, "jobs/llama/train.yaml", "dev", KEY.name()));
  }

  @AfterEach
  void stop() {
    github.close();
  }

  /** The run as the caches show it: a JobSet of {@code nodes} nodes, its pods and conditions. */
  void observe(int nodes, List<PodSnapshot> pods, List<ConditionSnapshot> conditions) {
    source.runs.put(
        KEY,
        new RunObservation(
            new JobSetSnapshot(
                KEY.namespace(), KEY.name(), T0, false, nodes, 0, 0, "team-a-lq", conditions),
            pods,
            Optional.empty(),
            T0.plusSeconds(60)));
  }

  void failed(String podReason, ContainerSnapshot container) {
    PodSnapshot pod =
        new PodSnapshot(
            "llama-ft-7f3a9c-node-0-1-x7k2p",
            "kwok-cpu-1",
            "Failed",
            podReason,
            0,
            false,
            false,
            T0,
            List.of(),
            List.of(container),
            List.of());
    observe(
        2,
        List.of(pod),
        List.of(new ConditionSnapshot("Failed", true, "FailedJobs", "", T0.plusSeconds(20))));
  }

  @Test
  @DisplayName(
      "a user's exit: one check run, conclusion failure, the failure in full and the last log"
          + " lines with the token masked; the log is read once")
  void failureDetails() {
    failed("", ContainerSnapshot.terminated("node", 1, "Error"));
    assertEquals(
        Reconciler.Outcome.POSTED, reconciler.reconcile(KEY), () -> github.rejected().toString());
    assertEquals(Reconciler.Outcome.FINAL, reconciler.reconcile(KEY));
    assertEquals(List.of(), github.rejected());
    assertEquals(1, github.runs().size());
    FakeGitHubChecks.CheckRun run = github.runs().get(0);
    assertEquals("completed", run.status());
    assertEquals("failure", run.conclusion());
    assertEquals("trainyard/dev/team-a/llama-ft-7f3a9c", run.name());
    String text = (String) run.output().get("text");
    assertTrue(text.startsWith("**Failed (user error)**: "), text);
    assertTrue(text.contains("\n- node: `kwok-cpu-1`"), text);
    assertTrue(text.contains("\n- exit code: 1"), text);
    assertTrue(
        text.contains(
            "Last lines of `llama-ft-7f3a9c-node-0-1-x7k2p` (container `node`,"
                + " credential-shaped values masked):\n\n```text\nepoch 1 loss 2.1\ntoken ***\n"
                + "Traceback: boom\n```"),
        text);
    assertFalse(text.contains(LEAKED), text);
    assertEquals(
        List.of(
            "team-a/llama-ft-7f3a9c llama-ft-7f3a9c-node-0-1-x7k2p node "
                + Reconciler.ERROR_LINES
                + " "
                + Reconciler.ERROR_BYTES),
        logReads);
    assertEquals(30, Reconciler.LOG_LINES);
    assertEquals(16_384, Reconciler.LOG_BYTES);
    assertTrue(
        ((String) run.output().get("title")).startsWith("failed (user error): "),
        run.output().toString());
  }

  @Test
  @DisplayName("a run its timeout ended concludes timed_out and says what to change")
  void timedOut() {
    failed("DeadlineExceeded", ContainerSnapshot.terminated("node", 137, "Error"));
    reconciler.reconcile(KEY);
    FakeGitHubChecks.CheckRun run = github.runs().get(0);
    assertEquals("timed_out", run.conclusion());
    assertTrue(
        ((String) run.output().get("text"))
            .contains("- what to change: raise timeout in train.yaml"),
        run.output().toString());
  }

  @Test
  @DisplayName(
      "a success whose rank 0 log (read once at its end) showed no training step is neutral, says"
          + " 'did it train?', and posts no log")
  void successWithoutTraining() {
    observe(
        1,
        List.of(ReconcilerTest.ready("p0")),
        List.of(new ConditionSnapshot("Completed", true, "AllJobsCompleted", "", T0)));
    reconciler.reconcile(KEY);
    reconciler.reconcile(KEY);
    FakeGitHubChecks.CheckRun run = github.runs().get(0);
    assertEquals("neutral", run.conclusion());
    assertTrue(
        run.output().get("title").toString().contains("no training step was seen — did it train?"),
        run.output().toString());
    assertFalse(run.output().containsKey("text"), run.output().toString());
    assertEquals(
        List.of(
            KEY.cacheKey()
                + " p0 node "
                + Reconciler.RANK_ZERO_LINES
                + " "
                + Reconciler.RANK_ZERO_BYTES),
        logReads,
        "read once: the check run is final after the post");
  }

  @Test
  @DisplayName(
      "running is in_progress on the same check run; the success posts no log and no details")
  void success() {
    tail = "step 10/10 loss 0.1\n";
    observe(1, List.of(ReconcilerTest.ready("p0")), List.of());
    reconciler.reconcile(KEY);
    assertEquals("in_progress", github.runs().get(0).status());
    observe(
        1,
        List.of(ReconcilerTest.ready("p0")),
        List.of(new ConditionSnapshot("Completed", true, "AllJobsCompleted", "", T0)));
    reconciler.reconcile(KEY);
    assertEquals(1, github.runs().size());
    FakeGitHubChecks.CheckRun run = github.runs().get(0);
    assertEquals("success", run.conclusion());
    assertFalse(run.output().containsKey("text"), run.output().toString());
    assertEquals(1, logReads.size(), "rank 0's log read once at the end: it showed a step");
  }
}
