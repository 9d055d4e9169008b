package dev.trainyard.cluster;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;

/**
 * A Kubernetes cluster a test talks to: either the local one the harness started from the binaries
 * cache, or an existing one given with {@code -Dtrainyard.kubeconfig=PATH} (or env
 * TRAINYARD_KUBECONFIG).
 *
 * <pre>
 * &#64;ExtendWith(KubeClusterExtension.class)
 * class SomeIT {
 *     &#64;Test void accepted(KubeCluster cluster) {
 *         String ns = cluster.newNamespace();
 *         cluster.client().resource(obj).inNamespace(ns).serverSideApply();
 *     }
 * }
 * </pre>
 *
 * Tests are isolated by namespace; cluster-scoped objects (Kueue ClusterQueues, flavors) must be
 * applied idempotently with unique or shared-on-purpose names.
 */
public interface KubeCluster {

  /** An admin (system:masters) client. */
  KubernetesClient client();

  /** A kubeconfig file for the admin user, usable by kubectl and Go controllers. */
  Path kubeconfig();

  /** Creates a fresh namespace labelled {@code trainyard.dev/it=true} and returns its name. */
  String newNamespace();

  /**
   * Whether this cluster runs {@code component}; an existing cluster is assumed to run the full
   * stack.
   */
  boolean runs(Component component);
}
