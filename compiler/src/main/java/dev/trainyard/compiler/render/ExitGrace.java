package dev.trainyard.compiler.render;

/**
 * What a pod's script does after the command it started failed: end at once when the failure is its
 * own, wait when a peer pod is gone. The Job controller fixes a Job's failure at the first failed
 * pod matching a {@code FailJob} rule and never revises it (Kubernetes {@code pkg/controller/job}),
 * so when a pod is evicted or preempted, a survivor that loses it and exits non-zero first would
 * fail the run on its exit code instead of restarting it on the disruption. The survivor can tell:
 * a disrupted pod's processes die only after its listening port closed (a terminated pod's
 * container is gone, a lost node answers nothing), while a rank whose own command failed finds
 * every peer still answering.
 *
 * <p>So after a failed command (not one ended by SIGTERM, which is this pod being deleted) the
 * script probes each peer's port with bash's {@code /dev/tcp} under {@code timeout} {@value
 * #PROBE_SECONDS} (C locale, so the error text is the C library's):
 *
 * <ul>
 *   <li>every peer answers → exit now with the command's status: the user's failure ends the run in
 *       seconds;
 *   <li>a peer refuses the connection (its pod's network is up but nothing listens: the pod ended
 *       or is ending; an evicted pod is Failed with its {@code DisruptionTarget} within Kubernetes'
 *       default {@code terminationGracePeriodSeconds}, 30, which the pods keep) or its name does
 *       not resolve (a pod not started yet, or deleted) → wait {@value #DISRUPTION_GRACE_SECONDS}
 *       s, 30 plus 15 for the Job and JobSet controllers;
 *   <li>anything else: no answer within the probe's time, no route (its node is lost without an
 *       eviction: its pod is Failed only by PodGC 40 to 80 s after the Node is deleted, kubernetes
 *       v1.36 {@code pkg/controller/podgc}; NodeLossIT measured 48 to 73 s) → wait {@value
 *       #LOST_NODE_WAIT_SECONDS} s.
 * </ul>
 *
 * A peer is judged only when it has been seen answering before ({@link #watch}), when the script
 * keeps such a record: peers start at different times, and a rank whose command fails at once (a
 * crash at start) must not take a peer that is not up yet (no address, or a closed port) for a gone
 * one. A peer never seen cannot have been in the group whose loss made this command fail. The MPI
 * launcher needs no record: it starts once every node pod's sshd is ready ({@code dependsOn}).
 *
 * <p>A SIGTERM (the pod deleted, by the restart or by the run's failure) ends the wait. The exit
 * status stays the command's. The lines need the variables {@code status}, {@code terminated} and
 * {@code grace_pid} of the script around them.
 */
final class ExitGrace {
  /**
   * Seconds to wait after a failed command when a peer pod refuses: it is ending, and its Job fails
   * first.
   */
  static final int DISRUPTION_GRACE_SECONDS = 45;

  /**
   * Seconds to wait when a peer does not answer at all: its node was lost, and its pod fails (and
   * the run restarts, deleting this pod) only once PodGC runs; a node never deleted fails the run
   * after it.
   */
  static final int LOST_NODE_WAIT_SECONDS = 600;

  /** Seconds each peer has to accept a TCP connection. */
  static final int PROBE_SECONDS = 5;

  /** Seconds between the rounds of {@link #watch}, and each of its probes' time. */
  static final int WATCH_SECONDS = 2;

  private static final int WATCH_PROBE_SECONDS = 2;

  private ExitGrace() {}

  /**
   * Bash lines ending the script: after a failed, not terminated command, probe {@code port} of
   * each word {@code peers} expands to and wait as the class describes, then {@code exit
   * "$status"}.
   *
   * @param what what failed, for the message ("mpirun", "the command")
   * @param peers a bash word list of peer host names, e.g. {@code "a.run b.run"} or a command
   *     substitution; blank when there is none (then a failure ends the pod at once)
   * @param port the port every live peer listens on
   */
  static String afterFailure(String what, String peers, int port) {
    return afterFailure(what, peers, port, false);
  }

