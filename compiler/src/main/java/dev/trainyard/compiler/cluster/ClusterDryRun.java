package dev.trainyard.compiler.cluster;

import com.fasterxml.jackson.core.JacksonException;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.resolve.ResolvedJob;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamedCluster;
import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code trainyard validate --cluster}: sends every compiled object to a real API server as a
 * server-side apply with {@code dryRun=All}, so the CRD schemas, CEL rules and admission webhooks
 * (JobSet, Kueue) judge exactly what git would hold, and nothing is stored. Each rejection becomes
 * a diagnostic at the {@code train.yaml} field that produced the rejected field ({@link
 * FieldOrigin}). The only class that imports fabric8.
 *
 * <p>Errors: an unreachable cluster or bad kubeconfig throws {@link ClusterUnavailableException}
 * (an environment problem, exit 3); rejections are diagnostics (exit 1).
 */
public final class ClusterDryRun implements AutoCloseable {
  private static final String FIELD_MANAGER = "trainyard";
  private static final int REQUEST_TIMEOUT_MS = 30_000;
  private final KubernetesClient client;

  private ClusterDryRun(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Connects with {@code kubeconfig} (else {@code $KUBECONFIG} or {@code ~/.kube/config}, else
   * in-cluster; {@link Kubeconfigs}) and {@code context} (else the current one).
   *
   * @throws ClusterUnavailableException (exit 3) when there is no kubeconfig (naming where it
   *     looked), it is not YAML (at its line and column) or not a kubeconfig, it lacks the context,
   *     or the cluster does not answer
   */
  public static ClusterDryRun connect(Optional<Path> kubeconfig, Optional<String> context) {
    Config config = limited(clientConfig(kubeconfig, context));
    try {
      ClusterDryRun dryRun =
          new ClusterDryRun(new KubernetesClientBuilder().withConfig(config).build());
      dryRun.ping(config.getMasterUrl());
      return dryRun;
    } catch (KubernetesClientException e) {
      throw new ClusterUnavailableException(
          "cannot configure the Kubernetes client: " + rootMessage(e), e);
    }
  }

  /**
   * The home folder as kubectl finds it: {@code $HOME} when set (client-go {@code
   * homedir.HomeDir}), else Java's {@code user.home}.
   */
  static Path home(Map<String, String> env) {
    String home = env.get("HOME");
    return Path.of(home == null || home.isBlank() ? System.getProperty("user.home") : home);
  }

  /**
   * The model of the kubeconfig at {@code file}, checked to be YAML first (never echoed), its
   * servers checked to be URLs.
   */
  private static io.fabric8.kubernetes.api.model.Config model(Path file) {
    String text = Kubeconfigs.read(file);
    io.fabric8.kubernetes.api.model.Config model =
        Serialization.unmarshal(text, io.fabric8.kubernetes.api.model.Config.class);
    for (var cluster : listOf(model.getClusters())) {
      String server = cluster.getCluster() == null ? null : cluster.getCluster().getServer();
      if (server != null && !server.startsWith("https://") && !server.startsWith("http://")) {
        // fabric8 takes a server without a scheme for a host name and probes it over HTTPS while
        // reading the file (Config.ensureHttps); found by KubeconfigFuzzTest's network sanitizer.
        throw new ClusterUnavailableException(
            file
                + ": the kubeconfig's cluster \""
                + cluster.getName()
                + "\" has a server that is not an https:// or http:// URL",
            null);
      }
    }
    return model;
  }

  private static <T> List<T> listOf(List<T> list) {
    return list == null ? List.of() : list;
  }

  /**
   * Checks the context a connection would use, on {@code models} merged as kubectl merges the files
   * of {@code $KUBECONFIG} (the first file that names a context, a cluster or a current-context
   * wins): without one fabric8 quietly falls back to the in-cluster address
   * (https://kubernetes.default.svc), which then fails to resolve, and a cluster without a server
   * ends in a NullPointerException's words. Each mistake is named instead, as kubectl names it
   * ("context was not found for specified context").
   *
   * @param shown the files, for messages ({@code a.yaml:b.yaml} for several)
   * @throws ClusterUnavailableException (exit 3) naming the mistake and what the files have
   */
  private static void checkChoice(
      String shown, List<io.fabric8.kubernetes.api.model.Config> models, Optional<String> context) {
    Map<String, NamedContext> contexts = new LinkedHashMap<>();
    Map<String, NamedCluster> clusters = new LinkedHashMap<>();
    String current = null;
    for (var m : models) {
      listOf(m.getContexts()).forEach(c -> contexts.putIfAbsent(c.getName(), c));
      listOf(m.getClusters()).forEach(c -> clusters.putIfAbsent(c.getName(), c));
      if (current == null && m.getCurrentContext() != null && !m.getCurrentContext().isBlank()) {
        current = m.getCurrentContext();
      }
    }
    List<String> names = contexts.keySet().stream().sorted().toList();
    String has = names.isEmpty() ? "" : " (it has: " + String.join(", ", names) + ")";
    if (context.isPresent() && !contexts.containsKey(context.get())) {
      throw new ClusterUnavailableException(
          "kubeconfig has no context \"" + context.get() + "\"" + has, null);
    }
    if (context.isEmpty() && (current == null || !contexts.containsKey(current))) {
      throw new ClusterUnavailableException(
          shown
              + (current == null
                  ? ": the kubeconfig sets no current-context"
                  : ": the kubeconfig's current-context \""
                      + current
                      + "\" is none of its contexts")
              + (names.isEmpty()
                  ? " and has no contexts"
                  : has + ": pick one with --context or `kubectl config use-context`"),
          null);
    }
    String chosen = context.orElse(current);
    NamedContext named = contexts.get(chosen);
    String cluster = named.getContext() == null ? null : named.getContext().getCluster();
    if (cluster == null || !clusters.containsKey(cluster)) {
      throw new ClusterUnavailableException(
          shown
              + ": the kubeconfig's context \""
              + chosen
              + "\" names "
              + (cluster == null || cluster.isBlank()
                  ? "no cluster"
                  : "cluster \"" + cluster + "\", which it does not define"),
          null);
    }
    NamedCluster c = clusters.get(cluster);
    if (c.getCluster() == null
        || c.getCluster().getServer() == null
        || c.getCluster().getServer().isBlank()) {
      throw new ClusterUnavailableException(
          shown + ": the kubeconfig's cluster \"" + cluster + "\" has no server", null);
    }
  }

  /**
   * The client configuration every Trainyard command that talks to a cluster shares ({@code
   * validate --cluster}, {@code status}, {@code logs}, the controller outside a pod): the
   * kubeconfig files {@link Kubeconfigs} locates (flag; the files of {@code $KUBECONFIG}, merged as
   * kubectl merges them; {@code ~/.kube/config}; else the in-cluster service account), each checked
   * to be YAML first, so a broken file is reported at its line and column and never echoed (a
   * kubeconfig line can hold a bearer token), with {@code context} (else the current one).
   *
   * @throws ClusterUnavailableException (exit 3) when there is no kubeconfig (naming where it
   *     looked), it is not YAML or not a kubeconfig, or the context (given, else the current one)
   *     is missing (listing the contexts it has) or names a cluster it lacks or one without a
   *     server
   */
  public static Config clientConfig(Optional<Path> kubeconfig, Optional<String> context) {
    List<Path> files = Kubeconfigs.locate(kubeconfig, System.getenv(), home(System.getenv()));
    String shown =
        files.isEmpty()
            ? "(in-cluster)"
            : String.join(":", files.stream().map(Path::toString).toList());
    try {
      Config config;
      if (files.isEmpty()) {
        config = Config.autoConfigure(context.orElse(null));
      } else {
        checkChoice(shown, files.stream().map(ClusterDryRun::model).toList(), context);
        // Several files: fabric8 merges $KUBECONFIG's files itself, in kubectl's order, each
        // relative path against its own file's folder.
        config =
            files.size() == 1
                ? Config.fromKubeconfig(context.orElse(null), files.get(0).toFile())
                : Config.autoConfigure(context.orElse(null));
      }
      return checkedServer(config, shown);
    } catch (ClusterUnavailableException e) {
      throw e;
    } catch (RuntimeException e) {
      // fabric8 throws its YAML mapper's exceptions for a kubeconfig that is YAML but not a
      // kubeconfig; their message can quote the file, so only the innermost cause's class and
      // location-free words are kept.
      throw new ClusterUnavailableException(
          "kubeconfig " + shown + " is not a valid kubeconfig: " + safeRootMessage(e), e);
    }
  }

  /**
   * {@code config} with a server URL that can be shown: one that is no URL (a space, a stray
   * character) is refused without quoting it, and a {@code user:password@} part, which would
   * otherwise be printed in every message naming the server, moves to the client's basic-auth
   * username and password (what it meant: Go's client, like kubectl, sends a URL's user info as
   * basic auth) unless the kubeconfig sets them already.
   *
   * @param where the kubeconfig's path, for the message
   * @throws ClusterUnavailableException (exit 3) when the server is missing or not a URL
   */
  static Config checkedServer(Config config, String where) {
    String url = config.getMasterUrl();
    URI uri;
    try {
      uri = new URI(url == null ? "" : url);
    } catch (URISyntaxException e) {
      throw new ClusterUnavailableException(
          "kubeconfig "
              + where
              + ": the cluster's server is not a URL ("
              + e.getReason()
              + " at character "
              + (e.getIndex() + 1)
              + ")",
          null);
    }
    if (uri.getHost() == null || uri.getPort() > 65_535) {
      throw new ClusterUnavailableException(
          "kubeconfig "
              + where
              + ": the cluster's server names no host or a port over 65535"
              + " (expected https://HOST[:PORT])",
          null);
    }
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      if (config.getUsername() == null && config.getPassword() == null) {
        config.setUsername(decoded(colon < 0 ? userInfo : userInfo.substring(0, colon)));
        config.setPassword(colon < 0 ? null : decoded(userInfo.substring(colon + 1)));
      }
      config.setMasterUrl(url.replace(userInfo + "@", ""));
    }
    return config;
  }

