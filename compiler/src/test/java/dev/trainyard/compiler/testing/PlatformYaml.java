package dev.trainyard.compiler.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * platform.yaml text for tests: one cluster {@code local}, namespace {@code team-a} accepting
 * {@code github.com/acme/*} (the repo of {@link TrainProject}) with default queue {@code q} →
 * ClusterQueue {@code cq}, GPU types H100 and A100, plain Secrets allowed. Each part can be
 * replaced, one per method.
 *
 * <pre>
 * String yaml = PlatformYaml.base().quota("{cpu: \"8\", memory: 32Gi}").cohort("pool").text();
 * </pre>
 *
 * @param namespaces the {@code namespaces:} flow list
 * @param gpuTypes the {@code gpu.types:} flow map
 * @param secrets the {@code secrets:} flow map
 * @param quota the one flavor's {@code quota:} flow map of ClusterQueue {@code cq}
 * @param cohort {@code cq}'s cohort, or "" for none
 * @param localQueues the {@code queues.localQueues:} flow list; {@code cq} admits every namespace
 *     listed here
 */
public record PlatformYaml(
    String namespaces,
    String gpuTypes,
    String secrets,
    String quota,
    String cohort,
    String localQueues) {

  /** The default described above: quota cpu 64, memory 256Gi, 16 GPUs; no cohort. */
  public static PlatformYaml base() {
    return new PlatformYaml(
        "[{name: team-a, cluster: local, sources: [\"github.com/acme/*\"], defaultQueue: q}]",
        "{H100: {nvidia.com/gpu.product: NVIDIA-H100}, A100: {nvidia.com/gpu.product: NVIDIA-A100}}",
        "{policy: plain, allowPlain: true}",
        "{cpu: \"64\", memory: 256Gi, nvidia.com/gpu: \"16\"}",
        "",
        "[{name: q, namespace: team-a, clusterQueue: cq}]");
  }

  public PlatformYaml namespaces(String flowList) {
    return new PlatformYaml(flowList, gpuTypes, secrets, quota, cohort, localQueues);
  }

  public PlatformYaml gpuTypes(String flowMap) {
    return new PlatformYaml(namespaces, flowMap, secrets, quota, cohort, localQueues);
  }

  public PlatformYaml secrets(String flowMap) {
    return new PlatformYaml(namespaces, gpuTypes, flowMap, quota, cohort, localQueues);
  }

  public PlatformYaml quota(String flowMap) {
    return new PlatformYaml(namespaces, gpuTypes, secrets, flowMap, cohort, localQueues);
  }

  public PlatformYaml cohort(String name) {
    return new PlatformYaml(namespaces, gpuTypes, secrets, quota, name, localQueues);
  }

  public PlatformYaml localQueues(String flowList) {
    return new PlatformYaml(namespaces, gpuTypes, secrets, quota, cohort, flowList);
  }

  /** The file text; line 5 holds the namespaces, line 7 the secrets, line 10 the ClusterQueue. */
  public String text() {
    return "apiVersion: trainyard.dev/v1\n"
        + "kind: Platform\n"
        + "defaultRuntime: torch\n"
        + "clusters: [{name: local, domain: cluster.local}]\n"
        + "namespaces: "
        + namespaces
        + "\n"
        + "gpu: {resourceName: nvidia.com/gpu, types: "
        + gpuTypes
        + "}\n"
        + "secrets: "
        + secrets
        + "\n"
        + "queues:\n"
        + "  resourceFlavors: [{name: f}]\n"
        + "  clusterQueues: [{name: cq, namespaces: "
        + queueNamespaces()
        + (cohort.isEmpty() ? "" : ", cohort: " + cohort)
        + ", flavors: [{name: f, quota: "
        + quota
        + "}]}]\n"
        + "  localQueues: "
        + localQueues
        + "\n";
  }

  private String queueNamespaces() {
    Matcher m = Pattern.compile("namespace: ([a-z0-9-]+)").matcher(localQueues);
    List<String> names = new ArrayList<>();
    while (m.find()) {
      names.add(m.group(1));
    }
    return names.toString();
  }
}
