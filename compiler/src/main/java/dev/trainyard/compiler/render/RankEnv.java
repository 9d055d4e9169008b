package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.List;

/**
 * The framework-neutral multi-node contract every runtime's node pods get (SkyPilot/dstack style
 * names): {@code NNODES}, {@code NODE_RANK} (from the completion index), {@code GPUS_PER_NODE},
 * {@code MASTER_ADDR} (node 0 by the single hostname formula), {@code MASTER_PORT}; and the shell
 * wrapper that runs {@code setup} then {@code run}. Never a pod-level {@code RANK} or {@code
 * WORLD_SIZE}: launchers set those per process.
 */
final class RankEnv {
  /** The rendezvous port (torch c10d default; Kubeflow Trainer uses it for torch and JAX). */
  static final String MASTER_PORT = "29500";

  /**
   * Runs {@code $TRAINYARD_SETUP} then {@code $TRAINYARD_RUN} with bash {@code -eo pipefail}. The
   * user's text reaches the shell only as the value of those variables, never spliced into this
   * script.
   */
  static final String RUN_SCRIPT =
      SetupLine.TEXT + "exec bash -eo pipefail -c \"$TRAINYARD_RUN\"\n";

  /**
   * The port every node pod of a multi-node run answers on while it runs, so that a peer whose
   * command failed can tell its own failure from a disrupted pod ({@link ExitGrace}). Not a port
   * torch (29400 c10d, 29500), JAX's coordinator or NCCL's defaults take.
   */
  static final int ALIVE_PORT = 29499;

  /**
   * The listener on {@link #ALIVE_PORT}: Python's standard library, which every torch, JAX and
   * plain image has (IPv4 and IPv6 where the pod has both). An image without Python answers
   * nothing: its peers then wait {@link ExitGrace#DISRUPTION_GRACE_SECONDS} before a failure ends
   * the run, as if a pod were gone.
   */
  private static final String LISTENER =
      "import socket\n"
          + "port = "
          + ALIVE_PORT
          + "\n"
          + "s = socket.create_server((\"\", port), family=socket.AF_INET6, dualstack_ipv6=True) if socket.has_dualstack_ipv6()"
          + " else socket.create_server((\"\", port))\n"
          + "while True:\n"
          + "    s.accept()[0].close()\n";

  private RankEnv() {}

  /** The neutral variables plus setup and run, for node pods of torch, JAX and plain runtimes. */
  static EnvList neutral(ResolvedJob job, PodSpecBuilder pods) {
    EnvList env = pods.baseEnv();
    env.put("NNODES", Integer.toString(job.topology().nodes()));
    env.putFieldRef("NODE_RANK", EnvList.COMPLETION_INDEX);
    env.put("GPUS_PER_NODE", Integer.toString(job.resources().gpus()));
    env.put("MASTER_ADDR", masterAddr(job));
    env.put("MASTER_PORT", MASTER_PORT);
    env.put("TRAINYARD_RUN", job.command().run());
    job.checkpoint().ifPresent(c -> CheckpointParts.env(env, c));
    if (!job.command().setup().isEmpty()) {
      env.put("TRAINYARD_SETUP", job.command().setup());
    }
    return env;
  }

  /** Node 0's DNS name. */
  static String masterAddr(ResolvedJob job) {
    return Hostnames.first(job.naming().runName(), JobLayout.NODE);
  }

  /**
   * The node pod spec of a torch, JAX or plain run: {@link #command} in a container with {@code
   * env}; with peers, {@link #ALIVE_PORT} declared as port {@code alive} (a NetworkPolicy must let
   * the run's pods reach it).
   */
  static ObjectNode podSpec(ResolvedJob job, PodSpecBuilder pods, EnvList env) {
    ObjectNode spec = pods.podSpec(env, command(job), true);
    job.checkpoint().ifPresent(c -> CheckpointParts.mount(spec, c));
    if (job.topology().nodes() > 1) {
      ((ObjectNode) spec.withArray("containers").get(0))
          .withArray("ports")
          .addObject()
          .put("name", "alive")
          .put("containerPort", ALIVE_PORT);
    }
    return spec;
  }

  /**
   * The container command for node pods that run {@code run} directly; GPU pods check their GPUs
   * first. One node runs {@link #RUN_SCRIPT}; several run {@link #multiNodeScript}.
   */
  static List<String> command(ResolvedJob job) {
    return List.of(
        "/bin/bash",
        "-c",
        gpuCheck(job)
            + (job.checkpoint().isPresent() ? CheckpointParts.SCRIPT : "")
            + (job.topology().nodes() > 1 ? multiNodeScript(job) : RUN_SCRIPT));
  }

