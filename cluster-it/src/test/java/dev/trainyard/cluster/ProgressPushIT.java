package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.compiler.render.TrainerStatusPush;
import dev.trainyard.controller.ConfigFile;
import dev.trainyard.controller.Controller;
import dev.trainyard.controller.ControllerConfig;
import dev.trainyard.controller.RunKey;
import dev.trainyard.controller.TestCertificates;
import dev.trainyard.controller.state.Progress;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Progress pushed by a run's own pod to the real controller (its {@code Controller}, informers and
 * HTTPS endpoint) on the real cluster: the JobSet controller, the Job controller and kwok make the
 * pods; the API server mints each pod's token as the kubelet does for the compiled projected volume
 * (TokenRequest for {@link TrainerStatusPush#AUDIENCE}, bound to the pod object) and reviews it
 * (TokenReview). Accepted and kept for the run; refused without a token (401), with a token of
 * another audience (401), with another run's pod's token (403), for another run or namespace (403);
 * a flood is limited (429).
 */
@ExtendWith(KubeClusterExtension.class)
class ProgressPushIT {

  static final Duration TIMEOUT = Duration.ofSeconds(120);
  @TempDir Path dir;

  record Answer(int code, String body) {}

  @Test
  @DisplayName(
      "a run's pod pushes with its projected token: 200 and kept; no token or another audience 401;"
          + " another run's pod or another run 403; a flood 429")
  void push(KubeCluster cluster) throws Exception {
    assumeTrue(
        cluster.runs(Component.JOBSET_CONTROLLER) && cluster.runs(Component.KWOK),
        "NOT RUN: the JobSet controller or kwok is not built (see VERSIONS)");
    KubernetesClient client = cluster.client();
    String ns = cluster.newNamespace();
    Manifests manifests = new Manifests(client);
    for (String run : List.of("push-a", "push-b")) {
      GenericKubernetesResource js =
          StatusRuns.run(
              run,
              ControllerProcess.host("github", "push"),
              StatusRuns.sha(run),
              "slow",
              "300s",
              null);
      // What the ServiceAccount admission plugin fills in a cluster (the harness's API server runs
      // without it): a pod-bound token needs the pod's account.
      for (Map<String, Object> rjob : JobSets.replicatedJobs(js)) {
        podSpec(rjob).put("serviceAccountName", "default");
      }
      manifests.apply(manifests.placed(js, ns));
    }
    Pod a = runningPod(client, ns, "push-a");
    Pod b = runningPod(client, ns, "push-b");
    Path tls = TestCertificates.ec(dir.resolve("tls"));
    SSLContext trust = TestCertificates.trusting(tls);
    try (Controller controller =
        new Controller(client, config(tls), Clock.systemUTC(), "127.0.0.1", () -> {})) {
      controller.start();
      String base = "https://127.0.0.1:" + controller.progressPort().orElseThrow();
      String tokenA = token(client, a, TrainerStatusPush.AUDIENCE);
      String tokenB = token(client, b, TrainerStatusPush.AUDIENCE);
      String body =
          "{\"trainerStatus\": {\"progressPercentage\": 37, \"estimatedRemainingSeconds\": 105,"
              + " \"metrics\": [{\"name\": \"loss\", \"value\": \"0.53\"}],"
              + " \"lastUpdatedTime\": \"2026-12-02T08:00:00Z\"}}";
      String urlA = base + TrainerStatusPush.path(ns, "push-a");
      Eventually.await(
          "pods in the controller's cache",
          TIMEOUT,
          () -> post(trust, urlA, tokenA, body).code() == 200,
          () -> "last answer: " + post(trust, urlA, tokenA, body));
      // Until the pod reaches the controller's cache its pushes are refused as "gone" (403).
      long forbiddenBefore =
          controller.metrics().counter("trainyard_progress_pushes_total{code=\"403\"}");
      Progress kept = controller.pushed().latest(new RunKey(ns, "push-a")).orElseThrow();
      assertEquals(37, kept.percent());
      assertEquals(Duration.ofSeconds(105), kept.remaining());
      assertEquals(List.of(new Progress.Metric("loss", "0.53")), kept.metrics());
      assertEquals(Progress.Source.PUSH, kept.source());

      Answer none = post(trust, urlA, null, body);
      assertEquals(401, none.code(), none.body());
      Answer audience = post(trust, urlA, token(client, a, "https://kubernetes.default.svc"), body);
      assertEquals(401, audience.code(), audience.body());
      Answer otherPod = post(trust, urlA, tokenB, body);
      assertEquals(403, otherPod.code(), otherPod.body());
      assertTrue(otherPod.body().contains("belongs to run push-b, not push-a"), otherPod.body());
      Answer otherRun = post(trust, base + TrainerStatusPush.path(ns, "push-b"), tokenA, body);
      assertEquals(403, otherRun.code(), otherRun.body());
      Answer otherNs =
          post(trust, base + TrainerStatusPush.path("default", "push-a"), tokenA, body);
      assertEquals(403, otherNs.code(), otherNs.body());
      assertEquals(
          37,
          controller.pushed().latest(new RunKey(ns, "push-a")).orElseThrow().percent(),
          "refused pushes change nothing");
      assertTrue(controller.pushed().latest(new RunKey(ns, "push-b")).isEmpty());

      List<Integer> flood = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        flood.add(post(trust, urlA, tokenA, body).code());
      }
      System.out.println("[ProgressPushIT] flood answers: " + flood);
      assertTrue(flood.contains(429), flood.toString());
      assertTrue(flood.stream().allMatch(c -> c == 200 || c == 429), flood.toString());
      assertEquals(
          flood.stream().filter(c -> c == 429).count(),
          controller.metrics().counter("trainyard_progress_pushes_total{code=\"429\"}"));
      assertEquals(
          3,
          controller.metrics().counter("trainyard_progress_pushes_total{code=\"403\"}")
              - forbiddenBefore);
    }
  }

  @SuppressWarnings("unchecked") // the JobSet's YAML as plain maps
  static Map<String, Object> podSpec(Map<String, Object> rjob) {
    Map<String, Object> jobTemplate = (Map<String, Object>) rjob.get("template");
    Map<String, Object> podTemplate =
        (Map<String, Object>) ((Map<String, Object>) jobTemplate.get("spec")).get("template");
    return (Map<String, Object>) podTemplate.get("spec");
  }

  /** The first pod of {@code run} once the Job controller made it and kwok runs it. */
  static Pod runningPod(KubernetesClient client, String ns, String run) {
    List<Pod> found = new ArrayList<>();
    Eventually.await(
        run + " pod running",
        TIMEOUT,
        () -> {
          found.clear();
          client
              .pods()
              .inNamespace(ns)
              .withLabel("jobset.sigs.k8s.io/jobset-name", run)
              .list()
              .getItems()
              .stream()
              .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
              .forEach(found::add);
          return !found.isEmpty();
        },
        () -> "pods: " + client.pods().inNamespace(ns).list().getItems().size());
    return found.get(0);
  }

  /**
   * What the kubelet writes into the projected volume: a token for {@code audience}, bound to
   * {@code pod}.
   */
  static String token(KubernetesClient client, Pod pod, String audience) {
    String account =
        pod.getSpec().getServiceAccountName() == null
            ? "default"
            : pod.getSpec().getServiceAccountName();
    return client
        .serviceAccounts()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(account)
        .tokenRequest(
            new TokenRequestBuilder()
                .withNewSpec()
                .withAudiences(audience)
                .withExpirationSeconds((long) TrainerStatusPush.TOKEN_EXPIRY_SECONDS)
                .withNewBoundObjectRef()
                .withApiVersion("v1")
                .withKind("Pod")
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .endBoundObjectRef()
                .endSpec()
                .build())
        .getStatus()
        .getToken();
  }

  /** controller.yaml and platform.yaml with progressPush on, no forges, endpoint on a free port. */
  ControllerConfig config(Path tls) throws Exception {
    Files.createDirectories(dir.resolve("tokens"));
    Files.writeString(
        dir.resolve("platform.yaml"),
        """
        apiVersion: trainyard.dev/v1
        kind: Platform
        clusters: [{name: it}]
        namespaces: [{name: default, cluster: it, defaultQueue: q}]
        queues:
          resourceFlavors: [{name: f}]
          clusterQueues: [{name: cq, flavors: [{name: f, quota: {cpu: "8"}}]}]
          localQueues: [{name: q, namespace: default, clusterQueue: cq}]
        progressPush: {enabled: true}
        """);
    Path controllerYaml =
        Files.writeString(
            dir.resolve("controller.yaml"),
            "platform: platform.yaml\ntokens: tokens\nport: 0\nprogress: {port: 0, tls: "
                + tls
                + "}\n");
    return ConfigFile.read(controllerYaml);
  }

  static Answer post(SSLContext trust, String url, String token, String body) {
    try {
      HttpsURLConnection c = (HttpsURLConnection) new URL(url).openConnection();
      c.setSSLSocketFactory(trust.getSocketFactory());
      c.setRequestMethod("POST");
      c.setConnectTimeout(5000);
      c.setReadTimeout(10000);
      if (token != null) {
        c.setRequestProperty("Authorization", "Bearer " + token);
      }
      c.setRequestProperty("Content-Type", "application/json");
      c.setDoOutput(true);
      try (OutputStream out = c.getOutputStream()) {
        out.write(body.getBytes(StandardCharsets.UTF_8));
      }
      int code = c.getResponseCode();
      InputStream in = code < 400 ? c.getInputStream() : c.getErrorStream();
      return new Answer(
          code, in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return new Answer(-1, e.toString());
    }
  }
}
