package dev.trainyard.compiler.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.testing.PlatformYaml;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kubeflow Trainer's KEP-2779 push contract in the compiled pods: with platform.yaml's {@code
 * progressPush} every container of every pod has the env vars, the token mount and the projected
 * volume; without it, none; and train.yaml may not set the names while it is on.
 */
class TrainerStatusPushTest {

  @TempDir Path dir;

  CompileResult compile(String trainYaml, String push) {
    return TrainProject.create(dir, trainYaml)
        .withPlatform(PlatformYaml.base().text() + push)
        .compile();
  }

  static final String ON = "progressPush: {enabled: true}\n";

  @Test
  @DisplayName(
      "every pod gets both names of URL, CA and token, the read-only mount and the projected token")
  void torch() {
    CompileResult r = compile("run: torchrun train.py\nnodes: 2\n", ON);
    JsonNode js = TrainProject.object(r, "JobSet");
    String run = js.path("metadata").path("name").asText();
    String url =
        "https://trainyard-controller-progress.trainyard-system.svc:8443"
            + "/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainjobs/"
            + run
            + "/status";
    for (String name : List.of("KUBEFLOW_TRAINER_SERVER_URL", "KUBEFLOW_TRAINER_STATUS_URL")) {
      assertEquals(url, TrainProject.env(js, "node", name).path("value").asText());
    }
    for (String name : TrainerStatusPush.CA_ENV) {
      assertEquals(
          "/var/run/secrets/kubeflow/trainer/ca.crt",
          TrainProject.env(js, "node", name).path("value").asText());
    }
    for (String name : TrainerStatusPush.TOKEN_ENV) {
      assertEquals(
          "/var/run/secrets/kubeflow/trainer/token",
          TrainProject.env(js, "node", name).path("value").asText());
    }
    JsonNode pod = TrainProject.podSpec(js, "node");
    JsonNode mount =
        named(pod.path("containers").path(0).path("volumeMounts"), "kubeflow-trainer-token");
    assertEquals("/var/run/secrets/kubeflow/trainer", mount.path("mountPath").asText());
    assertTrue(mount.path("readOnly").asBoolean());
    JsonNode sources =
        named(pod.path("volumes"), "kubeflow-trainer-token").path("projected").path("sources");
    JsonNode token = sources.path(0).path("serviceAccountToken");
    assertEquals("progress.trainyard.dev", token.path("audience").asText());
    assertEquals(3600, token.path("expirationSeconds").asInt());
    assertEquals("token", token.path("path").asText());
    JsonNode ca = sources.path(1).path("configMap");
    assertEquals("trainyard-progress-ca", ca.path("name").asText());
    assertTrue(ca.path("optional").asBoolean());
    assertEquals("ca.crt", ca.path("items").path(0).path("key").asText());
    assertEquals("ca.crt", ca.path("items").path(0).path("path").asText());
    assertEquals(2, sources.size());
  }

  @Test
  @DisplayName(
      "the platform's url and CA ConfigMap are used; MPI's launcher and nodes both carry them")
  void mpiAndSettings() {
    CompileResult r =
        compile(
            "runtime: mpi\nrun: python train.py\nnodes: 2\n",
            "progressPush: {enabled: true, url: \"https://progress.example:9443\", caConfigMap: my-ca}\n");
    JsonNode js = TrainProject.object(r, "JobSet");
    for (String rjob : List.of("launcher", "node")) {
      assertTrue(
          TrainProject.env(js, rjob, "KUBEFLOW_TRAINER_SERVER_URL")
              .path("value")
              .asText()
              .startsWith("https://progress.example:9443/apis/trainer.kubeflow.org/v1alpha1/"),
          rjob);
      JsonNode pod = TrainProject.podSpec(js, rjob);
      assertEquals(
          "my-ca",
          named(pod.path("volumes"), "kubeflow-trainer-token")
              .path("projected")
              .path("sources")
              .path(1)
              .path("configMap")
              .path("name")
              .asText(),
          rjob);
    }
    // Ranks started over ssh get only what mpirun forwards (trainer#3427): the names go with -x.
    String launch = TrainProject.object(r, "ConfigMap").path("data").path("launch.sh").asText();
    for (String name : TrainerStatusPush.envNames()) {
      assertTrue(launch.contains("-x " + name), name + " in " + launch);
    }
  }

