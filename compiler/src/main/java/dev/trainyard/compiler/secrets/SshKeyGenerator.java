package dev.trainyard.compiler.secrets;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.util.Objects;
import java.util.Optional;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.loader.openssh.OpenSSHKeyPairResourceParser;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;

/**
 * Generates the SSH key pair of an MPI run's SSH Secret: ECDSA on NIST P-256 ({@code
 * ecdsa-sha2-nistp256}, ssh-keygen's default ECDSA size). Kubeflow Trainer and the MPI Operator use
 * P-521 for the same Secret (reference/kubeflow-trainer-mpi.md §4); P-256 gives the same
 * 128-bit-class security for a key that lives as long as one run, and generates several times
 * faster, which is most of a warm MPI compile.
 *
 * <p>Why not Ed25519: the JDK generates Ed25519 keys, but Apache sshd-common 2.20.0 writes OpenSSH
 * Ed25519 keys only through net.i2p eddsa or Bouncy Castle (its {@code EdDSASupport}), neither of
 * which is a dependency; with JDK keys its writer fails with a NullPointerException. ECDSA keys are
 * read by every OpenSSH since 5.7.
 *
 * <p>Deterministic: the same seeded {@link SecureRandom} gives byte-identical pairs. sshd draws the
 * private section's check integers from its own global random, so {@link OpenSshCheckInt}
 * overwrites them with ours. This is the only class that imports sshd.
 *
 * <pre>
 * SshKeyPair pair = new SshKeyGenerator(new SecureRandom()).generate("trainyard@demo-3f2a9c");
 * </pre>
 */
public final class SshKeyGenerator {
  private static final String CURVE = "secp256r1";
  private final SecureRandom random;

  /**
   * @param random the only source of key material and check integers
   */
  public SshKeyGenerator(SecureRandom random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  /**
   * A fresh key pair.
   *
   * @param comment the authorized_keys comment, one word without whitespace (e.g. {@code
   *     trainyard@run})
   * @throws IllegalArgumentException if the comment contains whitespace (a programming error: the
   *     caller builds it from a validated run name)
   * @throws IllegalStateException if the JDK lacks EC P-256 (an environment problem)
   */
  public SshKeyPair generate(String comment) {
    if (comment.isEmpty() || comment.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("SSH key comment must be one word, got '" + comment + "'");
    }
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec(CURVE), random);
      KeyPair keys = generator.generateKeyPair();
      ByteArrayOutputStream privateKey = new ByteArrayOutputStream();
      OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(keys, comment, null, privateKey);
      String pem = privateKey.toString(StandardCharsets.UTF_8).replace("\r\n", "\n");
      String publicLine = PublicKeyEntry.toString(keys.getPublic()) + " " + comment;
      return new SshKeyPair(OpenSshCheckInt.replace(pem, random), publicLine);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot generate an ECDSA " + CURVE + " SSH key", e);
    }
  }

  /**
   * The public key ({@code <type> <base64>}, no comment) of an unencrypted OpenSSH private key, for
   * checking that a reused Secret's two keys belong together; empty when the text is no such key.
   */
  public static Optional<String> publicKeyOf(String privateKeyOpenSsh) {
    try {
      var pairs =
          OpenSSHKeyPairResourceParser.INSTANCE.loadKeyPairs(
              null, () -> "ssh-privatekey", null, privateKeyOpenSsh);
      if (pairs == null || !pairs.iterator().hasNext()) {
        return Optional.empty();
      }
      return Optional.of(PublicKeyEntry.toString(pairs.iterator().next().getPublic()));
    } catch (GeneralSecurityException | IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
