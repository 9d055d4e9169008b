package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.net.HttpURLConnection;
import java.util.function.UnaryOperator;

/**
 * Read-modify-write of an object that controllers write too. fabric8's {@code edit} sends the
 * object's {@code resourceVersion}, so a kubelet simulation, JobSet or the node controller writing
 * the same pod, node or Workload between the read and the write makes the API server answer 409
 * Conflict ("the object has been modified", seen on CI in {@code MpiFailurePolicyIT}). The edit is
 * then applied again to a fresh read, as {@code client-go}'s {@code retry.RetryOnConflict} does.
 */
final class Edits {

  /** Attempts before the conflict is thrown; client-go's {@code retry.DefaultRetry} makes 5. */
  static final int ATTEMPTS = 5;

  private Edits() {}

  /**
   * Applies {@code change} to the stored object, reading it again after each 409 Conflict, at most
   * {@link #ATTEMPTS} times; other errors (404 included) are thrown at once.
   *
   * @return the object as stored after the edit
   */
  static <T extends HasMetadata> T edit(Resource<T> resource, UnaryOperator<T> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        return resource.edit(change);
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
