package dev.trainyard.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.trainyard.compiler.render.TrainerStatusPush;
import dev.trainyard.controller.progress.TrainerStatusPayload;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * The endpoint a run's own pods push their progress to, in Kubeflow Trainer's KEP-2779 contract
 * ({@link TrainerStatusPush}), over HTTPS: {@code POST
 * /apis/trainer.kubeflow.org/v1alpha1/namespaces/NAMESPACE/trainjobs/RUN/status} with {@code
 * Authorization: Bearer <the pod's projected token>} and the {@code {"trainerStatus": …}} body
 * ({@link TrainerStatusPayload}), where RUN is the run's JobSet. An accepted push is kept in {@link
 * PushedProgress} and the run's key is queued, so the reconciler reads it at once.
 *
 * <p>Answers, each a Kubernetes {@code Status} JSON object on refusal (as Kubeflow's status server
 * answers; never echoing the token):
 *
 * <ul>
 *   <li>200 and the body as sent: accepted (a body without {@code trainerStatus} changes nothing);
 *   <li>400: the body is not the payload (the message names the field; Kubeflow answers 422);
 *   <li>401: no bearer token, or the API server's TokenReview does not authenticate it for {@link
 *       TrainerStatusPush#AUDIENCE};
 *   <li>403: the token is valid but not a pod's of this run: another namespace, a token not bound
 *       to a pod, a pod that is gone (name or uid) or whose {@code jobset.sigs.k8s.io/jobset-name}
 *       label names another run;
 *   <li>404 another path, 405 another method, 413 a body over {@link #MAX_BODY} bytes (Kubeflow's
 *       64 KiB), 429 the run's budget ({@link PushedProgress}: 20 at once, 2 a second) or the
 *       controller's review budget is spent ({@code Retry-After} in seconds), 503 the TokenReview
 *       failed.
 * </ul>
 *
 * Sources: Kubeflow Trainer {@code pkg/statusserver} (server.go, auth.go; v2.2.0) and KEP-2779
 * "Control plane endpoint" and "Security considerations".
 */
public final class ProgressEndpoint implements AutoCloseable {

  /** The largest body accepted, in bytes (Kubeflow's {@code maxBodySize}, 64 KiB). */
  public static final int MAX_BODY = 1 << 16;

  private static final Pattern PATH =
      Pattern.compile(
          Pattern.quote(TrainerStatusPush.PATH_PREFIX)
              + "([a-z0-9]([-a-z0-9]*[a-z0-9])?)"
              + Pattern.quote(TrainerStatusPush.PATH_RUNS)
              + "([a-z0-9]([-a-z0-9]*[a-z0-9])?)"
              + Pattern.quote(TrainerStatusPush.PATH_SUFFIX));
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final System.Logger LOG = System.getLogger(ProgressEndpoint.class.getName());

  /**
   * What the endpoint works with: who a token is, a pod by namespace and name (from the informer
   * cache), where accepted progress goes, the queue, the clock for pushes that name no time, and
   * who counts the answers (their HTTP status: {@link ControllerMetrics#pushed}).
   */
  public record Parts(
      Function<String, PodTokenReview.Identity> reviewer,
      BiFunction<String, String, Optional<Pod>> pods,
      PushedProgress store,
      Consumer<RunKey> enqueue,
      Clock clock,
      IntConsumer answered) {}

  /** A refusal: HTTP status, Kubernetes reason, message. */
  private record Refusal(int code, String reason, String message) {}

  private final HttpsServer server;
  private final Parts parts;
  private final ExecutorService threads =
      Executors.newFixedThreadPool(
          4,
          r -> {
            Thread t = new Thread(r, "trainyard-progress");
            t.setDaemon(true);
            return t;
          });

