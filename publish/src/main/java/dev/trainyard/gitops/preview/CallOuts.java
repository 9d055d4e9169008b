package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.platform.Platform;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What would surprise a reviewer or be refused, from the runs alone (pure). Facts behind each rule:
 *
 * <ul>
 *   <li>JobSet webhook ValidateUpdate: {@code spec.replicatedJobs} is immutable, and {@code
 *       successPolicy}, {@code failurePolicy}, {@code startupPolicy}, {@code network}, {@code
 *       volumeClaimPolicies}, {@code managedBy} by CEL (kubernetes-sigs/jobset {@code
 *       pkg/webhooks/jobset_webhook.go}); a LocalQueue's {@code clusterQueue} is immutable (Kueue);
 *       an {@code immutable: true} Secret refuses data changes (Kubernetes);
 *   <li>Kueue admits a JobSet whole: a resource its ClusterQueue does not cover, or more than the
 *       nominal quota, is never admitted, unless the queue can borrow from its cohort.
 * </ul>
 */
final class CallOuts {
  private static final List<String> IMMUTABLE_JOBSET =
      List.of(
          "spec.replicatedJobs",
          "spec.successPolicy",
          "spec.failurePolicy",
          "spec.startupPolicy",
          "spec.network",
          "spec.volumeClaimPolicies",
          "spec.managedBy");
  private static final int PATHS_SHOWN = 3;

  private CallOuts() {}

  static List<CallOut> of(List<RunChange> runs, List<QueueTotal> queues, Platform platform) {
    List<CallOut> out = new ArrayList<>();
    for (RunChange run : runs) {
      if (run.status() == RunChange.Status.CHANGED) {
        immutable(run.folder().run(), run.objects(), out);
      }
      if (run.after().isPresent()) {
        versions(run, out);
        quota(run.after().get(), platform, out);
        plainSecrets(run.folder().run(), run.objects(), platform, out);
      }
    }
    for (QueueTotal q : queues) {
      together(q, out);
    }
    return out;
  }

  /**
   * The call-outs of changed objects outside run folders ({@code run} ""): immutable fields changed
   * in place and plain Secrets the policy objects to, as for a run's objects.
   */
  static List<CallOut> ofObjects(String run, List<ObjectChange> objects, Platform platform) {
    List<CallOut> out = new ArrayList<>();
    immutable(run, objects, out);
    plainSecrets(run, objects, platform, out);
    return out;
  }

  private static void immutable(String run, List<ObjectChange> objects, List<CallOut> out) {
    for (ObjectChange o : objects) {
      if (o.status() != ObjectChange.Status.CHANGED) {
        continue;
      }
      List<String> hit =
          switch (o.kind()) {
            case "JobSet" -> paths(o, IMMUTABLE_JOBSET);
            case "LocalQueue" -> paths(o, List.of("spec.clusterQueue"));
            default ->
                o.immutable() && o.secret() != ObjectChange.SecretForm.NONE
                    ? paths(o, List.of("data", "stringData", "spec.encryptedData"))
                    : List.of();
          };
      if (!hit.isEmpty()) {
        String more =
            hit.size() > PATHS_SHOWN ? " and " + (hit.size() - PATHS_SHOWN) + " more" : "";
        out.add(
            new CallOut(
                CallOut.Severity.REFUSED,
                o.kind().equals("JobSet") || o.kind().equals("LocalQueue")
                    ? "immutable-field"
                    : "immutable-secret",
                run,
                o.title()
                    + " changes "
                    + String.join(", ", hit.subList(0, Math.min(PATHS_SHOWN, hit.size())))
                    + more
                    + " in place, which the API server refuses (immutable): "
                    + (run.isEmpty()
                        ? "delete it and create it anew instead"
                        : "start a new run instead (`trainyard submit --rerun`)")));
      }
    }
  }

  private static List<String> paths(ObjectChange o, List<String> roots) {
    return o.fields().stream()
        .map(FieldChange::path)
        .filter(
            p ->
                roots.stream()
                    .anyMatch(r -> p.equals(r) || p.startsWith(r + ".") || p.startsWith(r + "[")))
        .toList();
  }

