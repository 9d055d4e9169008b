package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.cli.Main;
import dev.trainyard.controller.forge.FakeForge;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code trainyard status} against the real cluster, through the harness's kubeconfig: the table,
 * JSON, watch mode ending when the run ends, and agreement with the commit status the controller
 * posted; and {@code trainyard logs} on log content kwok serves ({@link KwokLogs}).
 */
@ExtendWith(KubeClusterExtension.class)
class StatusCommandIT {

  record Result(int code, String out, String err) {}

  static Result trainyard(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(code, out.toString(), err.toString());
  }

  @Test
  @DisplayName(
      "status -w RUN redraws until the run ends; its last description is the commit status the controller posted")
  void watchEndsWithTheRunAndAgreesWithTheForge(KubeCluster cluster) throws Exception {
    String ns = cluster.newNamespace();
    String tag = "cli";
    String sha = StatusRuns.sha("cli-run");
    Manifests manifests = new Manifests(cluster.client());
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "cli-run", ControllerProcess.host("github", tag), sha, "slow", "15s", null),
            ns));
    try (FakeForge forge = FakeForge.start();
        ControllerProcess controller =
            ControllerProcess.start(cluster, forge, tag, ns, "cli-0", Duration.ofMinutes(10))) {
      String kubeconfig = cluster.kubeconfig().toString();
      Result watch =
          trainyard(
              "status",
              "cli-run",
              "-w",
              "--interval",
              "500ms",
              "--timeout",
              "3m",
              "-n",
              ns,
              "--kubeconfig",
              kubeconfig);
      System.out.println("[StatusCommandIT] watch output:\n" + watch.out);
      assertEquals(0, watch.code, watch.err);
      String[] tables = watch.out.split("\n\n");
      assertTrue(tables.length >= 2, "redrawn at least once: " + watch.out);
      assertTrue(tables.length <= 6, "redrawn on change, not on every poll: " + watch.out);
      String lastTable = tables[tables.length - 1];
      assertTrue(lastTable.startsWith("RUN "), lastTable);
      assertTrue(lastTable.contains("cli-run  succeeded"), lastTable);

      Result json = trainyard("status", "-n", ns, "--kubeconfig", kubeconfig, "--output", "json");
      assertEquals(0, json.code, json.err);
      JsonNode runs = new ObjectMapper().readTree(json.out);
      assertEquals(1, runs.size(), json.out);
      assertEquals("succeeded", runs.get(0).get("state").asText());
      assertEquals(sha, runs.get(0).get("sourceCommit").asText());
      String description = runs.get(0).get("description").asText();
      Eventually.await(
          "the controller posted the success",
          Duration.ofSeconds(60),
          () -> StatusRuns.posts(forge, sha).stream().anyMatch(StatusRuns::terminal),
          controller::log);
      List<FakeForge.Accepted> posts = StatusRuns.posts(forge, sha);
      assertEquals(
          description,
          posts.get(posts.size() - 1).description(),
          "terminal and PR check disagree: " + StatusRuns.lines(posts));
    }
  }

  @Test
  @DisplayName(
      "logs RUN prints node 0's lines prefixed [node-0]; --node 1 and --all pick pods; -f streams new lines and ends when the run ends")
  void logsOfARun(KubeCluster cluster) throws Exception {
    assumeTrue(
        cluster.runs(Component.KWOK) && KwokLogs.served(cluster.client()),
        "NOT RUN: no container logs to read:"
            + " kwok's Logs CRD is not served (an existing cluster, or sigs.k8s.io/kwok not in the Go module cache)");
    String ns = cluster.newNamespace();
    String kubeconfig = cluster.kubeconfig().toString();
    Manifests manifests = new Manifests(cluster.client());
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "logs-run", "gh-logs.test", StatusRuns.sha("logs-run"), "slow", "30s", null),
            ns));
    Eventually.await(
        "2 pods of logs-run running",
        Duration.ofSeconds(90),
        () ->
            cluster
                    .client()
                    .pods()
                    .inNamespace(ns)
                    .withLabel("jobset.sigs.k8s.io/jobset-name", "logs-run")
                    .list()
                    .getItems()
                    .stream()
                    .filter(p -> "Running".equals(p.getStatus().getPhase()))
                    .count()
                == 2);
    Path dir =
        LocalCluster.mkdirs(
            Path.of(System.getProperty("trainyard.work.dir", "target/cluster"))
                .toAbsolutePath()
                .resolve("kwok-logs")
                .resolve(ns));
    List<Path> files = new ArrayList<>();
    for (Pod pod :
        cluster
            .client()
            .pods()
            .inNamespace(ns)
            .withLabel("jobset.sigs.k8s.io/jobset-name", "logs-run")
            .list()
            .getItems()) {
      String rank =
          pod.getMetadata().getAnnotations().get("batch.kubernetes.io/job-completion-index");
      Path file = dir.resolve(pod.getMetadata().getName() + ".log");
      KwokLogs.append(
          file,
          Instant.now(),
          "rank " + rank + " step 1 loss 2.50",
          "rank " + rank + " step 1 done");
      files.add(file);
      KwokLogs.serve(
          cluster.client(),
          ns,
          pod.getMetadata().getName(),
          pod.getSpec().getContainers().get(0).getName(),
          file);
    }
    Eventually.await(
        "kwok serves node 0's log",
        Duration.ofSeconds(30),
        () ->
            trainyard("logs", "logs-run", "-n", ns, "--kubeconfig", kubeconfig)
                .out
                .contains("step 1 done"));
    Result rankZero = trainyard("logs", "logs-run", "-n", ns, "--kubeconfig", kubeconfig);
    assertEquals(0, rankZero.code, rankZero.err);
    assertEquals("[node-0] rank 0 step 1 loss 2.50\n[node-0] rank 0 step 1 done\n", rankZero.out);
    Result nodeOne =
        trainyard("logs", "logs-run", "--node", "1", "-n", ns, "--kubeconfig", kubeconfig);
    assertEquals("[node-1] rank 1 step 1 loss 2.50\n[node-1] rank 1 step 1 done\n", nodeOne.out);
    Result all = trainyard("logs", "logs-run", "--all", "-n", ns, "--kubeconfig", kubeconfig);
    assertEquals(
        List.of(
            "[node-0] rank 0 step 1 done",
            "[node-0] rank 0 step 1 loss 2.50",
            "[node-1] rank 1 step 1 done",
            "[node-1] rank 1 step 1 loss 2.50"),
        all.out.lines().sorted().toList());

    CompletableFuture<Result> follow =
        CompletableFuture.supplyAsync(
            () ->
                trainyard(
                    "logs",
                    "logs-run",
                    "--all",
                    "-f",
                    "--timeout",
                    "3m",
                    "-n",
                    ns,
                    "--kubeconfig",
                    kubeconfig));
    Thread.sleep(2_000);
    assertFalse(
        follow.isDone(),
        "-f returned while the run was still running: "
            + (follow.isDone() ? follow.get().out : ""));
    for (Path file : files) {
      KwokLogs.append(file, Instant.now(), "streamed step 2");
    }
    Result followed = follow.get(120, TimeUnit.SECONDS);
    System.out.println("[StatusCommandIT] logs -f output:\n" + followed.out);
    assertEquals(0, followed.code, followed.err);
    assertEquals(
        2,
        followed.out.lines().filter(l -> l.matches("\\[node-[01]] streamed step 2")).count(),
        followed.out);
    assertTrue(followed.out.contains("[node-0] rank 0 step 1 loss 2.50"), followed.out);
    Result status =
        trainyard("status", "logs-run", "-n", ns, "--kubeconfig", kubeconfig, "--output", "json");
    assertEquals(
        "succeeded",
        new ObjectMapper().readTree(status.out).get(0).get("state").asText(),
        "-f ended because the run ended: " + status.out);
  }

  @Test
  @DisplayName(
      "status of a run that does not exist exits 1 with a hint; the table of an empty namespace is just its header")
  void missingRun(KubeCluster cluster) {
    String ns = cluster.newNamespace();
    Result missing =
        trainyard("status", "nope", "-n", ns, "--kubeconfig", cluster.kubeconfig().toString());
    assertEquals(1, missing.code);
    assertTrue(
        missing.err.contains("run \"nope\" not found in namespace \"" + ns + "\""), missing.err);
    assertTrue(
        missing.err.contains("hint: list the runs with `trainyard status -n " + ns + "`"),
        missing.err);
    Result empty = trainyard("status", "-n", ns, "--kubeconfig", cluster.kubeconfig().toString());
    assertEquals(0, empty.code, empty.err);
    assertEquals(
        "RUN  STATE  QUEUE  NODES  ATTEMPT  PROGRESS  ETA  AGE  COMMIT  DESCRIPTION\n", empty.out);
    assertTrue(
        empty.err.contains("no runs in namespace \"" + ns + "\" (or it does not exist)"),
        empty.err);
    Result logs =
        trainyard("logs", "nope", "-n", ns, "--kubeconfig", cluster.kubeconfig().toString());
    assertEquals(1, logs.code);
    Result waited =
        trainyard(
            "status",
            "nope",
            "-w",
            "--interval",
            "200ms",
            "--appear-timeout",
            "2s",
            "-n",
            ns,
            "--kubeconfig",
            cluster.kubeconfig().toString());
    assertEquals(1, waited.code, waited.err);
    assertTrue(
        waited.err.contains(
            "run \"nope\" is not in namespace \""
                + ns
                + "\" yet; waiting up to 2s for it to appear"),
        waited.err);
    assertTrue(
        waited.err.contains(
            "run \"nope\" not found in namespace \"" + ns + "\" within --appear-timeout 2s"),
        waited.err);
    assertEquals(
        1, waited.err.lines().filter(l -> l.contains("waiting up to")).count(), waited.err);
  }

  @Test
  @DisplayName(
      "status RUN -w started before the run exists (just submitted) waits for it to appear, then follows it to its end")
  void watchWaitsForASubmittedRun(KubeCluster cluster) throws Exception {
    String ns = cluster.newNamespace();
    String kubeconfig = cluster.kubeconfig().toString();
    CompletableFuture<Result> watch =
        CompletableFuture.supplyAsync(
            () ->
                trainyard(
                    "status",
                    "late-run",
                    "-w",
                    "--interval",
                    "300ms",
                    "--timeout",
                    "3m",
                    "-n",
                    ns,
                    "--kubeconfig",
                    kubeconfig));
    Thread.sleep(3_000);
    assertFalse(watch.isDone(), "-w returned before the run existed: " + watch.getNow(null));
    Manifests manifests = new Manifests(cluster.client());
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "late-run", "gh-late.test", StatusRuns.sha("late-run"), "slow", "5s", null),
            ns));
    Result watched = watch.get(200, TimeUnit.SECONDS);
    assertEquals(0, watched.code, watched.out + watched.err);
    assertTrue(watched.err.contains("run \"late-run\" is not in namespace"), watched.err);
    assertTrue(watched.out.contains("late-run"), watched.out);
    assertTrue(watched.out.contains("succeeded"), watched.out);
  }

  @Test
  @DisplayName(
      "a run whose pods cannot be scheduled: status gives the scheduler's reason, logs says node 0 has not started (exit 1), logs -f waits one line then ends at --timeout; status -w exits 3 at --timeout and 1 for a failed run")
  void pendingRun(KubeCluster cluster) throws Exception {
    String ns = cluster.newNamespace();
    String kubeconfig = cluster.kubeconfig().toString();
    Manifests manifests = new Manifests(cluster.client());
    var js =
        StatusRuns.run(
            "stuck-run", "gh-stuck.test", StatusRuns.sha("stuck-run"), "slow", null, null);
    for (Map<String, Object> rjob : JobSets.replicatedJobs(js)) {
      @SuppressWarnings("unchecked")
      Map<String, Object> podSpec =
          (Map<String, Object>)
              ((Map<String, Object>)
                      ((Map<String, Object>)
                              ((Map<String, Object>) rjob.get("template")).get("spec"))
                          .get("template"))
                  .get("spec");
      podSpec.put("nodeSelector", Map.of("trainyard.dev/no-such-node", "x"));
    }
    manifests.apply(manifests.placed(js, ns));
    Eventually.await(
        "the scheduler says why stuck-run waits",
        Duration.ofSeconds(90),
        () -> {
          Result r =
              trainyard(
                  "status", "stuck-run", "-n", ns, "--kubeconfig", kubeconfig, "--output", "json");
          return r.code == 0 && r.out.contains("node(s) didn't match");
        });
    Result status =
        trainyard("status", "stuck-run", "-n", ns, "--kubeconfig", kubeconfig, "--output", "json");
    String description = new ObjectMapper().readTree(status.out).get(0).get("description").asText();
    assertTrue(
        description.startsWith("starting: waiting for nodes: node(s) didn't match"), description);
    assertFalse(
        description.matches(".*\\d+/\\d+ nodes.*|.*,,.*"),
        "no node counts from the scheduler, no ',,': " + description);
    Result logs = trainyard("logs", "stuck-run", "-n", ns, "--kubeconfig", kubeconfig);
    assertEquals(1, logs.code, logs.err);
    assertEquals("", logs.out);
    assertTrue(logs.err.startsWith("trainyard logs: node-0 has not started (Pending)\n"), logs.err);
    long start = System.nanoTime();
    Result follow =
        trainyard(
            "logs", "stuck-run", "-f", "--timeout", "4s", "-n", ns, "--kubeconfig", kubeconfig);
    double took = (System.nanoTime() - start) / 1e9;
    assertEquals(1, follow.code, follow.err);
    assertTrue(took >= 3.5, "waited for the start, up to --timeout: " + took + " s");
    assertEquals(
        1,
        follow
            .err
            .lines()
            .filter(l -> l.startsWith("trainyard logs: waiting for node-0 to start (Pending)"))
            .count(),
        follow.err);
    assertTrue(
        follow.err.contains("node-0 has not started (Pending) after --timeout 4s"), follow.err);
    assertEquals(
        2,
        trainyard("logs", "stuck-run", "--node", "-1", "-n", ns, "--kubeconfig", kubeconfig).code);
    Result five =
        trainyard("logs", "stuck-run", "--node", "5", "-n", ns, "--kubeconfig", kubeconfig);
    assertEquals(1, five.code, five.err);
    assertTrue(
        five.err.contains("run \"stuck-run\" has no node 5; the run has nodes 0–1"), five.err);
    Result timedOut =
        trainyard(
            "status",
            "stuck-run",
            "-w",
            "--timeout",
            "2s",
            "--interval",
            "500ms",
            "-n",
            ns,
            "--kubeconfig",
            kubeconfig);
    assertEquals(3, timedOut.code, "a watch that times out is not a success: " + timedOut.err);
    assertTrue(
        timedOut.err.contains("--timeout 2s passed before run \"stuck-run\" ended"), timedOut.err);
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "fails-run", "gh-stuck.test", StatusRuns.sha("fails-run"), "fail", null, null),
            ns));
    Result failed =
        trainyard(
            "status",
            "fails-run",
            "-w",
            "--timeout",
            "2m",
            "--interval",
            "500ms",
            "-n",
            ns,
            "--kubeconfig",
            kubeconfig);
    assertEquals(1, failed.code, "a watched run that failed exits 1: " + failed.out);
    assertTrue(failed.out.contains("failed (user error)"), failed.out);
    String other = cluster.newNamespace();
    manifests.apply(
        manifests.placed(
            StatusRuns.run(
                "fails-run", "gh-stuck.test", StatusRuns.sha("fails-run"), "fail", null, null),
            other));
    Result both = trainyard("status", "fails-run", "-A", "--kubeconfig", kubeconfig);
    assertEquals(1, both.code, both.out);
    assertTrue(both.err.contains("run \"fails-run\" is in 2 namespaces: "), both.err);
    Result all = trainyard("status", "-A", "--kubeconfig", kubeconfig);
    assertTrue(all.out.startsWith("NAMESPACE "), all.out);
  }
}
