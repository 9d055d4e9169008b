package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Stage 6: checks the emitted objects against the rules the API server and the JobSet and Kueue
 * webhooks enforce, so a broken runtime definition or a compiler bug is caught here, not at sync
 * time. A failure is never the user's fault: the message says so.
 *
 * <p>Rules: names are DNS-1123 (≤ 253; JobSet names RFC 1035 labels); label values ≤ 63 and of the
 * label charset; the JobSet pod-name budget {@code N+R+J+P ≤ 54} (jobset#408); {@code parallelism}
 * and {@code completions} ≥ 1 (kueue#2227); no {@code suspend}, {@code ttlSecondsAfterFinished} or
 * {@code generateName} (kueue#8228, argo-cd#8586, jobset#1267); {@code dependsOn} names an earlier
 * replicated job (JobSet webhook); at most 18 replicated jobs (Kueue 0.19 PodSet cap, kueue#12819);
 * env names unique within each container and init container; every volumeMount of either names a
 * volume.
 */
public final class CheckStage {
  private static final Pattern LABEL_VALUE =
      Pattern.compile("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
  private static final Pattern SUBDOMAIN =
      Pattern.compile("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  private static final Pattern RFC1035 = Pattern.compile("^[a-z]([-a-z0-9]*[a-z0-9])?$");

  /** Checks every object of {@code set}; {@code origin} names the runtime for the hint. */
  public StageResult<ManifestSet> check(ManifestSet set, String origin) {
    List<Manifest> all = new ArrayList<>(set.run());
    all.addAll(set.clusterQueues());
    all.addAll(set.localQueues());
    all.addAll(set.checkpoint());
    List<Diagnostic> diags = problems(all, origin);
    return diags.isEmpty() ? StageResult.of(set, List.of()) : StageResult.failed(diags);
  }

  /**
   * Checks the queue objects of a whole cluster by the same rules ({@code trainyard platform
   * render}); {@code origin} names platform.yaml for the hint.
   */
  public StageResult<QueueSet> check(QueueSet set, String origin) {
    List<Manifest> all = new ArrayList<>(set.clusterQueues());
    set.localQueues().values().forEach(all::addAll);
    List<Diagnostic> diags = problems(all, origin);
    return diags.isEmpty() ? StageResult.of(set, List.of()) : StageResult.failed(diags);
  }

  private static List<Diagnostic> problems(List<Manifest> all, String origin) {
    List<String> problems = new ArrayList<>();
    for (Manifest m : all) {
      metadata(m, problems);
      if (m.kind().equals("JobSet")) {
        jobSet(m, problems);
      }
    }
    return problems.stream()
        .map(
            p ->
                Diagnostic.error(
                        DiagnosticCode.OUTPUT_INVALID, SourceLocation.ofFile(origin), "", p)
                    .withHint(
                        "this is a bug in the runtime definition or in Trainyard, not in train.yaml; please report it"))
        .toList();
  }

  private static void metadata(Manifest m, List<String> problems) {
    String where = m.kind() + " " + m.name();
    if (m.name().length() > 253 || !SUBDOMAIN.matcher(m.name()).matches()) {
      problems.add(where + ": metadata.name is not a DNS-1123 subdomain");
    }
    if (m.tree().path("metadata").has("generateName")) {
      problems.add(where + ": metadata.generateName must not be emitted");
    }
    m.tree()
        .path("metadata")
        .path("labels")
        .properties()
        .forEach(
            e -> {
              String v = e.getValue().asText();
              if (v.length() > 63 || !LABEL_VALUE.matcher(v).matches()) {
                problems.add(
                    where + ": label " + e.getKey() + " has an invalid value \"" + v + "\"");
              }
            });
  }

  private static void jobSet(Manifest m, List<String> problems) {
    JsonNode spec = m.tree().path("spec");
    String js = m.name();
    if (!RFC1035.matcher(js).matches() || js.length() > 63) {
      problems.add("JobSet " + js + ": name is not an RFC 1035 label");
    }
    for (String forbidden : List.of("suspend", "ttlSecondsAfterFinished")) {
      if (spec.has(forbidden)) {
        problems.add("JobSet " + js + ": spec." + forbidden + " must not be emitted");
      }
    }
    JsonNode rjobs = spec.path("replicatedJobs");
    if (rjobs.size() < 1 || rjobs.size() > 18) {
      problems.add(
          "JobSet " + js + ": has " + rjobs.size() + " replicated jobs; Kueue admits 1 to 18");
    }
    Set<String> seen = new HashSet<>();
    for (JsonNode rj : rjobs) {
      replicatedJob(js, rj, seen, problems);
      seen.add(rj.path("name").asText());
    }
  }

  private static void replicatedJob(
      String js, JsonNode rj, Set<String> earlier, List<String> problems) {
    String name = rj.path("name").asText();
    String where = "JobSet " + js + " replicated job " + name;
    JsonNode job = rj.path("template").path("spec");
    int replicas = rj.path("replicas").asInt(1);
    int completions = job.path("completions").asInt(0);
    if (replicas < 1 || completions < 1 || job.path("parallelism").asInt(0) < 1) {
      problems.add(where + ": replicas, parallelism and completions must be at least 1");
    }
    int budget = js.length() + name.length() + digits(replicas - 1) + digits(completions - 1);
    if (budget > 54) {
      problems.add(
          where + ": pod names exceed 63 characters (len sum " + budget + " > 54, jobset#408)");
    }
    for (JsonNode d : rj.path("dependsOn")) {
      if (!earlier.contains(d.path("name").asText())) {
        problems.add(
            where
                + ": dependsOn must name an earlier replicated job, got "
                + d.path("name").asText());
      }
    }
    JsonNode pod = job.path("template").path("spec");
    Set<String> volumes = new HashSet<>();
    pod.path("volumes").forEach(v -> volumes.add(v.path("name").asText()));
    // Init containers too (a runtime skeleton may add one): the API server refuses a mount of no
    // volume in
    // any container, and server-side apply (Flux, Argo CD) refuses duplicate keys of the env
    // list-map.
    for (String group : List.of("initContainers", "containers")) {
      for (JsonNode c : pod.path(group)) {
        container(where + " container " + c.path("name").asText(), c, volumes, problems);
      }
    }
  }

  private static void container(
      String where, JsonNode c, Set<String> volumes, List<String> problems) {
    Set<String> env = new HashSet<>();
    c.path("env")
        .forEach(
            e -> {
              if (!env.add(e.path("name").asText())) {
                problems.add(where + ": env " + e.path("name").asText() + " is set twice");
              }
            });
    c.path("volumeMounts")
        .forEach(
            v -> {
              if (!volumes.contains(v.path("name").asText())) {
                problems.add(
                    where + ": volumeMount " + v.path("name").asText() + " names no volume");
              }
            });
  }

  private static int digits(int n) {
    return Integer.toString(Math.max(n, 0)).length();
  }
}
