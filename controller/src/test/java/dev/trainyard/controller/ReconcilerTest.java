package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.controller.Reconciler.Outcome;
import dev.trainyard.controller.forge.FakeForge;
import dev.trainyard.controller.forge.FakeForge.Fault;
import dev.trainyard.controller.forge.ForgeDirectory;
import dev.trainyard.controller.forge.ForgeEndpoint;
import dev.trainyard.controller.forge.ForgeKind;
import dev.trainyard.controller.forge.JdkTransport;
import dev.trainyard.controller.forge.RetryPolicy;
import dev.trainyard.controller.forge.RetryingTransport;
import dev.trainyard.controller.forge.TestTime;
import dev.trainyard.controller.forge.Token;
import dev.trainyard.controller.state.ConditionSnapshot;
import dev.trainyard.controller.state.ContainerSnapshot;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.JobSnapshot;
import dev.trainyard.controller.state.PodSnapshot;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunStateMapper;
import dev.trainyard.controller.state.WorkloadSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReconcilerTest {

  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");
  static final String SHA = "6f1c2d3e4a5b6c7d8e9f00112233445566778899";
  static final RunKey KEY = new RunKey("team-a", "llama-ft-7f3a9c");

  final FakeForge forge = FakeForge.start();
  final TestTime time = new TestTime(T0);
  final ControllerMetrics metrics = new ControllerMetrics();
  final FakeSource source = new FakeSource();
  String repo = "https://github.com/acme/llm.git";

  /**
   * The last reconciler's ledger (each reconciler starts with an empty one, as after a restart).
   */
  StatusLedger ledger;

  @TempDir Path tmp;

  @AfterEach
  void close() {
    forge.close();
  }

  /** A RunSource holding one observation per key, changed by the test. */
  static class FakeSource implements RunSource {
    final Map<RunKey, RunObservation> runs = new HashMap<>();
    final Map<RunKey, RunProvenance> provenance = new HashMap<>();

    @Override
    public Optional<RunObservation> observe(RunKey key) {
      return Optional.ofNullable(runs.get(key));
    }

    @Override
    public Optional<RunProvenance> provenance(RunKey key) {
      return Optional.ofNullable(provenance.get(key));
    }

    final Map<RunKey, DeletedRun> deleted = new HashMap<>();
    final List<RunKey> forgotten = new ArrayList<>();

    @Override
    public Optional<DeletedRun> deleted(RunKey key) {
      return runs.containsKey(key) ? Optional.empty() : Optional.ofNullable(deleted.get(key));
    }

    @Override
    public void forget(RunKey key) {
      deleted.remove(key);
      forgotten.add(key);
    }

    /** The JobSet of {@code key} is deleted, its final object as the run shows now. */
    void delete(RunKey key) {
      deleted.put(key, new DeletedRun(provenance.remove(key), runs.remove(key)));
    }
  }

  Reconciler reconciler() {
    return reconciler(new Token(FakeForge.GITHUB_TOKEN));
  }

  Reconciler reconciler(Token githubToken) {
    RetryingTransport http =
        new RetryingTransport(
            new JdkTransport(Duration.ofSeconds(5)), RetryPolicy.standard(), time, time, metrics);
    ForgeDirectory forges =
        new ForgeDirectory(
            List.of(
                new ForgeEndpoint("github.com", ForgeKind.GITHUB, forge.githubApi(), githubToken),
                new ForgeEndpoint(
                    "gitlab.example",
                    ForgeKind.GITLAB,
                    forge.gitlabApi(),
                    new Token(FakeForge.GITLAB_TOKEN))),
            http);
    ledger = new StatusLedger();
    return new Reconciler(
        source,
        new RunStateMapper(Duration.ofMinutes(10)),
        forges,
        ledger,
        new TargetUrl("https://grafana.example/d/runs?ns={namespace}&run={run}"),
        metrics,
        time,
        pushed);
  }

  /** Progress the runs' pods pushed. */
  final PushedProgress pushed = new PushedProgress();

  /** When the runs are observed. */
  Instant now = T0.plusSeconds(30);

  void state(boolean suspended, List<PodSnapshot> pods, ConditionSnapshot... jobSetConditions) {
    source.provenance.put(
        KEY, new RunProvenance(repo, SHA, "jobs/llama/train.yaml", "dev", "llama-ft-7f3a9c"));
    WorkloadSnapshot wl =
        suspended
            ? new WorkloadSnapshot(
                "",
                List.of(
                    new ConditionSnapshot(
                        "QuotaReserved",
                        false,
                        "Pending",
                        "insufficient quota for cpu in flavor f, 100m more needed",
                        T0)))
            : new WorkloadSnapshot(
                "cq",
                List.of(
                    new ConditionSnapshot("QuotaReserved", true, "", "", T0),
                    new ConditionSnapshot("Admitted", true, "", "", T0)));
    source.runs.put(
        KEY,
        new RunObservation(
            new JobSetSnapshot(
                KEY.namespace(),
                KEY.name(),
                T0,
                suspended,
                2,
                0,
                0,
                "team-a-lq",
                List.of(jobSetConditions)),
            pods,
            Optional.of(wl),
            now));
  }

  void queued() {
    state(true, List.of());
  }

  void running() {
    state(false, List.of(ready("p0"), ready("p1")));
  }

  void succeeded() {
    state(
        false,
        List.of(ready("p0"), ready("p1")),
        new ConditionSnapshot("Completed", true, "AllJobsCompleted", "", T0.plusSeconds(90)));
  }

  static PodSnapshot ready(String name) {
    return new PodSnapshot(
        name,
        "kwok-cpu-0",
        "Running",
        "",
        0,
        true,
        false,
        T0,
        List.of(),
        List.of(ContainerSnapshot.running("node")),
        List.of());
  }

  List<String> posted() {
    return forge.accepted().stream().map(a -> a.state() + " " + a.description()).toList();
  }

  @Test
  @DisplayName(
      "queued → running → succeeded: each posted once on the source commit with context trainyard/<cluster>/<namespace>/<run>")
  void lifecycle() {
    Reconciler r = reconciler();
    queued();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(Outcome.UNCHANGED, r.reconcile(KEY));
    running();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(Outcome.UNCHANGED, r.reconcile(KEY));
    succeeded();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(Outcome.FINAL, r.reconcile(KEY));
    assertEquals(
        List.of(
            "pending queued in team-a-lq: insufficient quota for cpu in flavor f, 100m more needed",
            "pending running: 2 of 2 nodes ready, attempt 1 of 1",
            "success succeeded in 1m 30s, attempt 1 of 1"),
        posted());
    FakeForge.Accepted first = forge.accepted().get(0);
    assertEquals("trainyard/dev/team-a/llama-ft-7f3a9c", first.context());
    assertEquals(SHA, first.sha());
    assertEquals("acme/llm", first.project());
    assertEquals("https://grafana.example/d/runs?ns=team-a&run=llama-ft-7f3a9c", first.targetUrl());
    assertEquals(
        3, metrics.counter("trainyard_forge_calls_total{forge=\"github\",result=\"posted\"}"));
  }

  @Test
  @DisplayName(
      "a start step younger than QUIET is HELD (nothing posted, back when it has lasted QUIET), then posted")
  void startStepHeld() {
    Reconciler r = reconciler();
    queued();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    PodSnapshot unscheduled =
        new PodSnapshot(
            "p0", "", "Pending", "", 0, false, false, null, List.of(), List.of(), List.of());
    now = T0.plusSeconds(5);
    state(false, List.of(unscheduled));
    assertEquals(Outcome.HELD, r.reconcile(KEY));
    assertEquals(
        Optional.of(RunStateMapper.QUIET.minusSeconds(5)), r.retryAfter(KEY), "its end, from T0");
    assertEquals(1, posted().size(), posted().toString());
    now = T0.plus(RunStateMapper.QUIET);
    state(false, List.of(unscheduled));
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals("pending starting: waiting for nodes, attempt 1 of 1", posted().get(1));
  }

  @Test
  @DisplayName(
      "a restarted controller (empty ledger) reads the forge first and posts nothing already there")
  void restartSafe() {
    running();
    reconciler().reconcile(KEY);
    int requests = forge.requests();
    Reconciler afterCrash = reconciler();
    assertEquals(Outcome.UNCHANGED, afterCrash.reconcile(KEY));
    assertEquals(1, forge.accepted().size());
    assertEquals(requests + 1, forge.requests(), "exactly one read, no post");
    assertEquals(Outcome.UNCHANGED, afterCrash.reconcile(KEY));
    assertEquals(requests + 1, forge.requests(), "the ledger answers from then on");
  }

  @Test
  @DisplayName(
      "a terminal status is final: a re-created run (queued again) is never posted back to pending")
  void terminalIsFinal() {
    Reconciler r = reconciler();
    succeeded();
    r.reconcile(KEY);
    queued();
    assertEquals(Outcome.FINAL, r.reconcile(KEY));
    assertEquals(
        Outcome.FINAL, reconciler().reconcile(KEY), "also after a restart, from the forge's view");
    assertEquals(
        List.of("success"), forge.accepted().stream().map(FakeForge.Accepted::state).toList());
  }

  @Test
  @DisplayName("a bare 403 is reported once and not retried until the run's state changes")
  void permission() {
    Reconciler r = reconciler();
    queued();
    forge.script(Fault.status(200), Fault.bareForbidden());
    try (LogLines log = new LogLines(Reconciler.class)) {
      assertEquals(Outcome.REFUSED, r.reconcile(KEY));
      assertEquals(1, log.lines.size(), log.lines.toString());
      assertTrue(
          log.lines
              .get(0)
              .startsWith(
                  "SEVERE run "
                      + KEY.cacheKey()
                      + ": github refused the commit status (PERMISSION): "),
          log.lines.toString());
      assertFalse(log.lines.get(0).contains(FakeForge.GITHUB_TOKEN), "no token in the log");
    }
    int requests = forge.requests();
    assertEquals(Outcome.REFUSED, r.reconcile(KEY));
    assertEquals(requests, forge.requests(), "no new request for the same refused status");
    running();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(
        1, metrics.counter("trainyard_forge_calls_total{forge=\"github\",result=\"permission\"}"));
  }

  @Test
  @DisplayName(
      "a refused final status is tried again REFUSED_RETRY later (not before), and delivered once the token is fixed")
  void refusedFinalStatusRetriedAfterBackoff() {
    Reconciler r = reconciler();
    succeeded();
    forge.script(Fault.status(200), Fault.bareForbidden());
    assertEquals(Outcome.REFUSED, r.reconcile(KEY));
    int requests = forge.requests();
    time.sleep(Reconciler.REFUSED_RETRY.minusSeconds(1));
    assertEquals(Outcome.REFUSED, r.reconcile(KEY));
    assertEquals(requests, forge.requests(), "not before the back-off");
    time.sleep(Duration.ofSeconds(1));
    assertEquals(Outcome.POSTED, r.reconcile(KEY), "the forge accepts now (token fixed)");
    assertEquals(
        List.of("success"), forge.accepted().stream().map(FakeForge.Accepted::state).toList());
    assertEquals(Outcome.FINAL, r.reconcile(KEY));
  }

  @Test
  @DisplayName(
      "a forge that stays unavailable asks for a requeue after its gate's wait; calls held back by the gate send and log nothing; then the status arrives once")
  void unavailable() {
    Reconciler r = reconciler();
    running();
    forge.script(Fault.status(502), Fault.status(502), Fault.status(502));
    try (LogLines log = new LogLines(Reconciler.class)) {
      assertEquals(Outcome.RETRY, r.reconcile(KEY));
      assertEquals(Optional.of(Duration.ofSeconds(1)), r.retryAfter(KEY));
      assertEquals(Optional.empty(), r.retryAfter(KEY), "read once");
      int requests = forge.requests();
      assertEquals(
          Outcome.RETRY, r.reconcile(KEY), "the gate is closed for a second: nothing is sent");
      assertEquals(requests, forge.requests());
      assertEquals(1, log.lines.size(), log.lines.toString());
      assertTrue(
          log.lines
              .get(0)
              .startsWith("WARNING run " + KEY.cacheKey() + ": github unavailable, will retry: "),
          log.lines.toString());
    }
    time.sleep(Duration.ofSeconds(1));
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(Outcome.UNCHANGED, r.reconcile(KEY));
    assertEquals(1, forge.accepted().size());
    assertEquals(
        3, metrics.counter("trainyard_forge_retries_total{forge=\"github\",reason=\"5xx\"}"));
    assertEquals(
        1, metrics.counter("trainyard_forge_calls_total{forge=\"github\",result=\"unavailable\"}"));
    assertEquals(
        1, metrics.counter("trainyard_forge_calls_total{forge=\"github\",result=\"gated\"}"));
  }

  @Test
  @DisplayName(
      "a user error posts failure and a platform error posts error, naming node and exit code")
  void failureKinds() {
    Reconciler r = reconciler();
    PodSnapshot exit1 =
        new PodSnapshot(
            "p0",
            "kwok-cpu-1",
            "Failed",
            "",
            0,
            false,
            false,
            T0,
            List.of(),
            List.of(ContainerSnapshot.terminated("node", 1, "Error")),
            List.of());
    state(
        false,
        List.of(exit1),
        new ConditionSnapshot("Failed", true, "FailedJobs", "", T0.plusSeconds(20)));
    r.reconcile(KEY);
    assertEquals("failure", forge.accepted().get(0).state());
    assertTrue(
        forge.accepted().get(0).description().contains("exit"),
        forge.accepted().get(0).description());
    assertTrue(forge.accepted().get(0).description().contains("code 1"));
    assertTrue(forge.accepted().get(0).description().contains("kwok-cpu-1"));

    RunKey other = new RunKey("team-a", "other");
    PodSnapshot evicted =
        new PodSnapshot(
            "p0",
            "kwok-cpu-0",
            "Failed",
            "Evicted",
            0,
            false,
            false,
            T0,
            List.of(),
            List.of(),
            List.of());
    source.provenance.put(other, new RunProvenance(repo, SHA, "p", "dev", "other"));
    source.runs.put(
        other,
        new RunObservation(
            new JobSetSnapshot(
                "team-a",
                "other",
                T0,
                false,
                1,
                0,
                0,
                "",
                List.of(new ConditionSnapshot("Failed", true, "FailedJobs", "", T0))),
            List.of(evicted),
            Optional.empty(),
            T0));
    r.reconcile(other);
    assertEquals("error", forge.accepted().get(1).state());
    assertEquals("trainyard/dev/team-a/other", forge.accepted().get(1).context());
  }

  @Test
  @DisplayName("a gone JobSet and a repo on an unconfigured host post nothing")
  void goneAndNoForge() {
    Reconciler r = reconciler();
    assertEquals(Outcome.GONE, r.reconcile(KEY));
    repo = "https://bitbucket.org/acme/llm.git";
    queued();
    assertEquals(Outcome.NO_FORGE, r.reconcile(KEY));
    source.provenance.remove(KEY);
    assertEquals(
        Outcome.GONE, r.reconcile(KEY), "a JobSet seen without provenance is no run to post for");
    assertEquals(0, forge.requests());
  }

  @Test
  @DisplayName(
      "GitLab: a description change within the same state is not posted (GitLab refuses repeats)")
  void gitlabSameState() {
    repo = "git@gitlab.example:ml/llm.git";
    Reconciler r = reconciler();
    queued();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    state(
        false,
        List.of(
            ready("p0"),
            new PodSnapshot(
                "p1", "n1", "Pending", "", 0, false, false, null, List.of(), List.of(),
                List.of())));
    assertEquals(Outcome.SKIPPED, r.reconcile(KEY));
    running();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(Outcome.UNCHANGED, r.reconcile(KEY));
    succeeded();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(
        List.of("pending", "running", "success"),
        forge.accepted().stream().map(FakeForge.Accepted::state).toList());
    assertEquals(
        "running: 2 of 2 nodes ready, attempt 1 of 1", forge.accepted().get(1).description());
    assertEquals(List.of(), forge.rejected());
  }

  @Test
  @DisplayName(
      "after the non-terminal budget is spent, pending changes are held back but the final state is posted")
  void budget() {
    Reconciler r = reconciler();
    for (int i = 0; i < Reconciler.NON_TERMINAL_BUDGET; i++) {
      state(true, List.of());
      source.runs.put(KEY, withQueueMessage("message " + i));
      assertEquals(Outcome.POSTED, r.reconcile(KEY));
    }
    source.runs.put(KEY, withQueueMessage("one more"));
    assertEquals(Outcome.THROTTLED, r.reconcile(KEY));
    succeeded();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(Reconciler.NON_TERMINAL_BUDGET + 1, forge.accepted().size());
    assertEquals("success", forge.accepted().get(forge.accepted().size() - 1).state());
  }

  RunObservation withQueueMessage(String message) {
    RunObservation o = source.runs.get(KEY);
    return new RunObservation(
        o.jobSet(),
        o.pods(),
        Optional.of(
            new WorkloadSnapshot(
                "",
                List.of(new ConditionSnapshot("QuotaReserved", false, "Pending", message, T0)))),
        o.now());
  }

  @Test
  @DisplayName("reset (a new leadership term) also forgets refusals and the post budget")
  void resetForgetsRefusalsAndBudget() {
    Reconciler r = reconciler();
    queued();
    forge.script(Fault.status(200), Fault.bareForbidden());
    try (LogLines log = new LogLines(Reconciler.class)) {
      assertEquals(Outcome.REFUSED, r.reconcile(KEY));
      assertEquals(1, log.lines.size(), log.lines.toString());
      assertTrue(
          log.lines
              .get(0)
              .startsWith(
                  "SEVERE run "
                      + KEY.cacheKey()
                      + ": github refused the commit status (PERMISSION): "),
          log.lines.toString());
      assertFalse(log.lines.get(0).contains(FakeForge.GITHUB_TOKEN), "no token in the log");
    }
    r.reset();
    assertEquals(Outcome.POSTED, r.reconcile(KEY), "tried again after reset");
    for (int i = 1; i < Reconciler.NON_TERMINAL_BUDGET; i++) {
      source.runs.put(KEY, withQueueMessage("m" + i));
      assertEquals(Outcome.POSTED, r.reconcile(KEY));
    }
    source.runs.put(KEY, withQueueMessage("over"));
    assertEquals(Outcome.THROTTLED, r.reconcile(KEY));
    r.reset();
    assertEquals(Outcome.POSTED, r.reconcile(KEY), "a new term has a new budget");
  }

  @Test
  @DisplayName("reset forgets the ledger: the next reconcile reads the forge again")
  void reset() {
    Reconciler r = reconciler();
    running();
    r.reconcile(KEY);
    int requests = forge.requests();
    r.reset();
    assertEquals(Outcome.UNCHANGED, r.reconcile(KEY));
    assertEquals(requests + 1, forge.requests());
  }

  @Test
  @DisplayName(
      "one run name in two namespaces: two contexts trainyard/<cluster>/<namespace>/<run>, neither overwrites the other")
  void sameRunNameTwoNamespaces() {
    Reconciler r = reconciler();
    queued();
    RunKey elsewhere = new RunKey("team-b", KEY.name());
    RunObservation o = source.runs.get(KEY);
    source.provenance.put(elsewhere, source.provenance.get(KEY));
    source.runs.put(
        elsewhere,
        new RunObservation(
            new JobSetSnapshot(
                "team-b",
                KEY.name(),
                T0,
                false,
                2,
                0,
                0,
                "team-b-lq",
                List.of(
                    new ConditionSnapshot(
                        "Completed", true, "AllJobsCompleted", "", T0.plusSeconds(90)))),
            List.of(ready("p0"), ready("p1")),
            o.workload(),
            o.now()));
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(Outcome.POSTED, r.reconcile(elsewhere));
    assertEquals(
        Outcome.UNCHANGED,
        r.reconcile(KEY),
        "the other namespace's final status is not this run's");
    assertEquals(
        List.of(
            "trainyard/dev/team-a/llama-ft-7f3a9c pending",
            "trainyard/dev/team-b/llama-ft-7f3a9c success"),
        forge.accepted().stream().map(a -> a.context() + " " + a.state()).toList());
  }

  @Test
  @DisplayName(
      "a Failed JobSet nothing explains yet is not posted (requeued); the child Job's Failed message then posts the user error once, final")
  void unexplainedFailureWaitsForTheJob() {
    Reconciler r = reconciler();
    state(
        false,
        List.of(),
        new ConditionSnapshot(
            "Failed", true, "FailJobSetFailurePolicyAction", "", T0.plusSeconds(29)));
    assertEquals(Outcome.RETRY, r.reconcile(KEY));
    assertEquals(0, forge.requests());
    RunObservation o = source.runs.get(KEY);
    source.runs.put(
        KEY,
        o.withJobs(
            List.of(
                new JobSnapshot(
                    "llama-ft-7f3a9c-node-0",
                    0,
                    List.of(
                        new ConditionSnapshot(
                            "Failed", true, "FailedIndexes", "Job has failed indexes", T0)),
                    "1"))));
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    running();
    assertEquals(Outcome.FINAL, r.reconcile(KEY), "a terminal status posted is never changed");
    assertEquals(
        List.of(
            "failure failed (user error): rank 1 of node-0 exited non-zero (pod gone, exit code unknown),"
                + " attempt 1 of 1"),
        posted());
  }

  @Nested
  @DisplayName("a JobSet deleted before it finished")
  class Deleted {
    @Test
    @DisplayName(
        "GitHub: the pending status is closed with error 'deleted before it finished (last: …)', then the run is forgotten")
    void github() {
      Reconciler r = reconciler();
      running();
      assertEquals(Outcome.POSTED, r.reconcile(KEY));
      source.delete(KEY);
      assertEquals(Outcome.POSTED, r.reconcile(KEY));
      assertEquals(
          List.of(
              "pending running: 2 of 2 nodes ready, attempt 1 of 1",
              "error deleted before it finished (last: running: 2 of 2 nodes ready, attempt 1 of 1)"),
          posted());
      assertEquals(List.of(KEY), source.forgotten);
      assertEquals(Outcome.GONE, r.reconcile(KEY), "forgotten: nothing more to do");
      assertEquals(2, forge.accepted().size());
    }

    @Test
    @DisplayName(
        "GitLab: the external job is canceled, so 'Pipelines must succeed' no longer waits on it")
    void gitlab() {
      repo = "git@gitlab.example:ml/llm.git";
      Reconciler r = reconciler();
      running();
      r.reconcile(KEY);
      source.delete(KEY);
      assertEquals(Outcome.POSTED, r.reconcile(KEY));
      assertEquals(
          List.of("running", "canceled"),
          forge.accepted().stream().map(FakeForge.Accepted::state).toList());
      assertEquals(List.of(), forge.rejected());
    }

    @Test
    @DisplayName(
        "a run that finished and was then deleted (a prune) posts nothing more; one deleted before its final post gets it")
    void finishedThenDeleted() {
      Reconciler r = reconciler();
      succeeded();
      r.reconcile(KEY);
      source.delete(KEY);
      assertEquals(Outcome.FINAL, r.reconcile(KEY));
      assertEquals(1, forge.accepted().size());

      RunKey other = new RunKey("team-a", "other");
      source.provenance.put(other, new RunProvenance(repo, SHA, "p", "dev", "other"));
      source.runs.put(
          other,
          new RunObservation(
              new JobSetSnapshot("team-a", "other", T0, false, 1, 0, 0, "", List.of()),
              List.of(ready("p0")),
              Optional.empty(),
              T0));
      r.reconcile(other);
      source.runs.put(
          other,
          new RunObservation(
              new JobSetSnapshot(
                  "team-a",
                  "other",
                  T0,
                  false,
                  1,
                  0,
                  0,
                  "",
                  List.of(
                      new ConditionSnapshot(
                          "Completed", true, "AllJobsCompleted", "", T0.plusSeconds(5)))),
              List.of(ready("p0")),
              Optional.empty(),
              T0));
      source.delete(other);
      assertEquals(Outcome.POSTED, r.reconcile(other));
      assertEquals("success succeeded in 5s, attempt 1 of 1", posted().get(2));
    }

    @Test
    @DisplayName(
        "nothing on the forge (never posted): nothing to close, nothing posted; no forge for the repo: forgotten too")
    void nothingShown() {
      Reconciler r = reconciler();
      running();
      source.delete(KEY);
      assertEquals(Outcome.GONE, r.reconcile(KEY));
      assertEquals(0, forge.accepted().size());
      assertEquals(List.of(KEY), source.forgotten);
      repo = "https://bitbucket.org/acme/llm.git";
      running();
      source.delete(KEY);
      assertEquals(Outcome.NO_FORGE, r.reconcile(KEY));
      assertEquals(List.of(KEY, KEY), source.forgotten);
    }

    @Test
    @DisplayName("a forge that is down: requeued and kept, the close is posted once it answers")
    void unavailable() {
      Reconciler r = reconciler();
      running();
      r.reconcile(KEY);
      source.delete(KEY);
      forge.script(Fault.status(502), Fault.status(502), Fault.status(502));
      assertEquals(Outcome.RETRY, r.reconcile(KEY));
      assertEquals(List.of(), source.forgotten);
      assertEquals(
          Outcome.RETRY, r.reconcile(KEY), "the forge's gate is closed: kept, not forgotten");
      assertEquals(List.of(), source.forgotten);
      time.sleep(Duration.ofSeconds(1));
      assertEquals(Outcome.POSTED, r.reconcile(KEY));
      assertEquals("error", forge.accepted().get(1).state());
      assertEquals(List.of(KEY), source.forgotten);
    }

    @Test
    @DisplayName(
        "re-created under its name after the close (GitOps re-applies it): the forge's terminal status is final")
    void recreated() {
      Reconciler r = reconciler();
      running();
      r.reconcile(KEY);
      source.delete(KEY);
      r.reconcile(KEY);
      queued();
      assertEquals(
          Outcome.FINAL,
          r.reconcile(KEY),
          "the ledger was forgotten: the forge is read and shows error");
      assertEquals(2, forge.accepted().size());
    }
  }

  @Test
  @DisplayName(
      "a wrong token is one log line for three state changes (each still counted); after the Secret is fixed and a status goes through, a new refusal is news again")
  void wrongTokenLoggedOnce() throws Exception {
    Path tokenFile = tmp.resolve("github-token");
    Files.writeString(tokenFile, "ghp_wrong\n");
    Reconciler r = reconciler(Token.fromFile(tokenFile));
    try (LogLines log = new LogLines(Reconciler.class)) {
      queued();
      assertEquals(Outcome.REFUSED, r.reconcile(KEY));
      running();
      assertEquals(Outcome.REFUSED, r.reconcile(KEY));
      succeeded();
      assertEquals(Outcome.REFUSED, r.reconcile(KEY));
      assertEquals(1, log.lines.size(), log.lines.toString());
      assertTrue(
          log.lines
              .get(0)
              .startsWith(
                  "SEVERE run "
                      + KEY.cacheKey()
                      + ": github refused the commit status"
                      + " (PERMISSION): GET /github/repos/acme/llm/commits/"
                      + SHA
                      + "/status: HTTP 401, the token is invalid"
                      + " or expired"),
          log.lines.get(0));
      assertTrue(
          log.lines.get(0).endsWith("(said once until this forge accepts a status again)"),
          log.lines.get(0));
      assertFalse(log.lines.get(0).contains("\n"), "one line");
      assertFalse(log.lines.get(0).contains("ghp_wrong"));
      assertEquals(
          3,
          metrics.counter("trainyard_forge_calls_total{forge=\"github\",result=\"permission\"}"));

      Files.writeString(tokenFile, FakeForge.GITHUB_TOKEN + "\n");
      time.sleep(Reconciler.REFUSED_RETRY);
      assertEquals(Outcome.POSTED, r.reconcile(KEY), "the fixed Secret is read at the next try");
      Files.writeString(tokenFile, "ghp_wrong_again\n");
      RunKey other = new RunKey("team-a", "other");
      source.provenance.put(other, new RunProvenance(repo, SHA, "p", "dev", "other"));
      source.runs.put(other, source.runs.get(KEY));
      assertEquals(Outcome.REFUSED, r.reconcile(other));
      assertEquals(2, log.lines.size(), "after a success the next refusal is logged: " + log.lines);
    }
  }

  @Test
  @DisplayName("403 refusals are logged once per project: another repo's refusal is news")
  void forbiddenOncePerProject() {
    Reconciler r = reconciler();
    forge.forbid("acme/llm");
    forge.forbid("acme/other");
    try (LogLines log = new LogLines(Reconciler.class)) {
      queued();
      assertEquals(Outcome.REFUSED, r.reconcile(KEY));
      running();
      assertEquals(Outcome.REFUSED, r.reconcile(KEY));
      RunKey other = new RunKey("team-a", "other");
      source.provenance.put(
          other, new RunProvenance("https://github.com/acme/other.git", SHA, "p", "dev", "other"));
      source.runs.put(other, source.runs.get(KEY));
      assertEquals(Outcome.REFUSED, r.reconcile(other));
      assertEquals(2, log.lines.size(), log.lines.toString());
      assertTrue(log.lines.get(1).contains("the token lacks permission"), log.lines.get(1));
    }
  }

  @Test
  @DisplayName(
      "a 429 with Retry-After 900: RETRY after 900 s, one log line; the next reconcile is held by the gate (no request, no line)")
  void rateLimited() {
    Reconciler r = reconciler();
    running();
    forge.script(Fault.status(200), Fault.retryAfter(900));
    try (LogLines log = new LogLines(Reconciler.class)) {
      assertEquals(Outcome.RETRY, r.reconcile(KEY));
      assertEquals(Optional.of(Duration.ofSeconds(900)), r.retryAfter(KEY));
      int requests = forge.requests();
      time.sleep(Duration.ofSeconds(100));
      assertEquals(Outcome.RETRY, r.reconcile(KEY));
      assertEquals(Optional.of(Duration.ofSeconds(800)), r.retryAfter(KEY));
      assertEquals(requests, forge.requests());
      assertEquals(1, log.lines.size(), log.lines.toString());
      assertTrue(
          log.lines
              .get(0)
              .startsWith(
                  "WARNING run " + KEY.cacheKey() + ": github rate limited, will retry: POST"),
          log.lines.get(0));
    }
    assertEquals(
        1,
        metrics.counter("trainyard_forge_calls_total{forge=\"github\",result=\"rate_limited\"}"));
    time.sleep(Duration.ofSeconds(800));
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
  }

  @Test
  @DisplayName(
      "a run whose JobSet is gone leaves the ledger; should it come back, the forge is read once again first")
  void goneLeavesTheLedger() {
    Reconciler r = reconciler();
    running();
    assertEquals(Outcome.POSTED, r.reconcile(KEY));
    assertEquals(1, ledger.size());
    RunObservation o = source.runs.remove(KEY);
    assertEquals(Outcome.GONE, r.reconcile(KEY));
    assertEquals(0, ledger.size());
    assertEquals(Optional.empty(), r.retryAfter(KEY));
    assertEquals(Outcome.GONE, r.reconcile(KEY), "gone twice is fine");
    source.runs.put(KEY, o);
    int requests = forge.requests();
    assertEquals(Outcome.UNCHANGED, r.reconcile(KEY));
    assertEquals(requests + 1, forge.requests(), "one read, no post");
    assertEquals(1, forge.accepted().size());
  }

  @Test
  @DisplayName(
      "a GitHub source URL with more than owner/repo is one logged refusal naming the path, no request, no exception")
  void notOwnerRepo() {
    repo = "https://github.com/acme/llm/tree/main";
    Reconciler r = reconciler();
    queued();
    try (LogLines log = new LogLines(Reconciler.class)) {
      assertEquals(Outcome.NO_FORGE, r.reconcile(KEY));
      assertEquals(Outcome.NO_FORGE, r.reconcile(KEY));
      assertEquals(
          List.of(
              "WARNING run "
                  + KEY.cacheKey()
                  + ": source repo https://github.com/acme/llm/tree/main is"
                  + " under github.com (github), whose repos are owner/repo, but its path is acme/llm/tree/main (the"
                  + " JobSet's trainyard.dev/source-repo annotation); its commit status is not posted (logged once per"
                  + " repo)"),
          log.lines);
    }
    assertEquals(0, forge.requests());
  }

  @Test
  @DisplayName(
      "the run's observation carries the progress its pods pushed; a run that is gone drops it")
  void pushedProgress() {
    Reconciler r = reconciler();
    running();
    assertEquals(Optional.empty(), r.observe(KEY).orElseThrow().progress());
    Progress p =
        new Progress(
            370L, 1000L, null, Duration.ofSeconds(105), List.of(), T0, Progress.Source.PUSH);
    pushed.accept(KEY, p);
    assertEquals(Optional.of(p), r.observe(KEY).orElseThrow().progress());
    assertEquals(37, r.observe(KEY).orElseThrow().progress().orElseThrow().percent());
    assertEquals(Optional.empty(), r.observe(new RunKey("team-a", "other")));
    source.runs.remove(KEY);
    source.provenance.remove(KEY);
    assertEquals(Outcome.GONE, r.reconcile(KEY));
    assertEquals(Optional.empty(), pushed.latest(KEY));
  }

  @Test
  @DisplayName("a run whose JobSet lost its provenance drops its pushed progress too")
  void pushedProgressWithoutProvenance() {
    Reconciler r = reconciler();
    running();
    pushed.accept(KEY, new Progress(null, null, 5, null, List.of(), T0, Progress.Source.PUSH));
    source.provenance.remove(KEY);
    assertEquals(Outcome.GONE, r.reconcile(KEY));
    assertEquals(Optional.empty(), pushed.latest(KEY));
  }
}
