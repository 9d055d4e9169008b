package dev.trainyard.cluster;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What a run looks like on the cluster when a wait for it times out: the JobSet's conditions, each
 * child Job's counts and conditions, its pods by phase and readiness, and the last lines of kwok's
 * and kube-controller-manager's logs that name it. A wait that gives up on a run's commit status
 * then tells which part of the chain (kwok's stages, the Job controller, JobSet, the status
 * controller) stopped moving, from one CI log.
 */
final class RunDiagnosis {

  /** How many matching lines of each cluster process log are quoted. */
  static final int LOG_LINES = 6;

  private static final Pattern SOURCE = Pattern.compile("\"source\":\\{[^}]*\\},");

  private RunDiagnosis() {}

  /** A few lines on {@code run} in {@code namespace}; never throws. */
  static String describe(KubeCluster cluster, String namespace, String run) {
    StringBuilder out = new StringBuilder("run ").append(namespace).append('/').append(run);
    try {
      GenericKubernetesResource js =
          JobSets.api(cluster.client()).inNamespace(namespace).withName(run).get();
      out.append("\n  JobSet: ")
          .append(js == null ? "gone" : conditions(js.get("status", "conditions")))
          .append(js != null && JobSets.suspended(js) ? " (suspended)" : "");
      for (Job job : KueueLateExitIT.jobs(cluster, namespace, run)) {
        out.append("\n  Job ").append(job.getMetadata().getName()).append(": ").append(job(job));
      }
      List<Pod> pods = JobSetLifecycleIT.pods(cluster, namespace, run);
      out.append("\n  pods: ").append(pods(pods));
    } catch (RuntimeException e) {
      out.append("\n  (cluster unreadable: ").append(e.getMessage()).append(')');
    }
    if (cluster instanceof LocalCluster local) {
      for (String process : List.of("kwok", "kube-controller-manager", "jobset")) {
        out.append("\n  ")
            .append(process)
            .append(" log on it: ")
            .append(logLines(local.workDir().resolve("logs/" + process + ".log"), run));
      }
    }
    return out.toString();
  }

  private static String job(Job job) {
    var s = job.getStatus();
    if (s == null) {
      return "no status";
    }
    List<String> conditions = new ArrayList<>();
    for (JobCondition c : s.getConditions()) {
      conditions.add(c.getType() + "=" + c.getStatus() + " " + c.getReason());
    }
    return "active "
        + s.getActive()
        + ", ready "
        + s.getReady()
        + ", succeeded "
        + s.getSucceeded()
        + ", failed "
        + s.getFailed()
        + ", terminating "
        + s.getTerminating()
        + ", uncounted "
        + s.getUncountedTerminatedPods()
        + ", conditions "
        + conditions;
  }

  /** Pods counted by phase, readiness and deletion, e.g. {@code {Running/ready=12}}. */
  static String pods(List<Pod> pods) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Pod p : pods) {
      String phase = p.getStatus() == null ? "?" : p.getStatus().getPhase();
      boolean ready =
          p.getStatus() != null
              && p.getStatus().getConditions().stream().anyMatch(RunDiagnosis::ready);
      String key =
          phase
              + (ready ? "/ready" : "")
              + (p.getMetadata().getDeletionTimestamp() != null ? "/deleting" : "");
      counts.merge(key, 1, Integer::sum);
    }
    return counts.toString();
  }

  @SuppressWarnings("unchecked")
  private static String conditions(Object conditions) {
    if (!(conditions instanceof List<?> list)) {
      return "no conditions";
    }
    return list.stream()
        .map(c -> (Map<String, Object>) c)
        .map(
            c ->
                c.get("type")
                    + "="
                    + c.get("status")
                    + " "
                    + c.get("reason")
                    + " at "
                    + c.get("lastTransitionTime"))
        .collect(Collectors.joining(", ", "[", "]"));
  }

  /**
   * The last {@link #LOG_LINES} lines of {@code log} that contain {@code word}, without kwok's
   * {@code "source":{…}} object, cut to 300 characters.
   */
  static String logLines(Path log, String word) {
    try {
      List<String> lines =
          Files.readAllLines(log, StandardCharsets.UTF_8).stream()
              .filter(l -> l.contains(word))
              .map(l -> SOURCE.matcher(l).replaceFirst(""))
              .map(l -> l.length() > 300 ? l.substring(0, 300) + "…" : l)
              .toList();
      if (lines.isEmpty()) {
        return "(none)";
      }
      return lines.size()
          + " lines, the last:\n    "
          + String.join(
              "\n    ", lines.subList(Math.max(0, lines.size() - LOG_LINES), lines.size()));
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private static boolean ready(PodCondition c) {
    return "Ready".equals(c.getType()) && "True".equals(c.getStatus());
  }
}
