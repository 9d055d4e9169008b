package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.cluster.ClusterDryRun;
import dev.trainyard.compiler.testing.WebPageServer;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.time.Clock;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Cluster errors as one line: who cannot do what, which server did not answer, never the client's
 * Status dump.
 */
class ClusterErrorsTest {
  static KubernetesClientException status(int code, String message) {
    return new KubernetesClientException(
        new StatusBuilder().withCode(code).withMessage(message).build());
  }

  @Test
  @DisplayName(
      "403: the API server's RBAC message becomes 'forbidden: User \"u\" cannot list jobsets in namespace \"ns\"' with an RBAC hint")
  void forbidden() {
    ClusterAccessException e =
        ClusterErrors.of(
            status(
                403,
                "jobsets.jobset.x-k8s.io is forbidden: User \"bob\" cannot list"
                    + " resource \"jobsets\" in API group \"jobset.x-k8s.io\" in the namespace \"team-a\""),
            "https://k:6443",
            "list runs");
    assertEquals(
        "cannot list runs: forbidden: User \"bob\" cannot list jobsets in namespace \"team-a\"",
        e.getMessage());
    assertEquals(ClusterErrors.RBAC, e.hint());
    assertEquals(
        "forbidden: User \"bob\" cannot list jobsets at cluster scope",
        ClusterErrors.forbidden(
            status(
                403,
                "jobsets.jobset.x-k8s.io is forbidden: User \"bob\" cannot list resource \"jobsets\" in API group \"jobset.x-k8s.io\" at the cluster scope")));
    assertEquals("something else", ClusterErrors.forbidden(status(403, "something else")));
  }

  @Test
  @DisplayName(
      "an API the real API server does not serve (a CRD not installed) is named as such with an install hint, not as 'cannot reach' with fabric8's words")
  void noApi() {
    KubernetesClientException e =
        assertThrows(
            KubernetesClientException.class,
            () ->
                LiveApiServer.client()
                    .genericKubernetesResources("example.com/v1", "Widget")
                    .inNamespace("default")
                    .list());
    assertTrue(e.getMessage().startsWith(ClusterErrors.NO_API), e.getMessage());
    ClusterAccessException c = ClusterErrors.of(e, "https://k:6443", "list runs");
    assertEquals(
        "cannot list runs: the cluster at https://k:6443 has no API for it (JobSet's or Kueue's CRD"
            + " is not installed there)",
        c.getMessage());
    assertEquals(
        "install JobSet 0.8+ and Kueue 0.15+ on that cluster, or point --kubeconfig/--context at the"
            + " cluster the runs go to",
        c.hint());
  }

  @Test
  @DisplayName(
      "a server that answers with a web page (a wrong port, a proxy's login) is 'did not answer as a Kubernetes API server does', not the JSON reader's words")
  void notKubernetes() throws Exception {
    try (WebPageServer web = new WebPageServer();
        KubernetesClient client =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder(Config.empty())
                        .withMasterUrl(web.url())
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build()) {
      ClusterAccessException c =
          assertThrows(
              ClusterAccessException.class,
              () -> new RunReader(client, Clock.systemUTC()).list("default"));
      assertTrue(ClusterDryRun.notKubernetes(c.getCause()), c.getCause().toString());
      assertEquals(
          "cannot list runs: the server at "
              + web.url()
              + " did not answer as a Kubernetes API server does (its answer is not Kubernetes"
              + " JSON)",
          c.getMessage());
      assertEquals(
          "check the kubeconfig's server URL: a wrong port, a proxy or a login page answer like"
              + " this",
          c.hint());
    }
  }

  @Test
  @DisplayName(
      "401 says the credentials are invalid or expired; another code gives the server's message; no answer names the server and cause")
  void others() {
    assertTrue(
        ClusterErrors.of(status(401, "Unauthorized"), "https://k:6443", "list runs")
            .getMessage()
            .contains(
                "the cluster at https://k:6443 rejected the credentials (401 Unauthorized: the token or certificate is invalid or expired)"));
    assertEquals(
        "cannot list runs: the server is on fire",
        ClusterErrors.of(status(500, "the server is on fire"), "u", "list runs").getMessage());
    KubernetesClientException refused =
        new KubernetesClientException(
            "An error has occurred.",
            new RuntimeException("wrapped", new ConnectException("Connection refused")));
    ClusterAccessException e = ClusterErrors.of(refused, "https://127.0.0.1:1", "list runs");
    assertEquals(
        "cannot list runs: cannot reach the cluster at https://127.0.0.1:1: connection refused",
        e.getMessage());
    assertEquals(ClusterAccessException.CHECK_TARGET, e.hint());
  }
}
