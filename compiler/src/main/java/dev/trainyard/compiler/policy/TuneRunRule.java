package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;

/**
 * {@code tune run} (torchtune) starts torchrun only when a torchrun flag stands before the recipe
 * ({@code torchtune/_cli/run.py}, {@code _is_distributed_args}: {@code PET_*} alone give one
 * process), and since torchtune 0.5 it forces {@code --standalone} whenever {@code --rdzv_endpoint}
 * is not given, even with {@code --nnodes}: on several nodes each node then waits at its own
 * localhost rendezvous until the timeout. Kubeflow Trainer passes the rendezvous on the command
 * line for this reason (kubeflow/website#4399). The corrected command forms one group: {@code
 * --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:$MASTER_PORT}.
 */
final class TuneRunRule {
  private TuneRunRule() {}

  static void check(RunCheck c) {
    c.run()
        .pair("tune", "run")
        .ifPresent(
            tune -> {
              boolean endpoint = c.run().hasAny("--rdzv_endpoint", "--rdzv-endpoint");
              if (c.nodes() > 1 && !endpoint) {
                c.error(
                    DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS,
                    tune,
                    "`tune run` without --rdzv_endpoint on "
                        + c.nodes()
                        + " nodes: torchtune (0.5 and later) then forces"
                        + " --standalone, so each node waits at its own localhost rendezvous until the timeout",
                    "pass the rendezvous on the command line, e.g. " + c.hint(fixed(c, tune)));
              } else if (!c.run().hasAny("--nnodes", "--nproc_per_node", "--nproc-per-node")
                  && !endpoint) {
                c.error(
                    DiagnosticCode.RUN_CONTRADICTS_TOPOLOGY,
                    tune,
                    "`run` uses `tune run` without a torchrun flag, so torchtune starts one process without torchrun",
                    "add torchrun flags after `tune run` (torchtune _cli/run.py), e.g. "
                        + c.hint(fixed(c, tune)));
              }
            });
  }

  /**
   * {@code tune run} with the topology and rendezvous flags, the user's own versions of them
   * removed.
   */
  static String fixed(RunCheck c, RunTokens.Word tune) {
    return TorchrunFlags.withGroup(c, c.run().words().get(c.run().indexOf(tune) + 1));
  }
}
