package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.gitops.PlatformRender;
import dev.trainyard.gitops.RunFolder;
import dev.trainyard.gitops.RunIndex;
import dev.trainyard.gitops.Snapshot;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The effect of a platform change in a GitOps pull request (pure: it reads the two platforms and
 * the head tree): which ClusterQueue quotas change, which runs committed in the repo fitted before
 * and will never be admitted after (or now fit only by borrowing), and whether the queue objects
 * committed with the change are the ones platform.yaml gives ({@link PlatformRender}).
 *
 * <p>The rule is Kueue's admission, as the compile's quota check applies it: Kueue admits a
 * workload whole, so a run whose total request of a resource (all pods) exceeds its ClusterQueue's
 * nominal quota of it, summed over flavors, is never admitted, unless the queue may borrow from its
 * cohort; then it is never admitted only above what the whole cohort holds (the sum of its queues'
 * nominal quotas; platform.yaml sets no borrowing or lending limits). A resource the queue does not
 * cover, or a LocalQueue that is gone, is never admitted either. Git shows committed runs, not the
 * cluster: a finished run not yet pruned counts too, and a running workload stays admitted when its
 * quota shrinks (Kueue does not evict it, kubernetes-sigs/kueue#5176) until it is evicted or
 * restarted.
 */
final class PlatformEffect {
  private static final int NAMES_SHOWN = 5;

  private PlatformEffect() {}

  /** How a run stands with a platform's queues. Declared from best to worst. */
  enum Kind {
    FITS,
    BORROWS,
    NEVER
  }

  /** Why: the LocalQueue is gone, a resource is not covered, over quota, over the whole cohort. */
  enum Reason {
    FITS,
    BORROWS,
    /** platform.yaml no longer puts the run's namespace on the run's cluster (renamed, removed). */
    NO_CLUSTER,
    NO_QUEUE,
    NOT_COVERED,
    OVER_QUOTA,
    OVER_COHORT
  }

  /**
   * One run under one platform.
   *
   * @param clusterQueue "" when its LocalQueue is missing
   * @param resource the resource that decided, "" when none did
   * @param asked the run's total request of it
   */
  record Verdict(
      Kind kind, Reason reason, String clusterQueue, String resource, BigDecimal asked) {}

  /** The effect: the quota table and the call-outs. */
  record Result(PlatformChange change, List<CallOut> callOuts) {}

  /**
   * Whether {@code changed} touches the platform: platform.yaml, {@code runtimes/}, or a queue
   * folder ({@code clusters/<c>/_cluster/}, {@code clusters/<c>/<ns>/_queues/}).
   */
  static boolean applies(List<String> changed) {
    for (String path : changed) {
      String[] parts = path.split("/");
      boolean queueFile =
          parts.length >= 4
              && parts[0].equals("clusters")
              && (parts[2].equals("_cluster") || parts.length >= 5 && parts[3].equals("_queues"));
      if (path.equals("platform.yaml") || path.startsWith("runtimes/") || queueFile) {
        return true;
      }
    }
    return false;
  }

  /**
   * @param before the platform at the base (merge base)
   * @param after the platform at head
   * @param head the head tree, whose runs are judged
   * @param reader reads a run's JobSet
   */
  static Result of(Platform before, Platform after, Snapshot head, JobSetFacts reader) {
    List<RunFacts> runs = new ArrayList<>();
    for (RunFolder folder : new RunIndex(head).runs()) {
      reader.read(folder, head.read(folder.jobSetFile())).ifPresent(runs::add);
    }
    List<RunFacts> affected = new ArrayList<>();
    Map<String, Verdict> now = new TreeMap<>();
    Map<String, Verdict> then = new TreeMap<>();
    for (RunFacts run : runs) {
      Verdict was = judge(run, before);
      Verdict is = judge(run, after);
      now.put(run.folder().path(), is);
      then.put(run.folder().path(), was);
      if (is.kind().compareTo(was.kind()) > 0) {
        affected.add(run);
      }
    }
    List<QuotaChange> quotas = quotas(before, after, runs, affected, now, then);
    List<CallOut> callOuts = new ArrayList<>(callOuts(before, after, affected, now));
    stale(head).ifPresent(callOuts::add);
    return new Result(new PlatformChange(quotas, runs.size()), callOuts);
  }

  /** How {@code run} stands with {@code platform}'s queues. */
  static Verdict judge(RunFacts run, Platform platform) {
    boolean onCluster =
        platform.namespaces().stream()
            .anyMatch(
                n ->
                    n.name().equals(run.folder().namespace())
                        && n.cluster().equals(run.folder().cluster()));
    if (!onCluster) {
      // The queues are matched by cluster and name: a namespace now on another cluster (a renamed
      // cluster) leaves this cluster's runs with no LocalQueue at all.
      return new Verdict(Kind.NEVER, Reason.NO_CLUSTER, "", "", BigDecimal.ZERO);
    }
    Optional<Platform.ClusterQueue> cq =
        QueueTotals.clusterQueue(platform, run.folder().namespace(), run.queue());
    if (cq.isEmpty()) {
      return new Verdict(Kind.NEVER, Reason.NO_QUEUE, "", "", BigDecimal.ZERO);
    }
    String name = cq.get().name();
    Verdict result = new Verdict(Kind.FITS, Reason.FITS, name, "", BigDecimal.ZERO);
    for (Map.Entry<String, BigDecimal> want : run.requestsView().entrySet()) {
      String r = want.getKey();
      BigDecimal asked = want.getValue();
      if (asked.signum() <= 0) {
        continue;
      }
      Optional<BigDecimal> quota = QueueTotals.nominal(cq.get(), r);
      if (quota.isEmpty()) {
        return new Verdict(Kind.NEVER, Reason.NOT_COVERED, name, r, asked);
      }
      if (asked.compareTo(quota.get()) <= 0) {
        continue;
      }
      if (cq.get().cohort().isEmpty()) {
        return new Verdict(Kind.NEVER, Reason.OVER_QUOTA, name, r, asked);
      }
      if (asked.compareTo(cohortTotal(platform, cq.get().cohort().get(), r)) > 0) {
        return new Verdict(Kind.NEVER, Reason.OVER_COHORT, name, r, asked);
      }
      if (result.kind() == Kind.FITS) {
        result = new Verdict(Kind.BORROWS, Reason.BORROWS, name, r, asked);
      }
    }
    return result;
  }

  /** The nominal quota of {@code resource} summed over every ClusterQueue of {@code cohort}. */
  static BigDecimal cohortTotal(Platform platform, String cohort, String resource) {
    BigDecimal sum = BigDecimal.ZERO;
    for (Platform.ClusterQueue q : platform.queues().clusterQueues()) {
      if (q.cohort().filter(cohort::equals).isPresent()) {
        sum = sum.add(QueueTotals.nominal(q, resource).orElse(BigDecimal.ZERO));
      }
    }
    return sum;
  }

  private static List<QuotaChange> quotas(
      Platform before,
      Platform after,
      List<RunFacts> runs,
      List<RunFacts> affected,
      Map<String, Verdict> now,
      Map<String, Verdict> then) {
    TreeSet<String> names = new TreeSet<>();
    before.queues().clusterQueues().forEach(q -> names.add(q.name()));
    after.queues().clusterQueues().forEach(q -> names.add(q.name()));
    List<QuotaChange> out = new ArrayList<>();
    for (String name : names) {
      Optional<Platform.ClusterQueue> was = before.clusterQueue(name);
      Optional<Platform.ClusterQueue> is = after.clusterQueue(name);
      TreeSet<String> resources = new TreeSet<>();
      was.ifPresent(q -> resources.addAll(q.coveredResources()));
      is.ifPresent(q -> resources.addAll(q.coveredResources()));
      for (String r : resources) {
        Optional<BigDecimal> b = nominal(was, r);
        Optional<BigDecimal> a = nominal(is, r);
        if (b.equals(a)) {
          continue;
        }
        // A run counts for this queue when it uses it at head, or used it at the base and has no
        // queue at head (its namespace, LocalQueue or cluster is gone): it is never admitted.
        List<RunFacts> here =
            runs.stream()
                .filter(
                    f ->
                        now.get(f.folder().path()).clusterQueue().equals(name)
                            || now.get(f.folder().path()).clusterQueue().isEmpty()
                                && then.get(f.folder().path()).clusterQueue().equals(name))
                .toList();
        List<String> never = new ArrayList<>();
        List<String> borrows = new ArrayList<>();
        for (RunFacts f : affected) {
          if (!here.contains(f)) {
            continue;
          }
          Verdict v = now.get(f.folder().path());
          // Each resource on its own: a run refused for cpu is counted for memory too when it
          // does not fit that either.
          Kind k =
              is.isEmpty() || v.clusterQueue().isEmpty()
                  ? Kind.NEVER
                  : resourceKind(f, after, is.get(), r);
          if (k == Kind.NEVER) {
            never.add(f.folder().run());
          } else if (k == Kind.BORROWS) {
            borrows.add(f.folder().run());
          }
        }
        never.sort(null);
        borrows.sort(null);
        out.add(
            new QuotaChange(
                name,
                r,
                b,
                a,
                is.flatMap(Platform.ClusterQueue::cohort),
                here.size(),
                never,
                borrows));
      }
    }
    return out;
  }

  /**
   * How {@code run}'s request of {@code resource} alone stands with {@code cq} of {@code platform}.
   */
  static Kind resourceKind(
      RunFacts run, Platform platform, Platform.ClusterQueue cq, String resource) {
    BigDecimal asked = run.requestsView().getOrDefault(resource, BigDecimal.ZERO);
    if (asked.signum() <= 0) {
      return Kind.FITS;
    }
    Optional<BigDecimal> quota = QueueTotals.nominal(cq, resource);
    if (quota.isEmpty()) {
      return Kind.NEVER;
    }
    if (asked.compareTo(quota.get()) <= 0) {
      return Kind.FITS;
    }
    if (cq.cohort().isEmpty()
        || asked.compareTo(cohortTotal(platform, cq.cohort().get(), resource)) > 0) {
      return Kind.NEVER;
    }
    return Kind.BORROWS;
  }

  private static Optional<BigDecimal> nominal(Optional<Platform.ClusterQueue> q, String resource) {
    return q.flatMap(c -> QueueTotals.nominal(c, resource)).map(BigDecimal::stripTrailingZeros);
  }

  /**
   * One call-out per ClusterQueue and resource (or missing LocalQueue) that the affected runs
   * share.
   */
  private static List<CallOut> callOuts(
      Platform before, Platform after, List<RunFacts> affected, Map<String, Verdict> now) {
    SortedMap<String, List<RunFacts>> groups = new TreeMap<>();
    for (RunFacts f : affected) {
      Verdict v = now.get(f.folder().path());
      String key =
          v.reason() == Reason.NO_CLUSTER
              ? v.reason() + "\u0000" + f.folder().cluster() + "/" + f.folder().namespace()
              : v.reason() == Reason.NO_QUEUE
                  ? v.reason() + "\u0000" + f.folder().namespace() + "/" + f.queue()
                  : v.reason() + "\u0000" + v.clusterQueue() + "\u0000" + v.resource();
      groups.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
    }
    List<CallOut> out = new ArrayList<>();
    for (List<RunFacts> group : groups.values()) {
      group.sort(Comparator.comparing(f -> f.folder().run()));
      out.add(callOut(before, after, group, now.get(group.get(0).folder().path())));
    }
    return out;
  }

  private static CallOut callOut(Platform before, Platform after, List<RunFacts> group, Verdict v) {
    RunFacts first = group.get(0);
    if (v.reason() == Reason.NO_CLUSTER) {
      return new CallOut(
          CallOut.Severity.REFUSED,
          "no-longer-fits",
          "",
          "platform.yaml no longer has namespace "
              + Md.code(first.folder().namespace())
              + " on cluster "
              + Md.code(first.folder().cluster())
              + " (the cluster was renamed or removed, or the namespace moved): its queues under "
              + Md.code("clusters/" + first.folder().cluster() + "/")
              + " are gone, so "
              + runs(group)
              + " there will never be admitted: "
              + list(group, ""));
    }
    if (v.reason() == Reason.NO_QUEUE) {
      return new CallOut(
          CallOut.Severity.REFUSED,
          "no-longer-fits",
          "",
          "LocalQueue "
              + Md.code(first.folder().namespace() + "/" + first.queue())
              + " is no longer in platform.yaml (or points at no ClusterQueue): "
              + runs(group)
              + " will never be admitted: "
              + list(group, ""));
    }
    String cq = "ClusterQueue `" + v.clusterQueue() + "`";
    String r = v.resource();
    String quota = quotaText(before, after, v.clusterQueue(), r);
    return switch (v.reason()) {
      case NOT_COVERED ->
          new CallOut(
              CallOut.Severity.REFUSED,
              "no-longer-fits",
              "",
              cq
                  + " does not cover `"
                  + r
                  + "`: "
                  + runs(group)
                  + " will never be admitted: "
                  + list(group, r));
      case OVER_QUOTA ->
          new CallOut(
              CallOut.Severity.REFUSED,
              "no-longer-fits",
              "",
              cq
                  + " "
                  + quota
                  + " (no cohort to borrow from): "
                  + runs(group)
                  + " will never be admitted: "
                  + list(group, r));
      case OVER_COHORT ->
          new CallOut(
              CallOut.Severity.REFUSED,
              "no-longer-fits",
              "",
              cq
                  + " "
                  + quota
                  + ", cohort `"
                  + after
                      .clusterQueue(v.clusterQueue())
                      .flatMap(Platform.ClusterQueue::cohort)
                      .orElse("")
                  + "` holds "
                  + Quantity.show(
                      r,
                      cohortTotal(
                          after,
                          after
                              .clusterQueue(v.clusterQueue())
                              .flatMap(Platform.ClusterQueue::cohort)
                              .orElse(""),
                          r))
                  + " in all: "
                  + runs(group)
                  + " will never be admitted, not even by borrowing: "
                  + list(group, r));
      default ->
          new CallOut(
              CallOut.Severity.WARNING,
              "fits-only-borrowing",
              "",
              cq
                  + " "
                  + quota
                  + ": "
                  + runs(group)
                  + " now fit"
                  + (group.size() == 1 ? "s" : "")
                  + " only by borrowing from cohort `"
                  + after
                      .clusterQueue(v.clusterQueue())
                      .flatMap(Platform.ClusterQueue::cohort)
                      .orElse("")
                  + "`: "
                  + list(group, r));
    };
  }

  /** {@code quota 8 → 1 `nvidia.com/gpu`}, or {@code quota 1 `nvidia.com/gpu`} when unchanged. */
  private static String quotaText(Platform before, Platform after, String cq, String resource) {
    Optional<BigDecimal> b = nominal(before.clusterQueue(cq), resource);
    Optional<BigDecimal> a = nominal(after.clusterQueue(cq), resource);
    String shown =
        new QuotaChange(cq, resource, b, a, Optional.empty(), 0, List.of(), List.of()).shown();
    return "quota "
        + (b.equals(a) ? shown.substring(shown.indexOf("→ ") + 2) : shown)
        + " `"
        + resource
        + "`";
  }

  /** {@code 2 runs in git}. */
  private static String runs(List<RunFacts> group) {
    return group.size() + (group.size() == 1 ? " run" : " runs") + " in git";
  }

  /** {@code `r1` asks for 4, `r2` asks for 2 and 3 more} (no amounts without a resource). */
  private static String list(List<RunFacts> group, String resource) {
    List<String> shown = new ArrayList<>();
    for (RunFacts f : group.subList(0, Math.min(NAMES_SHOWN, group.size()))) {
      shown.add(
          Md.code(f.folder().run())
              + (resource.isEmpty()
                  ? ""
                  : " asks for " + Quantity.show(resource, f.total(resource))));
    }
    String more =
        group.size() > NAMES_SHOWN ? " and " + (group.size() - NAMES_SHOWN) + " more" : "";
    return String.join(", ", shown) + more;
  }

  /**
   * REFUSED when the queue files committed at head are not what its platform.yaml gives: the change
   * would reach git but not the cluster. Empty when they are, or platform.yaml cannot be read (its
   * diagnostics say why).
   */
  static Optional<CallOut> stale(Snapshot head) {
    PlatformRender.Result render = PlatformRender.of(head);
    if (render.failed() || render.stale().isEmpty()) {
      return Optional.empty();
    }
    List<String> shown = new ArrayList<>();
    for (PlatformRender.StaleFile f :
        render.stale().subList(0, Math.min(NAMES_SHOWN, render.stale().size()))) {
      shown.add(Md.code(f.path()) + " (" + f.difference().name().toLowerCase(Locale.ROOT) + ")");
    }
    int more = render.stale().size() - shown.size();
    return Optional.of(
        new CallOut(
            CallOut.Severity.REFUSED,
            "queue-objects-stale",
            "",
            render.stale().size()
                + (render.stale().size() == 1 ? " queue file is" : " queue files are")
                + " not what platform.yaml gives, so the change would not reach Kueue: "
                + String.join(", ", shown)
                + (more > 0 ? " and " + more + " more" : "")
                + "; run `trainyard platform render` and commit the result"));
  }
}
