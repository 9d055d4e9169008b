package dev.trainyard.cluster.netns;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One run of a compiled output tree, read back from its YAML files exactly as the compiler wrote
 * them: the JobSet's pods (one per replicated job, job index and completion index, in the JobSet's
 * order) and the ConfigMaps and Secrets their volumes name. The harness's only reader of the tree's
 * YAML.
 *
 * @param jobSetName the JobSet's {@code metadata.name}
 * @param namespace the JobSet's namespace
 * @param subdomain {@code spec.network.subdomain} (JobSet's default: the JobSet name)
 * @param pods every pod the JobSet controller would create, in replicated-job order
 * @param configMaps ConfigMap name → key → bytes ({@code data} as UTF-8, {@code binaryData}
 *     decoded)
 * @param secrets Secret name → key → bytes ({@code data} base64-decoded, {@code stringData} as
 *     UTF-8)
 */
record CompiledRun(
    String jobSetName,
    String namespace,
    String subdomain,
    List<PodPlan> pods,
    Map<String, Map<String, byte[]>> configMaps,
    Map<String, Map<String, byte[]>> secrets) {

  /**
   * One pod of the JobSet: hostname {@code <jobset>-<rjob>-<jobIndex>-<podIndex>} (JobSet v0.12
   * {@code enableDNSHostnames}: pod hostname and the JobSet's subdomain), the template as compiled.
   */
  record PodPlan(String replicatedJob, int jobIndex, int podIndex, PodTemplateSpec template) {
    String hostname(String jobSet) {
      return jobSet + "-" + replicatedJob + "-" + jobIndex + "-" + podIndex;
    }
  }

  /**
   * Reads {@code files} (path → YAML, the compiler's output tree); fails unless it holds exactly
   * one JobSet.
   */
  static CompiledRun from(Map<String, String> files) {
    GenericKubernetesResource jobSet = null;
    Map<String, Map<String, byte[]>> configMaps = new TreeMap<>();
    Map<String, Map<String, byte[]>> secrets = new TreeMap<>();
    for (Map.Entry<String, String> file : files.entrySet()) {
      if (!file.getKey().endsWith(".yaml") || file.getKey().endsWith("kustomization.yaml")) {
        continue;
      }
      HasMetadata object =
          (HasMetadata) Serialization.unmarshal(file.getValue(), KubernetesResource.class);
      if (object instanceof ConfigMap cm) {
        configMaps.put(cm.getMetadata().getName(), configMapData(cm));
      } else if (object instanceof Secret secret) {
        secrets.put(secret.getMetadata().getName(), secretData(secret));
      } else if (object instanceof GenericKubernetesResource g && "JobSet".equals(g.getKind())) {
        if (jobSet != null) {
          throw new IllegalArgumentException("more than one JobSet in the tree: " + files.keySet());
        }
        jobSet = g;
      }
    }
    if (jobSet == null) {
      throw new IllegalArgumentException("no JobSet in the compiled tree: " + files.keySet());
    }
    return of(jobSet, configMaps, secrets);
  }

  @SuppressWarnings("unchecked")
  private static CompiledRun of(
      GenericKubernetesResource jobSet,
      Map<String, Map<String, byte[]>> cms,
      Map<String, Map<String, byte[]>> secrets) {
    String name = jobSet.getMetadata().getName();
    Map<String, Object> spec = (Map<String, Object>) jobSet.getAdditionalProperties().get("spec");
    Map<String, Object> network = (Map<String, Object>) spec.getOrDefault("network", Map.of());
    String subdomain = (String) network.getOrDefault("subdomain", name);
    List<PodPlan> pods = new ArrayList<>();
    for (Map<String, Object> rjob : (List<Map<String, Object>>) spec.get("replicatedJobs")) {
      int replicas = ((Number) rjob.getOrDefault("replicas", 1)).intValue();
      Map<String, Object> jobSpec =
          (Map<String, Object>) ((Map<String, Object>) rjob.get("template")).get("spec");
      int completions = ((Number) jobSpec.getOrDefault("completions", 1)).intValue();
      PodTemplateSpec template =
          Serialization.unmarshal(
              Serialization.asJson(jobSpec.get("template")), PodTemplateSpec.class);
      for (int j = 0; j < replicas; j++) {
        for (int p = 0; p < completions; p++) {
          pods.add(new PodPlan((String) rjob.get("name"), j, p, template));
        }
      }
    }
    return new CompiledRun(
        name, jobSet.getMetadata().getNamespace(), subdomain, List.copyOf(pods), cms, secrets);
  }

  private static Map<String, byte[]> configMapData(ConfigMap cm) {
    Map<String, byte[]> data = new TreeMap<>();
    if (cm.getData() != null) {
      cm.getData().forEach((k, v) -> data.put(k, v.getBytes(StandardCharsets.UTF_8)));
    }
    if (cm.getBinaryData() != null) {
      cm.getBinaryData().forEach((k, v) -> data.put(k, Base64.getDecoder().decode(v)));
    }
    return data;
  }

  private static Map<String, byte[]> secretData(Secret secret) {
    Map<String, byte[]> data = new TreeMap<>();
    if (secret.getData() != null) {
      secret.getData().forEach((k, v) -> data.put(k, Base64.getDecoder().decode(v)));
    }
    if (secret.getStringData() != null) {
      secret.getStringData().forEach((k, v) -> data.put(k, v.getBytes(StandardCharsets.UTF_8)));
    }
    return data;
  }

  /** The pods of one replicated job, in completion-index order. */
  List<PodPlan> podsOf(String replicatedJob) {
    return pods.stream().filter(p -> p.replicatedJob().equals(replicatedJob)).toList();
  }

  /** The pod's DNS name as peers resolve it: {@code <hostname>.<subdomain>}. */
  String dnsName(PodPlan pod) {
    return pod.hostname(jobSetName) + "." + subdomain;
  }
}