  private static void versions(RunChange run, List<CallOut> out) {
    Optional<RunFacts> was = run.comparedWith();
    RunFacts now = run.after().orElseThrow();
    if (was.isEmpty()) {
      return;
    }
    String since =
        run.status() == RunChange.Status.ADDED
            ? " since `" + was.get().folder().run() + "`, the latest run of " + now.sourcePath()
            : " in place";
    if (!was.get().runtime().equals(now.runtime())) {
      out.add(
          new CallOut(
              CallOut.Severity.WARNING,
              "runtime-changed",
              now.folder().run(),
              "runtime "
                  + was.get().runtime()
                  + " → "
                  + now.runtime()
                  + since
                  + imageNote(was.get(), now)));
    } else if (!was.get().image().equals(now.image())) {
      out.add(
          new CallOut(
              CallOut.Severity.WARNING,
              "image-changed",
              now.folder().run(),
              "image " + was.get().image() + " → " + now.image() + since));
    }
  }

  private static String imageNote(RunFacts was, RunFacts now) {
    return was.image().equals(now.image())
        ? ""
        : " (image " + was.image() + " → " + now.image() + ")";
  }

  private static void quota(RunFacts run, Platform platform, List<CallOut> out) {
    String lq = run.folder().namespace() + "/" + run.queue();
    Optional<Platform.ClusterQueue> cq =
        QueueTotals.clusterQueue(platform, run.folder().namespace(), run.queue());
    if (cq.isEmpty()) {
      out.add(
          new CallOut(
              CallOut.Severity.REFUSED,
              "queue-missing",
              run.folder().run(),
              "LocalQueue "
                  + lq
                  + " is not in platform.yaml (or points at no ClusterQueue), so Kueue never admits the run"));
      return;
    }
    for (Map.Entry<String, BigDecimal> want : run.requestsView().entrySet()) {
      if (want.getValue().signum() <= 0) {
        continue;
      }
      Optional<BigDecimal> quota = QueueTotals.nominal(cq.get(), want.getKey());
      String asked =
          "asks for "
              + Quantity.show(want.getKey(), want.getValue())
              + " `"
              + want.getKey()
              + "` in total";
      if (quota.isEmpty()) {
        out.add(
            new CallOut(
                CallOut.Severity.REFUSED,
                "not-covered",
                run.folder().run(),
                asked
                    + ", which ClusterQueue `"
                    + cq.get().name()
                    + "` does not cover, so Kueue never admits it"));
      } else if (want.getValue().compareTo(quota.get()) > 0) {
        String of =
            asked
                + ", more than the nominal quota "
                + Quantity.show(want.getKey(), quota.get())
                + " of ClusterQueue `"
                + cq.get().name()
                + "`";
        out.add(
            cq.get().cohort().isPresent()
                ? new CallOut(
                    CallOut.Severity.WARNING,
                    "borrowing",
                    run.folder().run(),
                    of
                        + ": it fits only by borrowing from cohort `"
                        + cq.get().cohort().get()
                        + "`")
                : new CallOut(
                    CallOut.Severity.REFUSED,
                    "over-quota",
                    run.folder().run(),
                    of + " (no cohort to borrow from), so Kueue never admits it"));
      }
    }
  }

  private static void plainSecrets(
      String run, List<ObjectChange> objects, Platform platform, List<CallOut> out) {
    if (platform.secrets().mode() == Platform.SecretsMode.PLAIN) {
      return;
    }
    for (ObjectChange o : objects) {
      if (o.secret() == ObjectChange.SecretForm.PLAIN
          && o.status() != ObjectChange.Status.REMOVED) {
        out.add(
            new CallOut(
                CallOut.Severity.REFUSED,
                "plain-secret",
                run,
                o.title()
                    + " is a plain Secret (base64, not encrypted) but"
                    + " platform.yaml's secrets policy is "
                    + platform.secrets().mode().id()
                    + ": anyone who can read the GitOps repo can read it"));
      }
    }
  }

  private static void together(QueueTotal q, List<CallOut> out) {
    if (q.runs() < 2 || !q.over() || q.quota().isEmpty()) {
      return;
    }
    String borrow = q.cohort().map(c -> " unless they borrow from cohort `" + c + "`").orElse("");
    out.add(
        new CallOut(
            CallOut.Severity.WARNING,
            "queue-total",
            "",
            "together the "
                + q.runs()
                + " runs ask for "
                + Quantity.plain(q.gpus())
                + " GPUs of LocalQueue "
                + q.namespace()
                + "/"
                + q.queue()
                + ", nominal quota "
                + Quantity.plain(q.quota().get())
                + ": they cannot all run at once"
                + borrow
                + "; Kueue admits them one after another"));
  }
}
