package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.trainyard.cli.Main;
import dev.trainyard.controller.forge.FakeForge;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code trainyard status} against the real cluster, through the harness's kubeconfig: the table, JSON,
 * watch mode ending when the run ends, and agreement with the commit status the controller posted.
 */
@ExtendWith(KubeClusterExtension.class)
class StatusCommandIT {

    record Result(int code, String out, String err) {
    }

    static Result trainyard(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    @DisplayName("status -w RUN redraws until the run ends; its last description is the commit status the controller posted")
    void watchEndsWithTheRunAndAgreesWithTheForge(KubeCluster cluster) throws Exception {
        String ns = cluster.newNamespace();
        String tag = "cli";
        String sha = StatusRuns.sha("cli-run");
        Manifests manifests = new Manifests(cluster.client());
        manifests.apply(manifests.placed(StatusRuns.run("cli-run", ControllerProcess.host("github", tag), sha, "slow",
                "6s", null), ns));
        try (FakeForge forge = FakeForge.start();
                ControllerProcess controller = ControllerProcess.start(cluster, forge, tag, ns, "cli-0",
                        Duration.ofMinutes(10))) {
            String kubeconfig = cluster.kubeconfig().toString();
            Result watch = trainyard("status", "cli-run", "-w", "--interval", "500ms", "--timeout", "3m", "-n", ns,
                    "--kubeconfig", kubeconfig);
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
            Eventually.await("the controller posted the success", Duration.ofSeconds(60),
                    () -> StatusRuns.posts(forge, sha).stream().anyMatch(StatusRuns::terminal), controller::log);
            List<FakeForge.Accepted> posts = StatusRuns.posts(forge, sha);
            assertEquals(description, posts.get(posts.size() - 1).description(),
                    "terminal and PR check disagree: " + StatusRuns.lines(posts));
        }
    }

    @Test
    @DisplayName("status of a run that does not exist exits 1 with a hint; the table of an empty namespace is just its header")
    void missingRun(KubeCluster cluster) {
        String ns = cluster.newNamespace();
        Result missing = trainyard("status", "nope", "-n", ns, "--kubeconfig", cluster.kubeconfig().toString());
        assertEquals(1, missing.code);
        assertTrue(missing.err.contains("run \"nope\" not found in namespace \"" + ns + "\""), missing.err);
        assertTrue(missing.err.contains("hint: list the runs with `trainyard status -n " + ns + "`"), missing.err);
        Result empty = trainyard("status", "-n", ns, "--kubeconfig", cluster.kubeconfig().toString());
        assertEquals(0, empty.code, empty.err);
        assertEquals("RUN  STATE  QUEUE  NODES  ATTEMPT  AGE  COMMIT  DESCRIPTION\n", empty.out);
        Result logs = trainyard("logs", "nope", "-n", ns, "--kubeconfig", cluster.kubeconfig().toString());
        assertEquals(1, logs.code);
    }
}
