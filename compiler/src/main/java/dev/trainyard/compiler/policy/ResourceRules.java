package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.source.SourceMap;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Requests the queue can admit: every requested resource must be in the ClusterQueue's {@code
 * coveredResources}, or the workload stays pending forever with "resource X unavailable in
 * ClusterQueue" (kueue#4848). Also GPU types the platform knows, and the plain-Secret warning.
 */
final class ResourceRules {
  private ResourceRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    Platform p = job.platform();
    SourceMap map = job.spec().document().map();
    Platform.ClusterQueue cq = p.clusterQueue(job.target().clusterQueue()).orElseThrow();
    List<String> covered = cq.coveredResources();
    uncovered(out, map, job, covered, "cpu", "/resources/cpu");
    uncovered(out, map, job, covered, "memory", "/resources/memory");
    if (job.resources().gpus() > 0) {
      uncovered(out, map, job, covered, p.gpu().resourceName(), "/resources/gpus");
    }
    String gpuType = job.resources().gpuType();
    if (!gpuType.isEmpty() && !p.gpu().types().containsKey(gpuType)) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.UNKNOWN_GPU_TYPE,
                  map.at("/resources/gpuType"),
                  "/resources/gpuType",
                  "gpuType \"" + gpuType + "\" is not offered by the platform")
              .withHint(
                  p.gpu().types().isEmpty()
                      ? "this platform defines no GPU types; leave `gpuType` out"
                      : "GPU types: "
                          + String.join(", ", new TreeSet<>(p.gpu().types().keySet()))));
    }
    if (job.runtime().framework().usesMpi()) {
      SecretsRules.check(job, out);
    }
    out.addAll(QuotaRules.check(job, cq));
    return out;
  }

  private static void uncovered(
      List<Diagnostic> out,
      SourceMap map,
      ResolvedJob job,
      List<String> covered,
      String resource,
      String pointer) {
    if (covered.contains(resource)) {
      return;
    }
    String queue = job.target().localQueue();
    out.add(
        Diagnostic.error(
                DiagnosticCode.UNCOVERED_RESOURCE,
                map.at(pointer),
                pointer,
                "queue \""
                    + queue
                    + "\" (ClusterQueue `"
                    + job.target().clusterQueue()
                    + "`) does not cover resource `"
                    + resource
                    + "`, so Kueue would never admit this job")
            .withHint(
                "the ClusterQueue covers "
                    + String.join(", ", covered)
                    + "; pick a queue that offers `"
                    + resource
                    + "` or ask the platform team (kueue#4848)"));
  }
}
