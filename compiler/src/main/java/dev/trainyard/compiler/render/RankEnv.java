package dev.trainyard.compiler.render;

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
      "if [ -n \"${TRAINYARD_SETUP:-}\" ]; then bash -eo pipefail -c \"$TRAINYARD_SETUP\"; fi\n"
          + "exec bash -eo pipefail -c \"$TRAINYARD_RUN\"\n";

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
   * The container command for node pods that run {@code run} directly; GPU pods check their GPUs
   * first.
   */
  static List<String> command(ResolvedJob job) {
    return List.of("/bin/bash", "-c", gpuCheck(job) + RUN_SCRIPT);
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