  /**
   * Bash lines that record, in the directory {@code $seen}, each peer of {@code peers} once it
   * answers on {@code port}: a background loop that probes the peers not yet seen every {@value
   * #WATCH_SECONDS} s and ends once every one was seen; it sets {@code watch_pid}.
   */
  static String watch(String peers, int port) {
    return "seen=$(mktemp -d 2>/dev/null || echo \"/tmp/trainyard-seen-$$\"); mkdir -p \"$seen\"\n"
        + "(while :; do\n"
        + "  missing=\n"
        + "  for host in "
        + peers
        + "; do\n"
        + "    [ -e \"$seen/$host\" ] && continue\n"
        + "    if timeout "
        + WATCH_PROBE_SECONDS
        + " bash -c 'exec 3<>\"/dev/tcp/$0/"
        + port
        + "\"' \"$host\" 2>/dev/null; then : > \"$seen/$host\"; else missing=1; fi\n"
        + "  done\n"
        + "  [ -z \"$missing\" ] && exit 0\n"
        + "  command sleep "
        + WATCH_SECONDS
        + "\n"
        + "done) >/dev/null 2>&1 &\n"
        + "watch_pid=$!\n";
  }

  /**
   * As {@link #afterFailure(String, String, int)}; with {@code onlySeen}, a peer not recorded in
   * {@code $seen} ({@link #watch}) is not judged.
   */
  static String afterFailure(String what, String peers, int port, boolean onlySeen) {
    return "if [ \"$status\" -ne 0 ] && [ -z \"$terminated\" ]; then\n"
        + "  grace=0\n"
        + "  why=\""
        + (peers.isBlank()
            ? "this pod has no peers"
            : "every peer pod " + (onlySeen ? "seen so far " : "") + "answers on port " + port)
        + ", so the failure is this pod's own\"\n"
        + (peers.isBlank() ? "" : probeLoop(peers, port, onlySeen))
        + "  if [ \"$grace\" -gt 0 ]; then\n"
        // The sleep starts before its pid is known to the trap; a SIGTERM in that gap sets
        // terminated, checked next.
        + "    sleep \"$grace\" &\n"
        + "    grace_pid=$!\n"
        + "    echo \"trainyard: "
        + what
        + " exited with status $status; $why; waiting ${grace}s so that a disrupted pod"
        + " restarts the run before this exit fails it\" >&2\n"
        + "    if [ -z \"$terminated\" ]; then wait \"$grace_pid\" || true; fi\n"
        + "    kill \"$grace_pid\" 2>/dev/null || true\n"
        + "  else\n"
        + "    echo \"trainyard: "
        + what
        + " exited with status $status; $why: the run fails now\" >&2\n"
        + "  fi\n"
        + "fi\n";
  }

  /**
   * Probes each peer (each one seen before, with {@code onlySeen}), setting {@code grace} and
   * {@code why} as the class describes.
   */
  private static String probeLoop(String peers, int port, boolean onlySeen) {
    return "  for host in "
        + peers
        + "; do\n"
        + (onlySeen ? "    [ -e \"$seen/$host\" ] || continue\n" : "")
        + "    probe=$(LC_ALL=C timeout "
        + PROBE_SECONDS
        + " bash -c 'exec 3<>\"/dev/tcp/$0/"
        + port
        + "\"' \"$host\" 2>&1) && continue\n"
        + "    case \"$probe\" in\n"
        + "      *refused*|*\"not known\"*|*\"name resolution\"*|*\"No address\"*)\n"
        + "        grace="
        + DISRUPTION_GRACE_SECONDS
        + "; why=\"$host:"
        + port
        + " refuses or has no address (its pod is gone or ending)\" ;;\n"
        + "      *) grace="
        + LOST_NODE_WAIT_SECONDS
        + "; why=\"$host:"
        + port
        + " does not answer (its node may be lost)\"; break ;;\n"
        + "    esac\n"
        + "  done\n";
  }
}
