package dev.trainyard.cluster.netns;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The test cluster's API server as a pod sees it: the kubelet's service-account files at {@code
 * /var/run/secrets/kubernetes.io/serviceaccount/} ({@code token} from a TokenRequest for the pod's
 * ServiceAccount, {@code ca.crt}, {@code namespace}) and the service env {@code
 * KUBERNETES_SERVICE_HOST} / {@code KUBERNETES_SERVICE_PORT} (here 127.0.0.1 and the API server's
 * port, reached through {@link ApiServerRelay}), which is what a client's in-cluster configuration
 * reads.
 *
 * @param relay the JVM side of the relay
 * @param token a bearer token of the pod's ServiceAccount
 * @param caPem the API server's CA certificate, PEM
 * @param namespace the namespace the run was applied to
 */
record PodApiAccess(ApiServerRelay relay, String token, String caPem, String namespace) {
  static final String SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

  Map<String, String> serviceEnv() {
    return Map.of(
        "KUBERNETES_SERVICE_HOST",
        "127.0.0.1",
        "KUBERNETES_SERVICE_PORT",
        Integer.toString(relay.port()));
  }

  /**
   * Writes the three files (0644, as the kubelet's projected token volume) and returns their
   * read-only mount.
   */
  PodVolumes.Mount serviceAccountMount(Path podDir) {
    Path dir = podDir.resolve("serviceaccount");
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("token"), token);
      Files.writeString(dir.resolve("ca.crt"), caPem);
      Files.writeString(dir.resolve("namespace"), namespace);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new PodVolumes.Mount(SERVICE_ACCOUNT_DIR, Optional.of(dir), "", true);
  }

  /**
   * Starts the namespace side of the relay in {@code host} (Debian's python3), logging to the pod
   * folder.
   */
  void startRelay(HostNetwork.Host host, Path podDir) {
    ProcessBuilder pb =
        new ProcessBuilder(
            List.of(
                "ip",
                "netns",
                "exec",
                host.netns(),
                "/usr/bin/python3",
                "-c",
                ApiServerRelay.NAMESPACE_SIDE,
                Integer.toString(relay.port()),
                relay.socket().toString()));
    pb.redirectErrorStream(true).redirectOutput(podDir.resolve("api-relay.log").toFile());
    try {
      pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (HostCommand.run(
              "ip", "netns", "exec", host.netns(), "ss", "-Hltn", "sport = :" + relay.port())
          .output()
          .contains(":")) {
        return;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new IllegalStateException(
        "the API relay did not listen in " + host.netns() + " within 10s");
  }
}
