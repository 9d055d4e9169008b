package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JobSet name budget, checked against the real webhook: for every replicated job, {@code
 * len(jobset) + len(rjob) + digits(replicas-1) + digits(completions-1) <= 54}, because the longest
 * pod name {@code <js>-<rjob>-<j>-<p>} plus the 5-char generated suffix must be a DNS-1035 label of
 * at most 63 characters (jobset#408, PR #409; jobset v0.12.0 pkg/webhooks/jobset_webhook.go).
 */
@ExtendWith(KubeClusterExtension.class)
class NameBudgetIT {

  static final int BUDGET = 54;
  static final String RJOB = "node";
  static final int REPLICAS = 1;
  static final int COMPLETIONS = 2;
  static final String WEBHOOK_MESSAGE =
      "pod names generated for this JobSet will exceed 63 characters";

  @Test
  @DisplayName(
      "a JobSet whose name budget sum is 55 is rejected by the JobSet webhook with its pod-name message")
  void fiftyFiveIsRejected(KubeCluster cluster) {
    GenericKubernetesResource jobSet = jobSetWithBudgetSum(BUDGET + 1);
    Manifests manifests = new Manifests(cluster.client());
    String namespace = cluster.newNamespace();
    KubernetesClientException rejected =
        assertThrows(
            KubernetesClientException.class,
            () -> manifests.dryRunApply(manifests.placed(jobSet, namespace)));
    assertTrue(rejected.getMessage().contains(WEBHOOK_MESSAGE), rejected.getMessage());
    assertTrue(rejected.getMessage().contains("admission webhook"), rejected.getMessage());
  }

  @Test
  @DisplayName("a JobSet whose name budget sum is 54 is accepted and stored")
  void fiftyFourIsAccepted(KubeCluster cluster) {
    GenericKubernetesResource jobSet = jobSetWithBudgetSum(BUDGET);
    Manifests manifests = new Manifests(cluster.client());
    String namespace = cluster.newNamespace();
    GenericKubernetesResource stored = manifests.apply(manifests.placed(jobSet, namespace));
    assertEquals(jobSet.getMetadata().getName(), stored.getMetadata().getName());
  }

  @Test
  @DisplayName(
      "the compiler rejects the same 55-sum input before the cluster sees it, and 54 compiles and is accepted")
  void compilerRejectsSameInputFirst(KubeCluster cluster, @TempDir Path temp) throws Exception {
    // torch, nodes: 2 -> replicated job "node", 1 replica, 2 completions; the run name adds "-" + 6
    // hex.
    int runIdPart = 7;
    int longestName =
        BUDGET - RJOB.length() - digits(REPLICAS - 1) - digits(COMPLETIONS - 1) - runIdPart;
    CompileResult tooLong = compile(temp.resolve("a"), "n".repeat(longestName + 1));
    assertTrue(tooLong.hasErrors());
    // Only errors: the test repo is never pushed, so W316 comes along.
    Diagnostic d =
        tooLong.diagnostics().stream()
            .filter(x -> x.code() != DiagnosticCode.COMMIT_NOT_PUSHED)
            .findFirst()
            .orElseThrow();
    assertEquals(DiagnosticCode.NAME_TOO_LONG, d.code());
    assertTrue(d.hint().contains("is " + longestName + " characters"), d.hint());

    CompileResult fits = compile(temp.resolve("b"), "n".repeat(longestName));
    assertFalse(fits.hasErrors(), fits.diagnostics().toString());
    String jobSetYaml =
        fits.tree().orElseThrow().files().entrySet().stream()
            .filter(e -> e.getKey().contains("/jobset-"))
            .findFirst()
            .orElseThrow()
            .getValue();
    GenericKubernetesResource jobSet =
        Serialization.unmarshal(jobSetYaml, GenericKubernetesResource.class);
    assertEquals(
        BUDGET,
        jobSet.getMetadata().getName().length() + RJOB.length() + 2,
        "the compiled name sits exactly on the budget");
    Manifests manifests = new Manifests(cluster.client());
    GenericKubernetesResource stored =
        manifests.apply(manifests.placed(jobSet, cluster.newNamespace()));
    assertEquals(jobSet.getMetadata().getName(), stored.getMetadata().getName());
  }

  private static CompileResult compile(Path dir, String name) throws Exception {
    Path trainYaml =
        SourceRepo.withTrainYaml(
            dir,
            "budget",
            "name: " + name + "\nrun: torchrun train.py\nnodes: " + COMPLETIONS + "\n");
    return new Compiler(SshSecretProvider.system()).compile(CompileRequest.of(trainYaml));
  }

  /**
   * A JobSet named so that the budget sum is exactly {@code sum} (rjob "node", 1 replica, 2
   * completions).
   */
  static GenericKubernetesResource jobSetWithBudgetSum(int sum) {
    int nameLength = sum - RJOB.length() - digits(REPLICAS - 1) - digits(COMPLETIONS - 1);
    String prefix = "budget-" + sum + "-";
    String name = prefix + "x".repeat(nameLength - prefix.length());
    return JobSets.minimal(name, RJOB, REPLICAS, COMPLETIONS);
  }

  static int digits(int value) {
    return Integer.toString(value).length();
  }
}
