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
    return jobSet + "-" + replicatedJob + "-" + jobIndex + "-" + podIndex + "." + jobSet;
  }

  /** The first pod of the first replica of {@code replicatedJob}: rank 0, the rendezvous host. */
  public static String first(String jobSet, String replicatedJob) {
    return of(jobSet, replicatedJob, 0, 0);
  }
}
