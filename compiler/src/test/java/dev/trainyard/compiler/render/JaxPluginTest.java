package dev.trainyard.compiler.render;

import static dev.trainyard.compiler.testing.TrainProject.env;
import static dev.trainyard.compiler.testing.TrainProject.object;
import static dev.trainyard.compiler.testing.TrainProject.podSpec;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JAX run on the embedded platform: the pods' ServiceAccount, and the Role and RoleBinding that
 * let {@code jax.distributed.initialize()}'s Kubernetes detector get and list the pods and the Job.
 */
class JaxPluginTest {
  @TempDir Path dir;

  private CompileResult compile() {
    return TrainProject.create(dir, "name: jx\nruntime: jax\nnodes: 3\nrun: python train.py\n")
        .compile();
  }

  private static String run(CompileResult r) {
    return object(r, "JobSet").path("metadata").path("name").asText();
  }

  @Test
  @DisplayName("JAX pods run as ServiceAccount <run>-jax in the run's namespace")
  void serviceAccount() {
    CompileResult r = compile();
    String account = run(r) + "-jax";
    assertEquals(account, podSpec(object(r, "JobSet"), "node").path("serviceAccountName").asText());
    JsonNode sa = object(r, "ServiceAccount");
    assertEquals(account, sa.path("metadata").path("name").asText());
    assertEquals("default", sa.path("metadata").path("namespace").asText());
  }

  @Test
  @DisplayName("the JAX Role allows exactly get and list on core pods and batch jobs")
  void role() {
    CompileResult r = compile();
    JsonNode role = object(r, "Role");
    assertEquals("rbac.authorization.k8s.io/v1", role.path("apiVersion").asText());
    assertEquals(run(r) + "-jax", role.path("metadata").path("name").asText());
    assertEquals("default", role.path("metadata").path("namespace").asText());
    assertEquals(
        "[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\",\"list\"]},"
            + "{\"apiGroups\":[\"batch\"],\"resources\":[\"jobs\"],\"verbs\":[\"get\",\"list\"]}]",
        role.path("rules").toString());
  }

  @Test
  @DisplayName("the JAX RoleBinding binds that Role to that ServiceAccount in the run's namespace")
  void roleBinding() {
    CompileResult r = compile();
    String account = run(r) + "-jax";
    JsonNode binding = object(r, "RoleBinding");
    assertEquals(account, binding.path("metadata").path("name").asText());
    assertEquals(
        "{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\",\"name\":\""
            + account
            + "\"}",
        binding.path("roleRef").toString());
    assertEquals(
        "[{\"kind\":\"ServiceAccount\",\"name\":\"" + account + "\",\"namespace\":\"default\"}]",
        binding.path("subjects").toString());
  }

  @Test
  @DisplayName(
      "JAX env: coordinator at node 0 port 29500, the process count is nodes, the process id the completion index")
  void jaxEnv() {
    CompileResult r = compile();
    JsonNode js = object(r, "JobSet");
    assertEquals(
        Hostnames.first(run(r), "node") + ":29500",
        env(js, "node", "JAX_COORDINATOR_ADDRESS").path("value").asText());
    assertEquals("3", env(js, "node", "JAX_NUM_PROCESSES").path("value").asText());
    assertEquals(
        EnvList.COMPLETION_INDEX,
        env(js, "node", "JAX_PROCESS_ID")
            .path("valueFrom")
            .path("fieldRef")
            .path("fieldPath")
            .asText());
  }
}
