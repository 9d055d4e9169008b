package dev.trainyard.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
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
