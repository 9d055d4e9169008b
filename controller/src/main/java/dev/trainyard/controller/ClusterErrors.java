package dev.trainyard.controller;

import dev.trainyard.compiler.cluster.ClusterDryRun;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One line for a failed Kubernetes call instead of the client's generic "An error has occurred." or
 * its printed Status object: the cause unwrapped (connection refused, unknown host, timeout, with
 * the server's URL), 401 as rejected credentials, 403 as "forbidden: User "u" cannot list jobsets
 * in namespace "ns"" parsed from the API server's RBAC message (k8s apiserver authorization: {@code
 * User "u" cannot VERB resource "R" in API group "G" in the namespace "NS"}), with an RBAC hint.
 */
final class ClusterErrors {

  private static final Pattern FORBIDDEN =
      Pattern.compile(
          "User \"([^\"]*)\" cannot (\\w+) resource \"([^\"]+)\"(?: in API group \"[^\"]*\")?"
              + "(?: in the namespace \"([^\"]+)\")?");
  static final String RBAC =
      "ask your platform team for a Role that lets you get, list and watch jobsets, pods,"
          + " pods/log and workloads in that namespace";

  private ClusterErrors() {}

  /**
   * {@code e} from a call to {@code server} while doing {@code what} ("list runs") as one
   * exception.
   */
  static ClusterAccessException of(KubernetesClientException e, String server, String what) {
    if (e.getCode() == 403) {
      return new ClusterAccessException("cannot " + what + ": " + forbidden(e), RBAC, e);
    }
    if (e.getCode() == 401) {
      return new ClusterAccessException(
          "cannot "
              + what
              + ": the cluster at "
              + server
              + " rejected the credentials (401 Unauthorized: the token or certificate is invalid or expired)",
          "log in again or refresh the kubeconfig's credentials",
          e);
    }
    if (e.getCode() > 0) {
      String said =
          e.getStatus() == null || e.getStatus().getMessage() == null
              ? "HTTP " + e.getCode()
              : e.getStatus().getMessage();
      return new ClusterAccessException("cannot " + what + ": " + said, e);
    }
    if (String.valueOf(e.getMessage()).startsWith(NO_API)) {
      return new ClusterAccessException(
          "cannot "
              + what
              + ": the cluster at "
              + server
              + " has no API for it (JobSet's or Kueue's CRD is not installed there)",
          "install JobSet 0.8+ and Kueue 0.15+ on that cluster, or point --kubeconfig/--context at"
              + " the cluster the runs go to",
          e);
    }
    if (ClusterDryRun.notKubernetes(e)) {
      return new ClusterAccessException(
          "cannot "
              + what
              + ": the server at "
              + server
              + " did not answer as a Kubernetes API server does (its answer is not Kubernetes"
              + " JSON)",
          "check the kubeconfig's server URL: a wrong port, a proxy or a login page answer like"
              + " this",
          e);
    }
    return new ClusterAccessException("cannot " + what + ": " + unreachable(e, server), e);
  }

  /**
   * The start of fabric8's message when API discovery finds no API for an apiVersion and kind (an
   * API server without that CRD).
   */
  static final String NO_API = "Could not find the metadata for the given apiVersion and kind";

  /** "forbidden: User "u" cannot list jobsets in namespace "ns"", else the server's own message. */
  static String forbidden(KubernetesClientException e) {
    String message =
        e.getStatus() == null || e.getStatus().getMessage() == null
            ? ""
            : e.getStatus().getMessage();
    Matcher m = FORBIDDEN.matcher(message);
    if (!m.find()) {
      return message.isEmpty() ? "forbidden (403)" : message;
    }
    String where =
        m.group(4) == null ? " at cluster scope" : " in namespace \"" + m.group(4) + "\"";
    return "forbidden: User \"" + m.group(1) + "\" cannot " + m.group(2) + " " + m.group(3) + where;
  }

  /** Why {@code server} did not answer, from the innermost cause. */
  static String unreachable(Throwable e, String server) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
      if (t instanceof ConnectException
          || t instanceof UnknownHostException
          || t instanceof SocketTimeoutException) {
        break;
      }
    }
    String why =
        t instanceof ConnectException
            ? "connection refused"
            : t instanceof UnknownHostException
                ? "unknown host " + t.getMessage()
                : t instanceof SocketTimeoutException
                    ? "no answer (timed out)"
                    : t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return "cannot reach the cluster at " + server + ": " + why;
  }
}