  /**
   * Serves on {@code address} (port 0: a free one) with {@code tls}.
   *
   * @throws UncheckedIOException "cannot listen on ADDRESS: …" when the port is taken
   */
  public ProgressEndpoint(InetSocketAddress address, SSLContext tls, Parts parts) {
    this.parts = parts;
    try {
      server = HttpsServer.create(address, 64);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot listen on " + address.getHostString() + ":" + address.getPort() + " for pushes",
          e);
    }
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.createContext("/", this::handle);
    server.setExecutor(threads);
    server.start();
  }

  /** The bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      Matcher path = PATH.matcher(ex.getRequestURI().getRawPath());
      if (!path.matches()) {
        refuse(ex, new Refusal(404, "NotFound", "not found: push to " + pathHint()));
        return;
      }
      if (!"POST".equals(ex.getRequestMethod())) {
        ex.getResponseHeaders().set("Allow", "POST");
        refuse(ex, new Refusal(405, "MethodNotAllowed", "only POST is served here"));
        return;
      }
      RunKey run = new RunKey(path.group(1), path.group(3));
      Optional<Refusal> refusal = admit(ex, run);
      if (refusal.isPresent()) {
        refuse(ex, refusal.get());
        return;
      }
      byte[] body = readAtMost(ex.getRequestBody(), MAX_BODY);
      if (body.length > MAX_BODY) {
        refuse(ex, tooLarge());
        return;
      }
      TrainerStatusPayload.Parsed parsed =
          TrainerStatusPayload.parse(body, parts.clock().instant());
      if (parsed.refused()) {
        refuse(ex, new Refusal(400, "BadRequest", parsed.error()));
        return;
      }
      if (parsed.progress().isPresent()) {
        parts.store().accept(run, parsed.progress().get());
        parts.enqueue().accept(run);
      }
      answer(ex, 200, body);
    }
  }

  /** Why {@code ex} may not push for {@code run}; empty when it may. */
  private Optional<Refusal> admit(HttpExchange ex, RunKey run) {
    String length = ex.getRequestHeaders().getFirst("Content-Length");
    if (length != null
        && length.trim().matches("[0-9]{1,18}")
        && Long.parseLong(length.trim()) > MAX_BODY) {
      return Optional.of(tooLarge());
    }
    String token = bearer(ex.getRequestHeaders().getFirst("Authorization"));
    if (token.isEmpty()) {
      return Optional.of(
          new Refusal(
              401,
              "Unauthorized",
              "no bearer token: send Authorization: Bearer <the file named by "
                  + TrainerStatusPush.TOKEN_ENV.get(0)
                  + ">"));
    }
    PodTokenReview.Identity who = parts.reviewer().apply(token);
    Optional<Refusal> refusal = authorize(who, run);
    if (refusal.isEmpty() && !parts.store().admit(run)) {
      return Optional.of(
          busy(
              ex,
              retryAfterSeconds(parts.store().untilNext(run)),
              "run "
                  + run.name()
                  + " pushes more than "
                  + (int) PushedProgress.PER_SECOND
                  + " a second (bursts of "
                  + PushedProgress.BURST
                  + "); push from rank 0 only, at most every few seconds"));
    }
    if (refusal.isPresent() && refusal.get().code() == 429) {
      return Optional.of(busy(ex, 1, refusal.get().message()));
    }
    return refusal;
  }

  /** Whether {@code who} may push for {@code run}: the KEP's rule, the pod belongs to the run. */
  private Optional<Refusal> authorize(PodTokenReview.Identity who, RunKey run) {
    switch (who.kind()) {
      case INVALID:
        return Optional.of(
            new Refusal(
                401,
                "Unauthorized",
                "the token is not valid for audience "
                    + TrainerStatusPush.AUDIENCE
                    + " (expired, or not a projected token of this cluster's pods)"));
      case UNAVAILABLE:
        return Optional.of(
            new Refusal(
                503, "ServiceUnavailable", "the token cannot be reviewed now; retry later"));
      case BUSY:
        return Optional.of(
            new Refusal(429, "TooManyRequests", "too many new tokens to review now; retry later"));
      default:
        break;
    }
    if (who.pod().isEmpty()) {
      return Optional.of(
          forbidden("the token is not bound to a pod; send the pod's projected token"));
    }
    if (!who.namespace().equals(run.namespace())) {
      return Optional.of(
          forbidden(
              "the token's pod is in namespace " + who.namespace() + ", not " + run.namespace()));
    }
    Optional<Pod> pod = parts.pods().apply(run.namespace(), who.pod());
    if (pod.isEmpty() || !who.uid().equals(pod.get().getMetadata().getUid())) {
      return Optional.of(forbidden("pod " + who.pod() + " is gone or belongs to no run"));
    }
    Map<String, String> labels = pod.get().getMetadata().getLabels();
    String owner = labels == null ? null : labels.get(Snapshots.JOBSET_NAME);
    if (!run.name().equals(owner)) {
      return Optional.of(
          forbidden(
              "pod "
                  + who.pod()
                  + " belongs to "
                  + (owner == null ? "no run" : "run " + owner)
                  + ", not "
                  + run.name()));
    }
    return Optional.empty();
  }

  /** Whole seconds to wait for {@code wait}, rounded up, at least 1 (HTTP's Retry-After). */
  static long retryAfterSeconds(Duration wait) {
    return Math.max(1, (wait.toMillis() + 999) / 1000);
  }

  private static Refusal forbidden(String message) {
    return new Refusal(403, "Forbidden", message);
  }

  private static Refusal tooLarge() {
    return new Refusal(
        413, "RequestEntityTooLarge", "the body is over " + MAX_BODY + " bytes (64 KiB)");
  }

  private static Refusal busy(HttpExchange ex, long seconds, String message) {
    ex.getResponseHeaders().set("Retry-After", Long.toString(Math.max(1, seconds)));
    return new Refusal(429, "TooManyRequests", message);
  }

  /** The token of an {@code Authorization: Bearer …} header ("" when there is none). */
  static String bearer(String header) {
    if (header == null) {
      return "";
    }
    String h = header.trim();
    if (h.length() < 7 || !h.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
      return "";
    }
    String token = h.substring(7).trim();
    return token.contains(" ") ? "" : token;
  }

  private static String pathHint() {
    return TrainerStatusPush.path("NAMESPACE", "RUN")
        + " (the URL in $"
        + TrainerStatusPush.URL_ENV.get(0)
        + ")";
  }

  /** Up to {@code max + 1} bytes of {@code in}: one more than allowed says "too large". */
  static byte[] readAtMost(InputStream in, int max) throws IOException {
    return in.readNBytes(max + 1);
  }

  private void refuse(HttpExchange ex, Refusal r) throws IOException {
    LOG.log(
        System.Logger.Level.DEBUG,
        () ->
            "push to "
                + ex.getRequestURI().getRawPath()
                + " refused: "
                + r.code()
                + " "
                + r.message());
    ObjectNode status = JSON.createObjectNode();
    status.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure");
    status.put("message", r.message()).put("reason", r.reason()).put("code", r.code());
    answer(ex, r.code(), JSON.writeValueAsBytes(status));
  }

  private void answer(HttpExchange ex, int code, byte[] body) throws IOException {
    parts.answered().accept(code);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, body.length);
    ex.getResponseBody().write(body);
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
