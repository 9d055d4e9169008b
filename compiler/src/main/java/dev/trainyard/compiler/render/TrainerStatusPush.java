package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.platform.Platform;
import java.util.List;
import java.util.stream.Stream;

/**
 * Kubeflow Trainer's progress-push contract (KEP-2779, "Track TrainJob progress and expose training
 * metrics"), as Trainyard renders it into every pod of a run when platform.yaml sets {@code
 * progressPush.enabled}: a script, the Kubeflow SDK or Hugging Face Transformers' {@code
 * KubeflowCallback} written for Kubeflow Trainer finds the same env vars and files and reports to
 * the Trainyard controller unchanged. The controller's endpoint reads these constants too.
 *
 * <pre>
 * env:
 * - {name: KUBEFLOW_TRAINER_SERVER_URL, value: https://…:8443/apis/trainer.kubeflow.org/v1alpha1/namespaces/NS/trainjobs/RUN/status}
 * - {name: KUBEFLOW_TRAINER_SERVER_CA_CERT, value: /var/run/secrets/kubeflow/trainer/ca.crt}
 * - {name: KUBEFLOW_TRAINER_SERVER_TOKEN, value: /var/run/secrets/kubeflow/trainer/token}
 * - the same three as KUBEFLOW_TRAINER_STATUS_URL, _CA_CERT, _TOKEN
 * volumes:
 * - name: kubeflow-trainer-token
 *   projected:
 *     sources:
 *     - serviceAccountToken: {audience: progress.trainyard.dev, expirationSeconds: 3600, path: token}
 *     - configMap: {name: trainyard-progress-ca, optional: true, items: [{key: ca.crt, path: ca.crt}]}
 * </pre>
 *
 * <p>Sources (read 2026-12-02): the names, the mount folder, the 3600 s expiry and the URL path are
 * Kubeflow Trainer's {@code pkg/runtime/framework/plugins/trainjobstatus} and {@code
 * pkg/statusserver} (v2.2.0, feature gate {@code TrainJobStatus}); the KEP text
 * (docs/proposals/2779-trainjob-progress) and the Kubeflow SDK's first {@code
 * update_runtime_status} named the variables {@code KUBEFLOW_TRAINER_STATUS_*}, Transformers'
 * {@code KubeflowCallback} and the SDK's {@code update_trainjob_status} read {@code
 * KUBEFLOW_TRAINER_SERVER_*}; both sets are rendered so either finds them. Where Kubeflow's path
 * names a TrainJob, Trainyard's names the run (the JobSet). Kubeflow's shipped server binds each
 * token to its TrainJob by a per-job audience; Trainyard uses one audience, as the KEP text does,
 * and binds the token to the run by the pod it names (the controller checks the pod's JobSet
 * label), so the audience needs no per-run value.
 */
public final class TrainerStatusPush {

  /** The audience of the projected token; the controller's TokenReview asks for exactly this. */
  public static final String AUDIENCE = "progress.trainyard.dev";

  /** Seconds the projected token lives; the kubelet rotates it at 80 % of this. */
  public static final int TOKEN_EXPIRY_SECONDS = 3600;

  /** The folder of the token and CA files in every container (Kubeflow's). */
  public static final String MOUNT = "/var/run/secrets/kubeflow/trainer";

  /** The projected volume's name (Kubeflow's). */
  public static final String VOLUME = "kubeflow-trainer-token";

  /** The env var of the endpoint URL: the shipped name, then the KEP's. */
  public static final List<String> URL_ENV =
      List.of("KUBEFLOW_TRAINER_SERVER_URL", "KUBEFLOW_TRAINER_STATUS_URL");

  /** The env var of the CA file's path: the shipped name, then the KEP's. */
  public static final List<String> CA_ENV =
      List.of("KUBEFLOW_TRAINER_SERVER_CA_CERT", "KUBEFLOW_TRAINER_STATUS_CA_CERT");

  /** The env var of the token file's path: the shipped name, then the KEP's. */
  public static final List<String> TOKEN_ENV =
      List.of("KUBEFLOW_TRAINER_SERVER_TOKEN", "KUBEFLOW_TRAINER_STATUS_TOKEN");

  /** The path prefix before the namespace (Kubeflow's {@code statusserver.StatusUrl}). */
  public static final String PATH_PREFIX = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";

  /** Between the namespace and the run's name. */
  public static final String PATH_RUNS = "/trainjobs/";

  /** After the run's name. */
  public static final String PATH_SUFFIX = "/status";

  private TrainerStatusPush() {}

  /** The URL path for run {@code name} in {@code namespace}. */
  public static String path(String namespace, String name) {
    return PATH_PREFIX + namespace + PATH_RUNS + name + PATH_SUFFIX;
  }

  /** Every env var name this contract sets: train.yaml may not set them while push is on. */
  public static List<String> envNames() {
    return Stream.of(URL_ENV, CA_ENV, TOKEN_ENV).flatMap(List::stream).toList();
  }

  /** Adds the contract's variables for run {@code name} in {@code namespace} to {@code env}. */
  static void env(EnvList env, Platform.ProgressPush push, String namespace, String name) {
    String url = push.url() + path(namespace, name);
    URL_ENV.forEach(n -> env.put(n, url));
    CA_ENV.forEach(n -> env.put(n, MOUNT + "/ca.crt"));
    TOKEN_ENV.forEach(n -> env.put(n, MOUNT + "/token"));
  }

  /** The read-only mount of the token and CA folder. */
  static void mount(ArrayNode mounts) {
    mounts.addObject().put("name", VOLUME).put("mountPath", MOUNT).put("readOnly", true);
  }

  /**
   * The projected volume: the token for {@link #AUDIENCE} and the CA from {@code caConfigMap},
   * optional so a namespace without it still runs (a push then fails its TLS check, never the run).
   */
  static void volume(ArrayNode volumes, Platform.ProgressPush push) {
    ArrayNode sources =
        volumes.addObject().put("name", VOLUME).putObject("projected").putArray("sources");
    sources
        .addObject()
        .putObject("serviceAccountToken")
        .put("audience", AUDIENCE)
        .put("expirationSeconds", TOKEN_EXPIRY_SECONDS)
        .put("path", "token");
    ObjectNode ca = sources.addObject().putObject("configMap");
    ca.put("name", push.caConfigMap()).put("optional", true);
    ca.putArray("items").addObject().put("key", "ca.crt").put("path", "ca.crt");
  }
}
