package dev.trainyard.compiler.resolve;

import dev.trainyard.compiler.runtime.MpiSettings;
import dev.trainyard.compiler.runtime.RuntimeDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The replicated jobs a run is made of, before any YAML exists: their names, pod counts and roles.
 * Policy checks name budgets on it; render builds the JobSet from it. Every replicated job has
 * {@code replicas: 1} and puts its pods in {@code parallelism = completions} (as Kubeflow Trainer
 * does), so hostnames are {@code <jobset>-<rjob>-0-<podIdx>}.
 *
 * <p>MPI runtimes list the node job first and the launcher second (trainer#3748: the launcher
 * depends on the node job being Ready, and JobSet only allows {@code dependsOn} on later jobs).
 * With {@code launcherAsNode} the launcher is rank host 0, so {@code nodes: N} has N−1 node pods
 * and {@code nodes: 1} has no node job at all (trainer#3954: never {@code replicas: 0} or {@code
 * parallelism: 0}).
 *
 * @param jobs the replicated jobs in JobSet order
 */
public record JobLayout(List<ReplicatedJobShape> jobs) {
  /** Name of the replicated job whose pods run ranks (and sshd, for MPI). */
  public static final String NODE = "node";

  /** Name of the MPI launcher's replicated job. */
  public static final String LAUNCHER = "launcher";

  /** 63 − the 5-character pod-name suffix − 4 dashes (JobSet webhook, jobset#408). */
  private static final int POD_NAME_BUDGET = 54;

  public JobLayout {
    jobs = List.copyOf(jobs);
  }

  /**
   * @param name replicated job name (DNS-1035 label)
   * @param pods {@code parallelism} and {@code completions}, ≥ 1
   * @param runsRanks whether its pods run training processes (gets GPUs and slots in the hostfile)
   */
  public record ReplicatedJobShape(String name, int pods, boolean runsRanks) {}

  /** The layout for {@code nodes} rank hosts of {@code runtime}. */
  public static JobLayout of(RuntimeDefinition runtime, int nodes) {
    if (runtime.mpi().isEmpty()) {
      return new JobLayout(List.of(new ReplicatedJobShape(NODE, nodes, true)));
    }
    MpiSettings mpi = runtime.mpi().get();
    List<ReplicatedJobShape> jobs = new ArrayList<>();
    int nodePods = mpi.launcherAsNode() ? nodes - 1 : nodes;
    if (nodePods > 0) {
      jobs.add(new ReplicatedJobShape(NODE, nodePods, true));
    }
    jobs.add(new ReplicatedJobShape(LAUNCHER, 1, mpi.launcherAsNode()));
    return new JobLayout(jobs);
  }

  /** The job named {@code name}, if present. */
  public Optional<ReplicatedJobShape> job(String name) {
    return jobs.stream().filter(j -> j.name().equals(name)).findFirst();
  }

  /**
   * The longest JobSet name that keeps every pod name valid: JobSet webhook, pod name {@code
   * <js>-<rjob>-<jobIdx>-<podIdx>-<5 chars>} ≤ 63, i.e. {@code len(js) + len(rjob) +
   * digits(replicas-1) + digits(completions-1) ≤ 54} (jobset#408, PR #409).
   */
  public int maxJobSetNameLength() {
    return maxJobSetNameLength(tightestJob());
  }

  /** The replicated job that sets the limit of {@link #maxJobSetNameLength()}. */
  public ReplicatedJobShape tightestJob() {
    return jobs.stream().min(Comparator.comparingInt(JobLayout::maxJobSetNameLength)).orElseThrow();
  }

  /**
   * The budget for one replicated job: 54 − len(rjob) − digits(replicas−1) − digits(completions−1);
   * replicas is 1.
   */
  private static int maxJobSetNameLength(ReplicatedJobShape job) {
    return POD_NAME_BUDGET - job.name().length() - digits(0) - digits(job.pods() - 1);
  }

  /** Decimal digits of a non-negative index: digits(0) = 1, digits(15) = 2. */
  public static int digits(int index) {
    return Integer.toString(Math.max(index, 0)).length();
  }
}
