package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Kueue controller (tier T4) with only the JobSet integration enabled and its webhooks on
 * 127.0.0.1. Config fields from kueue apis/config/v1beta2; VisibilityOnDemand is off because it
 * starts an aggregated API server. {@code waitForPodsReady} is on with a requeuing limit ({@link
 * #PODS_READY_TIMEOUT}, {@link #BACKOFF_LIMIT_COUNT}), so a run whose pods never become ready is
 * deactivated by Kueue itself, as on a platform that limits requeuing; {@code
 * objectRetentionPolicies} stays unset, as it must under GitOps (docs/platform-guide.md).
 *
 * <p>Kueue (v0.17 to v0.19, cmd/kueue/main.go) reads its metrics cert from the fixed path {@code
 * /etc/kueue/metrics/certs/tls.{crt,key}} whenever internal cert management is off, and exits if it
 * is missing; this class writes the test webhook cert there (the harness runs as root in CI).
 * Webhooks are registered only for JobSets and Kueue's own kinds: a webhook for a disabled
 * framework answers 404 and, with failurePolicy Fail, would block those objects. Mutating webhooks
 * get CREATE only, as upstream (config/components/webhook/manifests.yaml): on UPDATE the JobSet
 * defaulter would set {@code suspend: true} again and undo every admission.
 */
final class KueueController {

  static final Path METRICS_CERTS = Path.of("/etc/kueue/metrics/certs");

  /** Kueue's {@code waitForPodsReady.timeout} on the harness. */
  static final Duration PODS_READY_TIMEOUT = Duration.ofSeconds(30);

  /** Kueue's {@code waitForPodsReady.requeuingStrategy.backoffLimitCount} on the harness. */
  static final int BACKOFF_LIMIT_COUNT = 1;

  private static final List<String> MUTATED = List.of("clusterqueue", "resourceflavor", "workload");
  private static final List<String> VALIDATED =
      List.of("clusterqueue", "cohort", "resourceflavor", "workload");

  private final LocalCluster cluster;
  private final K8sBinaries binaries;

  KueueController(LocalCluster cluster, K8sBinaries binaries) {
    this.cluster = cluster;
    this.binaries = binaries;
  }

  void start() {
    installMetricsCert();
    cluster
        .client()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("kueue-system").endMetadata().build())
        .fieldManager(ClusterBootstrap.FIELD_MANAGER)
        .serverSideApply();
    int webhookPort = LoopbackPorts.free();
    Path config =
        new ClusterBootstrap(cluster, binaries)
            .writeFile(
                "kueue-config.yaml",
                String.join(
                    "\n",
                    "apiVersion: config.kueue.x-k8s.io/v1beta2",
                    "kind: Configuration",
                    "namespace: kueue-system",
                    "leaderElection: {leaderElect: false}",
                    "internalCertManagement: {enable: false}",
                    "webhook: {port: "
                        + webhookPort
                        + ", host: 127.0.0.1, certDir: "
                        + cluster.certificates().webhookCertDir()
                        + "}",
                    "health: {healthProbeBindAddress: '127.0.0.1:" + LoopbackPorts.free() + "'}",
                    "metrics: {bindAddress: '0'}",
                    "integrations: {frameworks: ['jobset.x-k8s.io/jobset']}",
                    "featureGates: {VisibilityOnDemand: false}",
                    // A Workload whose pods are not all ready 30 s after admission is evicted
                    // (PodsReadyTimeout) and requeued after 1 s; the second time, Kueue deactivates
                    // it (DeactivatedDueToRequeuingLimitExceeded), as a platform that limits
                    // requeuing does. Only Kueue-admitted runs whose pods never start reach it.
                    "waitForPodsReady: {timeout: "
                        + PODS_READY_TIMEOUT.toSeconds()
                        + "s, blockAdmission: false, requeuingStrategy: {timestamp: Eviction,"
                        + " backoffLimitCount: "
                        + BACKOFF_LIMIT_COUNT
                        + ", backoffBaseSeconds: 1, backoffMaxSeconds: 2}}",
                    ""));
    ClusterProcess kueue =
        cluster.launch(
            "kueue",
            List.of(
                binaries.bin("kueue").toString(),
                "--config=" + config,
                "--kubeconfig=" + cluster.kubeconfig()),
            Map.of("KUBECONFIG", cluster.kubeconfig().toString()));
    cluster.waitForPort(kueue, webhookPort);
    registerWebhooks(webhookPort);
  }

  private void installMetricsCert() {
    Path webhookCerts = cluster.certificates().webhookCertDir();
    try {
      Files.createDirectories(METRICS_CERTS);
      for (String file : List.of("tls.crt", "tls.key")) {
        Files.copy(
            webhookCerts.resolve(file),
            METRICS_CERTS.resolve(file),
            StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Kueue needs its metrics cert in "
              + METRICS_CERTS
              + " (hard-coded in cmd/kueue/main.go); run the tests as root or create it",
          e);
    }
  }

  private void registerWebhooks(int port) {
    String base = "https://127.0.0.1:" + port;
    String ca = cluster.certificates().caBundle();
    List<MutatingWebhook> mutating =
        new ArrayList<>(
            MUTATED.stream()
                .map(
                    kind ->
                        mutating(
                            "m" + kind + ".kueue.x-k8s.io",
                            base + "/mutate-kueue-x-k8s-io-v1beta2-" + kind,
                            ca,
                            "kueue.x-k8s.io",
                            "v1beta2",
                            kind + "s"))
                .toList());
    mutating.add(
        mutating(
            "mjobset.kueue.x-k8s.io",
            base + "/mutate-jobset-x-k8s-io-v1alpha2-jobset",
            ca,
            "jobset.x-k8s.io",
            "v1alpha2",
            "jobsets"));
    List<ValidatingWebhook> validating =
        new ArrayList<>(
            VALIDATED.stream()
                .map(
                    kind ->
                        validating(
                            "v" + kind + ".kueue.x-k8s.io",
                            base + "/validate-kueue-x-k8s-io-v1beta2-" + kind,
                            ca,
                            "kueue.x-k8s.io",
                            "v1beta2",
                            kind + "s"))
                .toList());
    validating.add(
        validating(
            "vjobset.kueue.x-k8s.io",
            base + "/validate-jobset-x-k8s-io-v1alpha2-jobset",
            ca,
            "jobset.x-k8s.io",
            "v1alpha2",
            "jobsets"));
    cluster
        .client()
        .resource(
            new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName("trainyard-it-kueue-mutating")
                .endMetadata()
                .withWebhooks(mutating)
                .build())
        .fieldManager(ClusterBootstrap.FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
    cluster
        .client()
        .resource(
            new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName("trainyard-it-kueue-validating")
                .endMetadata()
                .withWebhooks(validating)
                .build())
        .fieldManager(ClusterBootstrap.FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }

  private static MutatingWebhook mutating(
      String name, String url, String ca, String group, String version, String resource) {
    return new MutatingWebhookBuilder()
        .withName(name)
        .withAdmissionReviewVersions("v1")
        .withNewClientConfig()
        .withUrl(url)
        .withCaBundle(ca)
        .endClientConfig()
        .withFailurePolicy("Fail")
        .withSideEffects("None")
        .withTimeoutSeconds(10)
        .addNewRule()
        .withApiGroups(group)
        .withApiVersions(version)
        .withResources(resource)
        .withOperations("CREATE")
        .endRule()
        .build();
  }

  private static ValidatingWebhook validating(
      String name, String url, String ca, String group, String version, String resource) {
    return new ValidatingWebhookBuilder()
        .withName(name)
        .withAdmissionReviewVersions("v1")
        .withNewClientConfig()
        .withUrl(url)
        .withCaBundle(ca)
        .endClientConfig()
        .withFailurePolicy("Fail")
        .withSideEffects("None")
        .withTimeoutSeconds(10)
        .addNewRule()
        .withApiGroups(group)
        .withApiVersions(version)
        .withResources(resource)
        .withOperations("CREATE", "UPDATE")
        .endRule()
        .build();
  }
}
