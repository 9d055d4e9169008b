package dev.trainyard.compiler.policy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.util.Optional;
import java.util.Set;

/**
 * An accelerate config file ({@code accelerate config} writes YAML; JSON is read the same) as
 * committed next to train.yaml: the top-level fields {@code accelerate launch} takes when its
 * command line does not give them (accelerate {@code commands/config/config_args.py} {@code
 * ClusterConfig}: {@code num_machines}, {@code num_processes}, {@code machine_rank}, {@code
 * main_process_ip}, {@code main_process_port}, {@code rdzv_backend}, {@code distributed_type}, …).
 *
 * <pre>
 * distributed_type: MULTI_GPU
 * num_machines: 2
 * machine_rank: 0
 * main_process_ip: 10.0.0.1
 * </pre>
 */
final class AccelerateConfig {
  /**
   * {@code distributed_type} values whose launcher starts torchrun (or deepspeed) across machines
   * ({@code commands/launch.py} {@code _validate_launch_command} and {@code launch_command}).
   */
  private static final Set<String> SPANNING =
      Set.of(
          "MULTI_GPU",
          "MULTI_NPU",
          "MULTI_MLU",
          "MULTI_SDAA",
          "MULTI_MUSA",
          "MULTI_XPU",
          "MULTI_HPU",
          "MULTI_NEURON",
          "DEEPSPEED",
          "FSDP",
          "MEGATRON_LM");

  private final JsonNode root;

  private AccelerateConfig(JsonNode root) {
    this.root = root;
  }

  /**
   * The config at {@code path} (as {@code --config_file} names it); empty when it cannot be read or
   * is no mapping.
   */
  static Optional<AccelerateConfig> read(RunScripts scripts, String path) {
    return scripts
        .read(path)
        .flatMap(text -> new YamlDocumentLoader().load(new SourceFile(path, text)).value())
        .map(doc -> doc.root())
        .filter(JsonNode::isObject)
        .map(AccelerateConfig::new);
  }

  /** Whether {@code key} is set to something other than null. */
  boolean has(String key) {
    return root.hasNonNull(key);
  }

  /** {@code key}'s scalar value as written; empty when absent, null or not a scalar. */
  Optional<String> text(String key) {
    JsonNode v = root.path(key);
    return v.isValueNode() && !v.isNull() ? Optional.of(v.asText()) : Optional.empty();
  }

  /** {@code key} as a whole number; empty when it is absent or not one. */
  Optional<Integer> integer(String key) {
    return text(key).filter(v -> v.matches("-?[0-9]{1,9}")).map(Integer::parseInt);
  }

  /** Whether {@code distributed_type} picks a launcher that spans machines. */
  boolean spansMachines() {
    return text("distributed_type").filter(SPANNING::contains).isPresent();
  }
}
