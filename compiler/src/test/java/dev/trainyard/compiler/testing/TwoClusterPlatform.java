package dev.trainyard.compiler.testing;

/**
 * A platform.yaml with two clusters, one namespace, queue and flavor each, in block style so every
 * item has its own line (listed in {@link #TEXT}); tests replace one line's text to break one
 * reference.
 */
public final class TwoClusterPlatform {
  private TwoClusterPlatform() {}

  public static final String TEXT =
      ""
          + "apiVersion: trainyard.dev/v1\n" // 1
          + "kind: Platform\n" // 2
          + "defaultRuntime: torch\n" // 3
          + "clusters:\n" // 4
          + "  - {name: local, domain: cluster.local}\n" // 5
          + "  - {name: prod, domain: cluster.local}\n" // 6
          + "namespaces:\n" // 7
          + "  - {name: team-a, cluster: local, sources: [\"*\"], defaultQueue: qa}\n" // 8
          + "  - {name: team-b, cluster: prod, sources: [\"*\"], defaultQueue: qb}\n" // 9
          + "secrets: {policy: plain, allowPlain: true}\n" // 10
          + "queues:\n" // 11
          + "  resourceFlavors:\n" // 12
          + "    - {name: fa}\n" // 13
          + "    - {name: fb}\n" // 14
          + "  clusterQueues:\n" // 15
          + "    - {name: cqa, namespaces: [team-a], flavors: [{name: fa, quota: {cpu: \"8\", memory: 32Gi}}]}\n" // 16
          + "    - {name: cqb, namespaces: [team-b], flavors: [{name: fb, quota: {cpu: \"8\", memory: 32Gi}}]}\n" // 17
          + "  localQueues:\n" // 18
          + "    - {name: qa, namespace: team-a, clusterQueue: cqa}\n" // 19
          + "    - {name: qb, namespace: team-b, clusterQueue: cqb}\n"; // 20

  /**
   * {@link #TEXT} with the one occurrence of {@code from} replaced; fails when it is not there
   * exactly once.
   */
  public static String with(String from, String to) {
    int at = TEXT.indexOf(from);
    if (at < 0 || TEXT.indexOf(from, at + 1) >= 0) {
      throw new IllegalArgumentException("not exactly once in the platform text: " + from);
    }
    return TEXT.substring(0, at) + to + TEXT.substring(at + from.length());
  }
}
