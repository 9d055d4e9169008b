package dev.trainyard.compiler.render;

import dev.trainyard.compiler.manifest.Manifest;
import java.util.Map;

/**
 * What rendering needs from outside the pure pipeline: the SSH Secret of an MPI run (fresh key
 * material, or the existing one when the run was compiled before, so re-compiles are
 * byte-identical), encrypted as platform.yaml says.
 */
@FunctionalInterface
public interface RenderServices {
  /** The name of a run's SSH Secret: {@code <run>-ssh}. */
  static String sshSecretName(String runName) {
    return runName + "-ssh";
  }

  /**
   * The object to commit for the run's SSH Secret ({@code kubernetes.io/ssh-auth}, keys {@code
   * ssh-privatekey} and {@code ssh-publickey}): a Secret, SealedSecret or SOPS-encrypted Secret.
   *
   * @param namespace the run's namespace
   * @param name the Secret's name
   * @param labels labels for the Secret
   * @param annotations provenance annotations for the Secret
   */
  Manifest sshSecret(
      String namespace, String name, Map<String, String> labels, Map<String, String> annotations);
}
