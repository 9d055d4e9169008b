package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.units.Quantities;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Kueue admits a JobSet whole (all PodSets at once), so a job that asks for more of a resource than
 * its ClusterQueue's nominal quota (summed over flavors) is never admitted, unless the queue may
 * borrow from its cohort (then only a warning). Totals: rank pods × per-node request, plus a
 * separate launcher's.
 */
final class QuotaRules {
  private QuotaRules() {}

  static List<Diagnostic> check(ResolvedJob job, Platform.ClusterQueue cq) {
    List<Diagnostic> out = new ArrayList<>();
    for (Map.Entry<String, BigDecimal> want : totals(job).entrySet()) {
      BigDecimal quota = BigDecimal.ZERO;
      for (Platform.FlavorQuota f : cq.flavors()) {
        quota =
            quota.add(
                Quantities.parse(f.quota().getOrDefault(want.getKey(), "0"))
                    .orElse(BigDecimal.ZERO));
      }
      if (cq.coveredResources().contains(want.getKey()) && want.getValue().compareTo(quota) > 0) {
        out.add(over(job, cq, want.getKey(), want.getValue(), quota));
      }
    }
    return out;
  }

  private static Map<String, BigDecimal> totals(ResolvedJob job) {
    Map<String, BigDecimal> totals = new LinkedHashMap<>();
    ResolvedJob.NodeResources r = job.resources();
    BigDecimal nodes = BigDecimal.valueOf(job.topology().nodes());
    totals.put("cpu", Quantities.parse(r.cpu()).orElse(BigDecimal.ZERO).multiply(nodes));
    totals.put("memory", Quantities.parse(r.memory()).orElse(BigDecimal.ZERO).multiply(nodes));
    // A CPU-only job's 0 GPUs never exceed a quota, so the GPU total is there for every job.
    totals.put(
        job.platform().gpu().resourceName(),
        BigDecimal.valueOf((long) r.gpus() * job.topology().nodes()));
    boolean separateLauncher =
        JobLayout.of(job.runtime(), job.topology().nodes())
            .job(JobLayout.LAUNCHER)
            .map(l -> !l.runsRanks())
            .orElse(false);
    job.platform()
        .ephemeralStorage()
        .request()
        .flatMap(Quantities::parse)
        .ifPresent(
            disk ->
                totals.put(
                    Platform.EphemeralStorage.RESOURCE,
                    disk.multiply(nodes.add(separateLauncher ? BigDecimal.ONE : BigDecimal.ZERO))));
    if (separateLauncher) {
      totals.merge(
          "cpu",
          Quantities.parse(job.runtime().resources().launcherCpu()).orElse(BigDecimal.ZERO),
          BigDecimal::add);
      totals.merge(
          "memory",
          Quantities.parse(job.runtime().resources().launcherMemory()).orElse(BigDecimal.ZERO),
          BigDecimal::add);
    }
    return totals;
  }

  private static Diagnostic over(
      ResolvedJob job,
      Platform.ClusterQueue cq,
      String resource,
      BigDecimal want,
      BigDecimal quota) {
    // totals() holds cpu, memory, the platform's GPU resource and ephemeral-storage, whose per-pod
    // request is the platform's: the job's share of it is its node count.
    String asked =
        resource.equals("cpu") || resource.equals("memory")
            ? "/resources/" + resource
            : resource.equals(Platform.EphemeralStorage.RESOURCE) ? "/nodes" : "/resources/gpus";
    // A request train.yaml does not write (the runtime's default) is multiplied by `nodes`: point
    // there, not at the file's first line.
    var written = job.spec().document().root();
    String pointer =
        written.at(asked).isMissingNode() && !written.at("/nodes").isMissingNode()
            ? "/nodes"
            : asked;
    String message =
        "the job asks for "
            + show(resource, want)
            + " of `"
            + resource
            + "` in total ("
            + job.topology().nodes()
            + " node(s)), but ClusterQueue `"
            + cq.name()
            + "` has a nominal quota of "
            + show(resource, quota);
    if (cq.cohort().isPresent()) {
      return Diagnostic.warning(
          DiagnosticCode.OVER_QUOTA_BORROWING,
          job.spec().document().map().at(pointer),
          pointer,
          message
              + "; it is admitted only if it can borrow from cohort `"
              + cq.cohort().get()
              + "`");
    }
    return Diagnostic.error(
            DiagnosticCode.OVER_QUOTA,
            job.spec().document().map().at(pointer),
            pointer,
            message + ", so Kueue would never admit it (all pods are admitted at once)")
        .withHint(
            "use fewer nodes or smaller requests, or ask the platform team for a larger queue");
  }

  private static String show(String resource, BigDecimal value) {
    if (resource.equals("memory") || resource.equals(Platform.EphemeralStorage.RESOURCE)) {
      return value
              .divide(BigDecimal.valueOf(1L << 30), 1, RoundingMode.HALF_UP)
              .stripTrailingZeros()
              .toPlainString()
          + "Gi";
    }
    return value.stripTrailingZeros().toPlainString();
  }
}