  @Test
  @DisplayName("off (the default): no env var, mount or volume of the contract")
  void off() {
    CompileResult r = compile("run: torchrun train.py\nnodes: 2\n", "");
    String js = TrainProject.object(r, "JobSet").toString();
    assertFalse(js.contains("KUBEFLOW_TRAINER"), js);
    assertFalse(js.contains("kubeflow-trainer-token"), js);
  }

  @Test
  @DisplayName(
      "while it is on, train.yaml may not set the contract's names; while off they are the user's")
  void reserved() {
    String yaml = "run: torchrun train.py\nenv:\n  KUBEFLOW_TRAINER_SERVER_URL: https://x\n";
    assertEquals(1, TrainProject.withCode(compile(yaml, ON), DiagnosticCode.RESERVED_ENV).size());
    assertEquals(List.of(), TrainProject.withCode(compile(yaml, ""), DiagnosticCode.RESERVED_ENV));
  }

  @Test
  @DisplayName(
      "the contract's names and path: Kubeflow's, and the platform's list of reserved names")
  void contract() {
    assertEquals(
        new TreeSet<>(Platform.ProgressPush.ENV_NAMES),
        new TreeSet<>(TrainerStatusPush.envNames()));
    assertEquals(6, TrainerStatusPush.envNames().size());
    assertEquals(
        "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs/run/status",
        TrainerStatusPush.path("ns", "run"));
    assertEquals(Platform.ProgressPush.OFF.enabled(), false);
  }

  static final String PEM =
      "-----BEGIN CERTIFICATE-----\n"
          + "MIIBlDCCATugAwIBAgIUQgq2jm46KO912OTTL7WFyA9e8jQwCgYIKoZIzj0EAwIw\n"
          + "-----END CERTIFICATE-----\n";

  @Test
  @DisplayName(
      "with caCertificate the namespace's queue folder gets the CA ConfigMap; without it, none")
  void caConfigMap() {
    String push =
        "progressPush:\n  enabled: true\n  caConfigMap: my-ca\n  caCertificate: |\n"
            + PEM.lines().map(l -> "    " + l + "\n").collect(Collectors.joining());
    CompileResult r = compile("run: torchrun train.py\n", push);
    Map.Entry<String, String> file =
        TrainProject.tree(r).files().entrySet().stream()
            .filter(e -> e.getKey().endsWith("team-a/_queues/configmap-my-ca.yaml"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(TrainProject.tree(r).files().keySet()));
    JsonNode cm = TrainProject.parse(file.getKey(), file.getValue());
    assertEquals("my-ca", cm.path("metadata").path("name").asText());
    assertEquals("team-a", cm.path("metadata").path("namespace").asText());
    assertEquals(PEM, cm.path("data").path("ca.crt").asText());
    assertFalse(caFile(compile("run: torchrun train.py\n", ON)), "no caCertificate: no ConfigMap");
    String off = push.replace("enabled: true", "enabled: false");
    assertFalse(caFile(compile("run: torchrun train.py\n", off)), "push off: no ConfigMap");
  }

  static boolean caFile(CompileResult r) {
    return TrainProject.tree(r).files().keySet().stream().anyMatch(f -> f.contains("configmap-"));
  }

  @Test
  @DisplayName("caCertificate must be a PEM certificate, never a key")
  void caIsACertificate() {
    CompileResult r =
        compile(
            "run: torchrun train.py\n",
            "progressPush:\n  enabled: true\n  caCertificate: |\n    -----BEGIN PRIVATE KEY-----\n    AAAA\n    -----END PRIVATE KEY-----\n");
    assertTrue(
        r.diagnostics().stream().anyMatch(d -> d.message().contains("must be a PEM certificate")),
        r.diagnostics().toString());
  }

  static JsonNode named(JsonNode list, String name) {
    for (JsonNode n : list) {
      if (n.path("name").asText().equals(name)) {
        return n;
      }
    }
    return MissingNode.getInstance();
  }
}
