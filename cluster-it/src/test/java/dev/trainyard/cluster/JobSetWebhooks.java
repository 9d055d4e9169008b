package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.RuleWithOperationsBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * The JobSet controller's admission webhooks, registered by URL ({@code
 * https://127.0.0.1:<port>/<path>}) because Service routing to loopback is impossible (Endpoints
 * reject 127.0.0.0/8).
 *
 * <p>Paths, operations and failurePolicy Fail from jobset v0.12.0
 * config/components/webhook/manifests.yaml. The pod webhooks are limited to pods labelled {@code
 * jobset.sigs.k8s.io/jobset-name}, so a webhook outage never blocks unrelated pods.
 *
 * @param port webhook server port on 127.0.0.1
 * @param caBundle base64 PEM of the CA that signed the webhook's serving cert
 */
record JobSetWebhooks(int port, String caBundle) {

  static final String MUTATING = "trainyard-it-jobset-mutating";
  static final String VALIDATING = "trainyard-it-jobset-validating";
  private static final String JOBSET_NAME_LABEL = "jobset.sigs.k8s.io/jobset-name";

  void register(KubernetesClient client) {
    client
        .resource(
            new MutatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(MUTATING)
                .endMetadata()
                .withWebhooks(
                    mutating(
                        "mjobset.kb.io",
                        "/mutate-jobset-x-k8s-io-v1alpha2-jobset",
                        jobSets(List.of("CREATE")),
                        null),
                    mutating("mpod.kb.io", "/mutate--v1-pod", pods(), jobSetPods()))
                .build())
        .fieldManager(ClusterBootstrap.FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
    client
        .resource(
            new ValidatingWebhookConfigurationBuilder()
                .withNewMetadata()
                .withName(VALIDATING)
                .endMetadata()
                .withWebhooks(
                    validating(
                        "vjobset.kb.io",
                        "/validate-jobset-x-k8s-io-v1alpha2-jobset",
                        jobSets(List.of("CREATE", "UPDATE")),
                        null),
                    validating("vpod.kb.io", "/validate--v1-pod", pods(), jobSetPods()))
                .build())
        .fieldManager(ClusterBootstrap.FIELD_MANAGER)
        .forceConflicts()
        .serverSideApply();
  }

  private String url(String path) {
    return "https://127.0.0.1:" + port + path;
  }

  private MutatingWebhook mutating(
      String name, String path, RuleWithOperations rule, LabelSelector objects) {
    return new MutatingWebhookBuilder()
        .withName(name)
        .withAdmissionReviewVersions("v1")
        .withNewClientConfig()
        .withUrl(url(path))
        .withCaBundle(caBundle)
        .endClientConfig()
        .withFailurePolicy("Fail")
        .withSideEffects("None")
        .withTimeoutSeconds(10)
        .withRules(rule)
        .withObjectSelector(objects)
        .build();
  }

  private ValidatingWebhook validating(
      String name, String path, RuleWithOperations rule, LabelSelector objects) {
    return new ValidatingWebhookBuilder()
        .withName(name)
        .withAdmissionReviewVersions("v1")
        .withNewClientConfig()
        .withUrl(url(path))
        .withCaBundle(caBundle)
        .endClientConfig()
        .withFailurePolicy("Fail")
        .withSideEffects("None")
        .withTimeoutSeconds(10)
        .withRules(rule)
        .withObjectSelector(objects)
        .build();
  }

  private static RuleWithOperations jobSets(List<String> operations) {
    return new RuleWithOperationsBuilder()
        .withApiGroups("jobset.x-k8s.io")
        .withApiVersions("v1alpha2")
        .withResources("jobsets")
        .withOperations(operations)
        .build();
  }

  private static RuleWithOperations pods() {
    return new RuleWithOperationsBuilder()
        .withApiGroups("")
        .withApiVersions("v1")
        .withResources("pods")
        .withOperations("CREATE")
        .build();
  }

  private static LabelSelector jobSetPods() {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey(JOBSET_NAME_LABEL)
        .withOperator("Exists")
        .endMatchExpression()
        .build();
  }
}
