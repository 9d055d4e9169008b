package dev.trainyard.compiler.secrets;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Turns a Secret into the object that may be committed to a GitOps repository, per the secrets
 * policy of {@code platform.yaml}: {@link SealedSecretSealer} ({@code sealed-secrets}), {@link
 * SopsAgeSealer} ({@code sops-age}) or {@link PlainSecretSealer} ({@code plain}, only where the
 * platform allows it).
 *
 * <p>The result is a Jackson {@link ObjectNode} made with the shared mapper ({@code
 * manifest.CanonicalJson}), keys inserted in sorted order at every level, strings and booleans
 * only. Implementations are pure apart from their injected {@code SecureRandom} (and {@code
 * Clock}): the same input and the same seeded random give an equal tree.
 */
public interface SecretSealer {

  /**
   * The object to commit for {@code secret}.
   *
   * @throws IllegalStateException if the JDK lacks an algorithm (an environment problem, never a
   *     user one)
   */
  ObjectNode seal(UnsealedSecret secret);
}
