package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.controller.ObservedRun;
import dev.trainyard.controller.RunKey;
import dev.trainyard.controller.RunProvenance;
import dev.trainyard.controller.state.Cause;
import dev.trainyard.controller.state.JobSetSnapshot;
import dev.trainyard.controller.state.Phase;
import dev.trainyard.controller.state.Progress;
import dev.trainyard.controller.state.RunObservation;
import dev.trainyard.controller.state.RunState;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusTableTest {

  static final Instant T0 = Instant.parse("2026-12-01T08:00:00Z");

  static StatusTable.Row row(String run, String queue, RunState state) {
    ObservedRun r =
        new ObservedRun(
            new RunKey("team-a", run + "-js"),
            new RunProvenance(
                "https://github.com/acme/llm.git",
                "6f1c2d3e4a5b6c7d8e9f00112233445566778899",
                "jobs/train.yaml",
                "dev",
                run),
            new RunObservation(
                new JobSetSnapshot("team-a", run + "-js", T0, false, 2, 0, 3, queue, List.of()),
                List.of(),
                Optional.empty(),
                T0));
    return new StatusTable.Row(r, state);
  }

  /** {@code r} with progress step 370 of 1000, ETA 1h 45m, loss 0.53 and a learning rate. */
  static StatusTable.Row withProgress(StatusTable.Row r) {
    ObservedRun o = r.run();
    return new StatusTable.Row(
        new ObservedRun(
            o.key(),
            o.provenance(),
            o.observation()
                .withProgress(
                    Optional.of(
                        new Progress(
                            370L,
                            1000L,
                            null,
                            Duration.ofMinutes(105),
                            List.of(
                                new Progress.Metric("loss", "0.53"),
                                new Progress.Metric("learning_rate", "3e-05")),
                            T0.plusSeconds(700),
                            Progress.Source.LOG)))),
        r.state());
  }

  @Test
  @DisplayName(
      "JSON carries the progress (null without); status RUN prints the last metrics under the table")
  void progress() throws Exception {
    JsonNode a =
        new ObjectMapper()
            .readTree(
                StatusTable.json(
                    List.of(
                        withProgress(row("llama-ft", "gpu", RUNNING)), row("bert", "", FAILED))));
    JsonNode p = a.get(0).get("progress");
    assertEquals(370, p.get("step").asInt());
    assertEquals(1000, p.get("totalSteps").asInt());
    assertEquals(37, p.get("percent").asInt());
    assertEquals(6300, p.get("etaSeconds").asInt());
    assertEquals("0.53", p.get("metrics").get("loss").asText());
    assertEquals("2026-12-01T08:11:40Z", p.get("updatedAt").asText());
    assertEquals("log", p.get("source").asText());
    assertTrue(a.get(1).get("progress").isNull());
    assertEquals(
        "\nmetrics at step 370/1000 (2026-12-01T08:11:40Z): loss 0.53, learning_rate 3e-05\n",
        StatusTable.metrics(withProgress(row("llama-ft", "gpu", RUNNING))));
    assertEquals("", StatusTable.metrics(row("bert", "", FAILED)));
  }

  static final RunState RUNNING =
      new RunState(
          Phase.RUNNING,
          Cause.NONE,
          "running: 2 of 2 nodes ready, attempt 1 of 4",
          "",
          null,
          2,
          2,
          1,
          4,
          false,
          null);
  static final RunState FAILED =
      new RunState(
          Phase.FAILED,
          Cause.USER,
          "failed (user error): exit 1",
          "kwok-0",
          1,
          0,
          2,
          4,
          4,
          false,
          Duration.ofSeconds(75));

  @Test
  @DisplayName(
      "the table aligns RUN, STATE, QUEUE, NODES, ATTEMPT, PROGRESS, ETA, AGE, COMMIT (7 chars) and DESCRIPTION")
  void table() {
    String t =
        StatusTable.table(
            List.of(withProgress(row("llama-ft", "gpu", RUNNING)), row("bert", "", FAILED)),
            T0.plus(Duration.ofMinutes(12)).plusSeconds(5));
    assertEquals(
        String.join(
            "\n",
            "RUN       STATE          QUEUE  NODES  ATTEMPT  PROGRESS         ETA     AGE    COMMIT   DESCRIPTION",
            "llama-ft  running        gpu    2/2    1/4      370/1000 (37 %)  1h 45m  12m5s  6f1c2d3  running: 2 of 2 nodes ready, attempt 1 of 4",
            "bert      failed (user)  -      0/2    4/4      -                -       12m5s  6f1c2d3  failed (user error): exit 1",
            ""),
        t);
  }

  @Test
  @DisplayName(
      "a JobSet without a creation time shows AGE -; a commit of 7 characters is shown whole; no line ends in spaces")
  void ageAndShortCommit() {
    ObservedRun base = row("x", "q", RUNNING).run();
    ObservedRun r =
        new ObservedRun(
            base.key(),
            new RunProvenance(
                "https://github.com/acme/llm.git", "abc1234", "jobs/train.yaml", "dev", "x"),
            new RunObservation(
                new JobSetSnapshot("team-a", "x-js", null, false, 2, 0, 3, "q", List.of()),
                List.of(),
                Optional.empty(),
                T0));
    String t = StatusTable.table(List.of(new StatusTable.Row(r, RUNNING)), T0);
    assertEquals(
        "x    running  q      2/2    1/4      -         -    -    abc1234  running: 2 of 2 nodes ready, attempt 1 of 4",
        t.lines().toList().get(1));
    assertTrue(t.lines().noneMatch(l -> l.endsWith(" ")), t);
  }

  @Test
  @DisplayName(
      "metrics under the table: none when the progress has no metrics; without a step the position is left out")
  void metricsEdges() {
    StatusTable.Row r = row("x", "q", RUNNING);
    Progress noMetrics = new Progress(5L, 10L, null, null, List.of(), T0, Progress.Source.LOG);
    Progress noStep =
        new Progress(
            null,
            null,
            null,
            null,
            List.of(new Progress.Metric("loss", "0.5")),
            T0,
            Progress.Source.LOG);
    assertEquals("", StatusTable.metrics(with(r, noMetrics)));
    assertEquals(
        "\nmetrics (2026-12-01T08:00:00Z): loss 0.5\n", StatusTable.metrics(with(r, noStep)));
  }

  private static StatusTable.Row with(StatusTable.Row r, Progress p) {
    ObservedRun o = r.run();
    return new StatusTable.Row(
        new ObservedRun(o.key(), o.provenance(), o.observation().withProgress(Optional.of(p))),
        r.state());
  }

  @Test
  @DisplayName("with -A the table starts with a NAMESPACE column")
  void namespaceColumn() {
    String t =
        StatusTable.table(
            List.of(row("llama-ft", "gpu", RUNNING)),
            T0.plus(Duration.ofMinutes(12)).plusSeconds(5),
            true);
    assertEquals(
        String.join(
            "\n",
            "NAMESPACE  RUN       STATE    QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE    COMMIT   DESCRIPTION",
            "team-a     llama-ft  running  gpu    2/2    1/4      -         -    12m5s  6f1c2d3  running: 2 of 2 nodes ready, attempt 1 of 4",
            ""),
        t);
  }

  @Test
  @DisplayName(
      "state words: phase, '(stalled)' for a stalled run, '(platform)'/'(user)' for a failure")
  void words() {
    assertEquals(
        "admitted (stalled)",
        StatusTable.stateWord(
            new RunState(Phase.ADMITTED, Cause.NONE, "", "", null, 0, 2, 1, 1, true, null)));
    assertEquals(
        "failed (platform)",
        StatusTable.stateWord(
            new RunState(Phase.FAILED, Cause.PLATFORM, "", "", null, 0, 2, 1, 1, false, null)));
    assertEquals(
        "succeeded",
        StatusTable.stateWord(
            new RunState(
                Phase.SUCCEEDED, Cause.NONE, "", "", null, 0, 2, 1, 1, false, Duration.ZERO)));
    assertEquals(
        "starting",
        StatusTable.stateWord(
            new RunState(Phase.STARTING, Cause.PLATFORM, "", "", null, 0, 2, 1, 1, false, null)));
  }

  @Test
  @DisplayName(
      "JSON: one object per run with sorted keys, nodes and attempt as objects, exit code and duration")
  void json() throws Exception {
    JsonNode a = new ObjectMapper().readTree(StatusTable.json(List.of(row("bert", "", FAILED))));
    assertEquals(1, a.size());
    JsonNode r = a.get(0);
    assertEquals("bert", r.get("run").asText());
    assertEquals("failed", r.get("state").asText());
    assertEquals("user", r.get("cause").asText());
    assertEquals(1, r.get("exitCode").asInt());
    assertEquals(75, r.get("durationSeconds").asInt());
    assertEquals(2, r.get("nodes").get("total").asInt());
    assertEquals(4, r.get("attempt").get("max").asInt());
    assertEquals("kwok-0", r.get("node").asText());
    assertEquals("6f1c2d3e4a5b6c7d8e9f00112233445566778899", r.get("sourceCommit").asText());
    List<String> keys = new ArrayList<>();
    r.fieldNames().forEachRemaining(keys::add);
    assertEquals(keys.stream().sorted().toList(), keys);
    assertTrue(
        StatusTable.json(List.of(row("x", "", RUNNING))).contains("\"durationSeconds\" : null"));
  }

  @Test
  @DisplayName(
      "status and logs: a bad duration is a usage error (2), an unreachable cluster an environment error (3)")
  void exitCodes(@TempDir Path dir) throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
                users: [{name: u, user: {token: t}}]
                contexts: [{name: x, context: {cluster: c, user: u, namespace: team-a}}]
                current-context: x
                """);
    assertEquals(2, run("status", "--stall-after", "soon").code);
    assertEquals(2, run("logs", "r", "--timeout", "forever").code);
    assertEquals(2, run("logs", "r", "--all", "--node", "1").code);
    Result status = run("status", "--kubeconfig", kubeconfig.toString());
    assertEquals(3, status.code, status.err);
    assertTrue(status.err.contains("hint: check --kubeconfig/--context"), status.err);
    assertEquals(3, run("logs", "r", "--kubeconfig", kubeconfig.toString()).code);
    assertEquals(3, run("status", "--kubeconfig", dir.resolve("missing").toString()).code);
  }

  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(code, out.toString(), err.toString());
  }
}
