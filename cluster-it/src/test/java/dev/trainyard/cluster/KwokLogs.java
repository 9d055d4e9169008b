package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Container logs served by kwok (v0.8.0, {@code pkg/kwok/server/debugging_logs.go}): kwok's server
 * answers the kubelet's {@code /containerLogs/<ns>/<pod>/<container>} from a file named by a {@code
 * Logs} object ({@code kwok.x-k8s.io/v1alpha1}, one per pod, named as the pod) when started with
 * {@code --enable-crds=Logs}; the API server reaches it through the node's InternalIP and {@code
 * daemonEndpoints.kubeletEndpoint.Port} ({@code --node-ip}, {@code --node-port}), over TLS it does
 * not verify without {@code --kubelet-certificate-authority}. The files are in the CRI log format
 * the kubelet writes ({@code <RFC 3339 nano> stdout F <line>}), read by {@code
 * k8s.io/cri-client/pkg/logs}. kwok's stub runtime reports every container as running, so a
 * followed stream never ends by itself: whoever follows must stop.
 */
final class KwokLogs {

  static final String CRD = "logs.kwok.x-k8s.io";
  static final String API = "kwok.x-k8s.io/v1alpha1";

  private KwokLogs() {}

  /**
   * The Logs CRD of the kwok module the harness built ({@code VERSIONS}: kwok=sigs.k8s.io/kwok@vX),
   * from the Go module cache ({@code $GOMODCACHE}, else {@code $GOPATH/pkg/mod}, else {@code
   * ~/go/pkg/mod}); empty when the module is not there.
   */
  static Optional<Path> crd(K8sBinaries binaries) {
    try {
      Optional<String> module =
          Files.readAllLines(binaries.dir().resolve("VERSIONS")).stream()
              .filter(l -> l.startsWith("kwok="))
              .map(l -> l.substring("kwok=".length()).strip())
              .findFirst();
      return module
          .map(m -> modCache().resolve(m).resolve("kustomize/crd/bases/kwok.x-k8s.io_logs.yaml"))
          .filter(Files::isRegularFile);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Path modCache() {
    Map<String, String> env = System.getenv();
    if (env.get("GOMODCACHE") != null && !env.get("GOMODCACHE").isBlank()) {
      return Path.of(env.get("GOMODCACHE"));
    }
    if (env.get("GOPATH") != null && !env.get("GOPATH").isBlank()) {
      return Path.of(env.get("GOPATH").split(":")[0], "pkg", "mod");
    }
    return Path.of(System.getProperty("user.home"), "go", "pkg", "mod");
  }

  /**
   * Whether {@code client}'s cluster serves the Logs kind (the harness installed the CRD and
   * started kwok with it).
   */
  static boolean served(KubernetesClient client) {
    return client.apiextensions().v1().customResourceDefinitions().withName(CRD).get() != null;
  }

  /**
   * Makes kwok serve {@code file} as the logs of {@code container} in pod {@code pod} of {@code
   * namespace}.
   */
  static void serve(
      KubernetesClient client, String namespace, String pod, String container, Path file) {
    GenericKubernetesResource logs =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(API)
            .withKind("Logs")
            .withNewMetadata()
            .withName(pod)
            .withNamespace(namespace)
            .endMetadata()
            .addToAdditionalProperties(
                "spec",
                Map.of(
                    "logs",
                    List.of(
                        Map.of(
                            "containers",
                            List.of(container),
                            "logsFile",
                            file.toString(),
                            "follow",
                            true))))
            .build();
    client.resource(logs).create();
  }

  /**
   * Appends {@code text} to {@code file} as a partial CRI entry ({@code P}: the line goes on in the
   * next entry, as the kubelet writes a line it has not seen the end of, e.g. a tqdm bar redrawn
   * with {@code \r}), stamped {@code at}.
   */
  static void appendPartial(Path file, Instant at, String text) {
    write(file, at + " stdout P " + text + "\n");
  }

  /** Appends {@code lines} to {@code file} in the CRI format, stamped {@code at}. */
  static void append(Path file, Instant at, String... lines) {
    StringBuilder b = new StringBuilder();
    for (String line : lines) {
      b.append(at).append(" stdout F ").append(line).append('\n');
    }
    write(file, b.toString());
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(
          file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
