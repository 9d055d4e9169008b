package dev.trainyard.compiler.render;

/**
 * The one formula for pod DNS names in a JobSet: {@code
 * <jobset>-<rjob>-<jobIdx>-<podIdx>.<subdomain>}, with the subdomain equal to the JobSet name
 * (JobSet "DNS hostnames for Pods"; jobset#603 is what happens when addresses are written by hand).
 * Resolvable from any pod of the namespace through the search path, once the pod exists ({@code
 * publishNotReadyAddresses: true}, jobset#504).
 */
public final class Hostnames {
  private Hostnames() {}

  /** {@code <jobset>-<rjob>-<jobIdx>-<podIdx>.<jobset>}. */
  public static String of(String jobSet, String replicatedJob, int jobIndex, int podIndex) {
    return of(jobSet, replicatedJob, jobIndex, Integer.toString(podIndex));
  }

  /**
   * The names of pods {@code 0} to {@code $count - 1} of replica {@code jobIndex}, one a line, as a
   * bash command substitution that reads the count from the pod's variable {@code count} at run
   * time, so that the script does not change with the node count: {@code $(i=0; while [ "$i" -lt
   * "$NNODES" ]; do echo run-node-0-$i.run; ...)}.
   */
  static String bashWords(String jobSet, String replicatedJob, int jobIndex, String count) {
    return "$(i=0; while [ \"$i\" -lt \"$"
        + count
        + "\" ]; do echo "
        + of(jobSet, replicatedJob, jobIndex, "$i")
        + "; i=$((i + 1)); done)";
  }

  private static String of(String jobSet, String replicatedJob, int jobIndex, String podIndex) {
    return jobSet + "-" + replicatedJob + "-" + jobIndex + "-" + podIndex + "." + jobSet;
  }

  /** The first pod of the first replica of {@code replicatedJob}: rank 0, the rendezvous host. */
  public static String first(String jobSet, String replicatedJob) {
    return of(jobSet, replicatedJob, 0, 0);
  }
}
