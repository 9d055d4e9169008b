package dev.trainyard.compiler.policy;

/**
 * Whether a command, read the way its launcher reads its flags and the pod's env, joins every node
 * into one group: the static half of "every hint trains" (the namespace-host ITs run some of these
 * commands for real). torchrun takes each flag it is not given from {@code PET_*}, which only the
 * torch runtime sets ({@code PET_NNODES}, {@code PET_NODE_RANK}, {@code PET_MASTER_ADDR}, {@code
 * PET_RDZV_ENDPOINT}), else from its defaults: one node, {@code static} at {@code 127.0.0.1}, and
 * c10d at {@code localhost:29400} (torch {@code distributed/run.py}, {@code get_rdzv_endpoint});
 * {@code --standalone} is a group of one node. {@code tune run} needs {@code --rdzv_endpoint} or
 * forces {@code --standalone} (torchtune {@code _cli/run.py}). accelerate reads no rank env: the
 * machine flags must be on its command line, with a mode that starts torchrun across machines
 * ({@code --multi_gpu}; accelerate {@code commands/launch.py} {@code launch_command}), and on nodes
 * without GPUs {@code ACCELERATE_USE_CPU} for its processes to join with gloo ({@code state.py}
 * {@code _prepare_backend}).
 */
final class GroupForming {
  private GroupForming() {}

  /**
   * Whether {@code command} on a 2-node job of {@code runtime} with {@code gpus} per node forms one
   * group.
   */
  static boolean formsGroup(String runtime, int gpus, String command) {
    RunTokens run = RunTokens.of(command);
    boolean pet = runtime.equals("torch");
    if (run.pair("tune", "run").isPresent()) {
      return run.has("--nnodes")
          && run.hasAny("--rdzv_endpoint", "--rdzv-endpoint")
          && !run.has("--standalone");
    }
    if (Launchers.accelerate(run).isPresent()) {
      boolean mode = AccelerateRule.MODES.stream().anyMatch(run::has) || gpus > 1;
      return run.hasAny("--num_machines", "--num-machines")
          && run.hasAny("--machine_rank", "--machine-rank")
          && run.hasAny("--main_process_ip", "--main-process-ip")
          && mode
          && (gpus > 0 || command.contains(AccelerateRule.USE_CPU + "="));
    }
    if (run.hasWord("torchrun") || Launchers.torchModule(run).isPresent()) {
      if (run.has("--standalone")) {
        return false;
      }
      boolean nnodes = pet || run.has("--nnodes");
      boolean c10d =
          run.flag("--rdzv_backend", "--rdzv-backend")
              .filter(f -> f.value().text().equals("c10d"))
              .isPresent();
      boolean endpoint = pet || run.hasAny("--rdzv_endpoint", "--rdzv-endpoint");
      boolean ranked =
          pet
              || (run.hasAny("--node_rank", "--node-rank")
                  && (endpoint || run.hasAny("--master_addr", "--master-addr")));
      return nnodes && (c10d ? endpoint : ranked);
    }
    return false;
  }
}
