package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;

/**
 * W426 for MaxText's GPU flag: with {@code hardware=gpu}, MaxText ({@code max_utils.py} {@code
 * initialize_jax_for_gpu}, AI-Hypercomputer/maxtext) calls {@code jax.distributed.initialize()}
 * only when {@code JAX_COORDINATOR_IP} is set, then with {@code JAX_COORDINATOR_IP:}{@code
 * JAX_COORDINATOR_PORT}, {@code NNODES} and {@code NODE_RANK}; without it each node trains alone
 * and the run still succeeds. Trainyard's pods have {@code NNODES}, {@code NODE_RANK}, {@code
 * MASTER_ADDR} and {@code MASTER_PORT} (torch, jax and plain runtimes), so the hint names the
 * coordinator from those; {@code env} values stay literal, so it goes on the {@code run} line.
 *
 * <pre>
 * nodes: 2
 * run: python3 -m MaxText.train MaxText/configs/base.yml hardware=gpu   # W426 at hardware=gpu
 * </pre>
 */
final class MaxTextRule {
  static final String FLAG = "hardware=gpu";
  private static final String COORDINATOR = "JAX_COORDINATOR_IP";

  private MaxTextRule() {}

  static void check(RunCheck c) {
    if (c.nodes() < 2
        || c.run().code().contains(COORDINATOR)
        || c.job().command().env().containsKey(COORDINATOR)) {
      return;
    }
    c.run()
        .word(FLAG)
        .ifPresent(
            w ->
                c.warning(
                    DiagnosticCode.NODES_TRAIN_ALONE,
                    w,
                    "`"
                        + FLAG
                        + "` makes MaxText join its nodes only when "
                        + COORDINATOR
                        + " is set, and no node of the "
                        + c.nodes()
                        + " has it: each would train alone",
                    "name the run's coordinator on the command (MaxText also reads NNODES and"
                        + " NODE_RANK, which every node has), e.g. "
                        + c.hint(fixed(c, w))));
  }

  /** {@code run} with the coordinator variables before the command that holds {@code flag}. */
  static String fixed(RunCheck c, RunTokens.Word flag) {
    RunTokens.Word first =
        c.run().words().stream()
            .filter(x -> x.command() == flag.command())
            .findFirst()
            .orElseThrow();
    return c.rewrite()
        .insert(first.start(), COORDINATOR + "=$MASTER_ADDR JAX_COORDINATOR_PORT=$MASTER_PORT ")
        .apply();
  }
}
