package dev.trainyard.compiler.spec;

import java.util.Objects;
import java.util.Optional;

/**
 * One entry of {@code secrets:}: a reference to a Secret that already exists in the namespace.
 * Values never appear in {@code train.yaml} or in the output.
 *
 * <pre>
 * secrets:
 *   - {name: hf-token, key: token, env: HF_TOKEN}   # one key as an environment variable
 *   - {name: wandb, path: /etc/wandb}               # every key as a file under a folder
 * </pre>
 *
 * @param name the Secret's name
 * @param key the key to expose as {@code env} (required with {@code env})
 * @param env the environment variable to set
 * @param path the folder to mount the Secret at
 */
public record SecretRef(
    String name, Optional<String> key, Optional<String> env, Optional<String> path) {
  public SecretRef {
    Objects.requireNonNull(name, "name");
  }
}
