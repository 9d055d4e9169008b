package dev.trainyard.cluster;

/**
 * The processes a test cluster can run. Tiers (reference/k8s-test-harness.md section 0): T1 = etcd
 * + apiserver (CRD validation, server-side dry run); T2 adds the JobSet controller and its
 * webhooks; T3 adds controller-manager, scheduler and kwok (a real Job/pod lifecycle on fake
 * nodes); T4 adds the Kueue controller.
 */
public enum Component {
  ETCD("etcd"),
  KUBE_APISERVER("kube-apiserver"),
  JOBSET_CONTROLLER("jobset"),
  KUBE_CONTROLLER_MANAGER("kube-controller-manager"),
  KUBE_SCHEDULER("kube-scheduler"),
  KWOK("kwok"),
  KUEUE_CONTROLLER("kueue");

  private final String binary;

  Component(String binary) {
    this.binary = binary;
  }

  /** File name in the cache's {@code bin/}. */
  public String binary() {
    return binary;
  }
}
