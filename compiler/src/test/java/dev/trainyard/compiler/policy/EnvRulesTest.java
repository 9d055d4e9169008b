package dev.trainyard.compiler.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.runtime.Framework;
import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reserved env names are exactly the ones Trainyard, Kubernetes and the launcher set for the job's
 * runtime (issue #10), and a name set twice is reported at both places (issue #9).
 */
class EnvRulesTest {
  @TempDir Path dir;

  private CompileResult compile(String yaml) {
    return TrainProject.create(dir, yaml).compile();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({
    "jax, JAX_COORDINATOR_PORT",
    "jax, JAX_PLATFORMS",
    "torch, PET_MAX_RESTARTS",
    "torch, OMPI_MCA_btl",
    "plain, PET_NNODES",
    "mpi, OMPI_MCA_btl_tcp_if_include",
    "mpi, NODE_RANK",
    "torch, JOB_NAME",
    "torch, PMIX_MCA_x"
  })
  @DisplayName(
      "a name Trainyard does not set for this runtime is the user's: accepted and set on the pods")
  void notSetByTrainyardIsFree(String runtime, String name) {
    CompileResult r =
        compile(
            "runtime: "
                + runtime
                + "\nnodes: 2\nrun: python train.py\nenv:\n  "
                + name
                + ": \"1\"\n");
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.RESERVED_ENV));
    JsonNode jobSet = TrainProject.object(r, "JobSet");
    assertEquals("1", TrainProject.env(jobSet, "node", name).path("value").asText(), name);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({
    "jax, JAX_COORDINATOR_ADDRESS",
    "jax, JAX_PROCESS_ID",
    "torch, PET_NODE_RANK",
    "torch, LOCAL_RANK",
    "mpi, OMPI_MCA_plm_rsh_args",
    "mpi, PRTE_MCA_prte_set_default_slots",
    "mpi, OMPI_COMM_WORLD_RANK",
    "mpi, HOSTFILE",
    "plain, NODE_RANK",
    "torch, TRAINYARD_ANYTHING",
    "mpi, NVIDIA_VISIBLE_DEVICES"
  })
  @DisplayName("a name Trainyard or the launcher sets for this runtime is reserved")
  void setByTrainyardIsReserved(String runtime, String name) {
    CompileResult r =
        compile(
            "runtime: "
                + runtime
                + "\nnodes: 2\nrun: python train.py\nenv:\n  "
                + name
                + ": \"1\"\n");
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.RESERVED_ENV);
    assertEquals(1, d.size(), r.diagnostics().toString());
    assertEquals(5, d.get(0).location().line());
  }

  @Test
  @DisplayName(
      "a name in `env` and in `secrets` is reported at both lines, each naming the other, and is not called reserved")
  void envAndSecret() {
    CompileResult r =
        compile(
            "run: torchrun train.py\nenv:\n  HF_TOKEN: x\nsecrets:\n  - name: hf\n    key: token\n    env: HF_TOKEN\n");
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.ENV_SET_TWICE);
    assertEquals(2, d.size(), r.diagnostics().toString());
    assertEquals(List.of(3, 7), d.stream().map(x -> x.location().line()).toList());
    assertEquals(
        List.of("/env/HF_TOKEN", "/secrets/0/env"), d.stream().map(Diagnostic::pointer).toList());
    assertTrue(d.get(0).message().contains("line 7"), d.get(0).message());
    assertTrue(d.get(1).message().contains("line 3"), d.get(1).message());
    assertFalse(d.get(0).message().contains("reserved"));
    assertEquals(List.of(), TrainProject.withCode(r, DiagnosticCode.RESERVED_ENV));
    assertTrue(r.tree().isEmpty());
  }

  @Test
  @DisplayName("one name in two `secrets` is reported at both `env` keys")
  void twoSecrets() {
    CompileResult r =
        compile(
            "run: torchrun train.py\nsecrets:\n  - {name: a, key: k, env: TOKEN}\n  - {name: b, key: k, env: TOKEN}\n");
    List<Diagnostic> d = TrainProject.withCode(r, DiagnosticCode.ENV_SET_TWICE);
    assertEquals(
        List.of("/secrets/0/env", "/secrets/1/env"), d.stream().map(Diagnostic::pointer).toList());
    assertEquals(List.of(3, 4), d.stream().map(x -> x.location().line()).toList());
    assertFalse(d.get(0).hint().isBlank());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"torch", "jax", "plain", "mpi", "deepspeed", "mlx"})
  @DisplayName(
      "the reserved table is exact: every env name the compiled pods carry that the user did not set is in it, and"
          + " every name in it is set on a pod or by Kubernetes/the launcher")
  void tableMatchesRenderedEnv(String runtime) {
    CompileResult r =
        compile(
            "runtime: "
                + runtime
                + "\nnodes: 2\nsetup: echo hi\nrun: python train.py\nenv:\n  MY_VAR: x\n");
    JsonNode jobSet = TrainProject.object(r, "JobSet");
    Set<String> rendered = new TreeSet<>();
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      for (JsonNode c :
          rj.path("template").path("spec").path("template").path("spec").path("containers")) {
        c.path("env").forEach(e -> rendered.add(e.path("name").asText()));
      }
    }
    Set<String> template = new HashSet<>();
    r.job()
        .orElseThrow()
        .runtime()
        .skeleton()
        .findValues("env")
        .forEach(env -> env.forEach(e -> template.add(e.path("name").asText())));
    rendered.remove("MY_VAR");
    rendered.removeAll(template);
    Set<String> table = TrainyardEnv.names(r.job().orElseThrow());
    Set<String> missing = new TreeSet<>(rendered);
    missing.removeAll(table);
    assertEquals(Set.of(), missing, "rendered but not reserved");
    Set<String> unset = new TreeSet<>(table);
    unset.removeAll(rendered);
    unset.removeAll(
        Set.of(
            "JOB_COMPLETION_INDEX",
            "RANK",
            "WORLD_SIZE",
            "LOCAL_RANK",
            "LOCAL_WORLD_SIZE",
            "OMPI_COMM_WORLD_RANK",
            "OMPI_COMM_WORLD_SIZE",
            "OMPI_COMM_WORLD_LOCAL_RANK",
            "OMPI_COMM_WORLD_LOCAL_SIZE",
            "OMPI_COMM_WORLD_NODE_RANK",
            "OMPI_UNIVERSE_SIZE",
            "PMIX_RANK"));
    assertEquals(Set.of(), unset, "reserved but set by nobody");
    assertEquals(
        Framework.parse(runtime).orElseThrow().usesMpi(), table.contains("OMPI_COMM_WORLD_RANK"));
  }
}