  private static String decoded(String part) {
    return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /**
   * {@code config} with the dry run's limits: at most 10 s to connect (fabric8's default, {@code
   * Config} {@code DEFAULT_CONNECTION_TIMEOUT}, kept), 30 s per request and no retries, so a dead
   * or hanging cluster is reported within seconds instead of after fabric8's 10 retries with
   * backoff.
   */
  static Config limited(Config config) {
    config.setRequestTimeout(REQUEST_TIMEOUT_MS);
    config.setRequestRetryBackoffLimit(0);
    return config;
  }

  /**
   * Asks the server for its version, so an unreachable cluster is an environment error, not a
   * rejection.
   */
  private void ping(String url) {
    try {
      client.getKubernetesVersion();
    } catch (KubernetesClientException e) {
      client.close();
      throw new ClusterUnavailableException(
          "the cluster at "
              + url
              + (notKubernetes(e)
                  ? " did not answer as a Kubernetes API server does (its answer is not Kubernetes"
                      + " JSON: a wrong port, a proxy or a login page?)"
                  : " did not answer: " + rootMessage(e)),
          e);
    }
  }

  /**
   * Whether a failed Kubernetes call's answer could not be read as Kubernetes JSON (an HTML page
   * from a wrong port, a proxy or a login page; a cut-off body): a Jackson error among the causes.
   * fabric8 reports such an answer with the JSON reader's own words ("Cannot construct instance of
   * `…VersionInfo`").
   *
   * @param e the failure, e.g. a {@code KubernetesClientException}
   */
  public static boolean notKubernetes(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof JacksonException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The innermost cause's first line, cut at its first quote: what follows a quote may be a value
   * of the file, and a kubeconfig holds tokens. Quoted values cannot be masked one by one, as a
   * value may itself hold a quote (KubeconfigFuzzTest found {@code ('a-id' b tok-…')} leaking its
   * middle). A Jackson error adds where it is in the file ({@code line 4, column 3}).
   */
  static String safeRootMessage(Throwable e) {
    String m = rootMessage(e);
    int cut = m.indexOf('\n');
    m = cut < 0 ? m : m.substring(0, cut);
    int source = m.indexOf(" at [Source");
    m = source < 0 ? m : m.substring(0, source);
    int single = m.indexOf('\'');
    int dq = m.indexOf('"');
    int quote = single < 0 ? dq : dq < 0 ? single : Math.min(single, dq);
    m = quote < 0 ? m : m.substring(0, quote) + "'…'";
    return m;
  }

  /** The innermost cause's message, or its class name when it has none. */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) { // a Throwable cannot be its own cause (initCause refuses it)
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  /**
   * Dry-runs every YAML file of {@code tree} except kustomization files; one diagnostic per
   * rejection cause.
   */
  public List<Diagnostic> check(OutputTree tree, ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    for (Map.Entry<String, String> file : tree.files().entrySet()) {
      if (!file.getKey().endsWith("/kustomization.yaml")) {
        GenericKubernetesResource object =
            Serialization.unmarshal(file.getValue(), GenericKubernetesResource.class);
        out.addAll(dryRun(object, file.getKey(), job));
      }
    }
    return out;
  }

  private List<Diagnostic> dryRun(GenericKubernetesResource object, String file, ResolvedJob job) {
    try {
      client
          .resource(object)
          .dryRun()
          .fieldManager(FIELD_MANAGER)
          .forceConflicts()
          .serverSideApply();
      return List.of();
    } catch (KubernetesClientException e) {
      if (environmentFailure(e.getCode())) {
        throw new ClusterUnavailableException("the cluster did not answer: " + rootMessage(e), e);
      }
      return rejection(e, object, file, job);
    }
  }

  /**
   * Whether a failed dry run is the cluster's fault, not the object's: no HTTP answer (fabric8 code
   * 0) or 401 (the token expired since the version ping); every other status is the server judging
   * the object.
   */
  static boolean environmentFailure(int httpCode) {
    return httpCode == 0 || httpCode == 401;
  }

  private static List<Diagnostic> rejection(
      KubernetesClientException e, GenericKubernetesResource object, String file, ResolvedJob job) {
    String what = object.getKind() + " " + object.getMetadata().getName();
    Status status = e.getStatus();
    List<StatusCause> causes =
        status == null || status.getDetails() == null ? List.of() : status.getDetails().getCauses();
    if (status == null && unserved(e)) {
      return List.of(
          FieldOrigin.diagnostic(
                  job,
                  "",
                  "the cluster has no API for "
                      + object.getApiVersion()
                      + " "
                      + object.getKind()
                      + " ("
                      + what
                      + ", "
                      + file
                      + "): its CRD is not installed there")
              .withHint(
                  "install what serves "
                      + object.getApiVersion()
                      + " on that cluster (JobSet 0.8+ for jobset.x-k8s.io/v1alpha2, Kueue 0.15+"
                      + " for kueue.x-k8s.io/v1beta2), or point --kubeconfig/--context at the"
                      + " cluster the runs go to"));
    }
    String reason = status == null ? clientSide(e) : status.getMessage();
    if (causes.isEmpty()) {
      return List.of(
          FieldOrigin.diagnostic(
              job, "", "the cluster rejected " + what + " (" + file + "): " + reason));
    }
    List<Diagnostic> out = new ArrayList<>();
    for (StatusCause cause : causes) {
      String field = cause.getField() == null ? "" : cause.getField();
      out.add(
          FieldOrigin.diagnostic(
              job,
              field,
              "the cluster rejected "
                  + what
                  + ": "
                  + (field.isEmpty() ? "" : field + ": ")
                  + cause.getMessage()));
    }
    return out;
  }

  /**
   * Whether fabric8 refused the object before sending it because the server lists no API for its
   * apiVersion and kind (kubectl: "no matches for kind … ensure CRDs are installed first").
   */
  static boolean unserved(KubernetesClientException e) {
    return e.getStatus() == null
        && String.valueOf(e.getMessage()).startsWith("Could not find a registered handler");
  }

  /**
   * A client-side failure without a server status, as far as it can be shown: fabric8's messages
   * print the whole object (a container's env values included) after a {@code [} or {@code (}, so
   * the message ends before the first of those, a quote or a line break.
   */
  static String clientSide(KubernetesClientException e) {
    String m = String.valueOf(e.getMessage());
    int cut = m.length();
    for (char c : new char[] {'[', '(', '\'', '"', '\n'}) {
      int at = m.indexOf(c);
      cut = at < 0 ? cut : Math.min(cut, at);
    }
    return m.substring(0, cut).strip() + (cut < m.length() ? " …" : "");
  }

  @Override
  public void close() {
    client.close();
  }

  /**
   * The cluster could not be reached or configured: an environment problem, not the user's file.
   */
  public static final class ClusterUnavailableException extends UncheckedIOException {
    private static final long serialVersionUID = 1L;

    ClusterUnavailableException(String message, Exception cause) {
      super(message, cause instanceof IOException io ? io : new IOException(message, cause));
    }
  }
}