  /**
   * Setup and run for a pod with peers: a listener on {@link #ALIVE_PORT} for the pod's whole life,
   * {@code run} as a child (not exec'd) so that its failure goes through {@link ExitGrace}: a rank
   * whose own command failed ends at once, failing the Job (pod failure policy {@code FailJob}) and
   * so the run in seconds, while a survivor of a disrupted peer waits until that peer's {@code
   * DisruptionTarget} failed the Job first and the run restarts. SIGTERM (the kubelet stopping the
   * pod) first closes the listener, then reaches {@code run}: a peer that loses this pod's
   * processes always finds the port closed. Only peers seen answering before count ({@link
   * ExitGrace#watch}): a rank that crashes at start, before its peers are up, ends at once too.
   *
   * <p>A command stopped by SIGTERM that ends non-zero makes the pod exit 143, whatever its
   * launcher made of the signal (torch's elastic agent re-raises it as {@code SignalException},
   * exit 1): 143 matches no {@code FailJob} rule ({@link JobSetBuilder#SIGTERM_EXIT_CODE}), so a
   * pod stopped by Kueue's suspension, which gets no {@code DisruptionTarget}, never fails the
   * resumed run as the user's error. A command that failed before the signal keeps its own code.
   */
  static String multiNodeScript(ResolvedJob job) {
    String peers = Hostnames.bashWords(job.naming().runName(), JobLayout.NODE, 0, "NNODES");
    return "# Generated by Trainyard: answers on port "
        + ALIVE_PORT
        + " while this pod runs; after a failed run it ends at once\n"
        + "# when every peer pod answers (the failure is this pod's own), else it waits for the gone pod's Job to fail first.\n"
        + "alive_pid=\n"
        + "for py in python3 python; do\n"
        + "  if command -v \"$py\" >/dev/null 2>&1; then \"$py\" -c "
        + MpiFiles.shellWord(LISTENER)
        + " >/dev/null 2>&1 &\n"
        + "    alive_pid=$!; break\n"
        + "  fi\n"
        + "done\n"
        + ExitGrace.watch(peers, ALIVE_PORT)
        + "run_pid=\n"
        + "grace_pid=\n"
        + "terminated=\n"
        + "trainyard_stop() {\n"
        + "  terminated=1\n"
        + "  if [ -n \"$alive_pid\" ]; then kill \"$alive_pid\" 2>/dev/null; wait \"$alive_pid\" 2>/dev/null; fi\n"
        + "  kill -TERM $run_pid $grace_pid $watch_pid 2>/dev/null || true\n"
        + "}\n"
        + "trap trainyard_stop TERM INT\n"
        + SetupLine.TEXT
        + "if [ -n \"$terminated\" ]; then exit 143; fi\n"
        + "bash -eo pipefail -c \"$TRAINYARD_RUN\" &\n"
        + "run_pid=$!\n"
        + "status=0\n"
        + "wait \"$run_pid\" || status=$?\n"
        + "while kill -0 \"$run_pid\" 2>/dev/null; do status=0; wait \"$run_pid\" || status=$?; done\n"
        + "# Stopped while the command ran: 143, whatever the launcher made of SIGTERM (torchrun exits 1).\n"
        + "if [ -n \"$terminated\" ] && [ \"$status\" -ne 0 ]; then status=143; fi\n"
        + ExitGrace.afterFailure("the command", peers, ALIVE_PORT, true)
        + "kill \"$watch_pid\" 2>/dev/null || true\n"
        + "if [ -n \"$alive_pid\" ]; then kill \"$alive_pid\" 2>/dev/null; wait \"$alive_pid\" 2>/dev/null; fi\n"
        + "rm -rf \"$seen\"\n"
        + "exit \"$status\"\n";
  }

  /**
   * The {@link GpuCheck} lines for a node pod of {@code job}, "" without GPUs. The driver floor is
   * the runtime's; an {@code image:} of the user's own is not the runtime's CUDA, so only the
   * device count is checked.
   */
  static String gpuCheck(ResolvedJob job) {
    int gpus = job.resources().gpus();
    if (gpus <= 0) {
      return "";
    }
    boolean runtimeImage = job.command().image().equals(job.runtime().image());
    return GpuCheck.script(gpus, runtimeImage ? job.runtime().contents().driverFloor() : 0);
  }
}
