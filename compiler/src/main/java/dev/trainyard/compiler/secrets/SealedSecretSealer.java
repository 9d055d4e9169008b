package dev.trainyard.compiler.secrets;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.spec.MGF1ParameterSpec;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code sealed-secrets} policy: a Bitnami {@code SealedSecret} in strict scope that only the
 * controller holding the certificate's private key can open, and only as {@code
 * <namespace>/<name>}.
 *
 * <pre>
 * apiVersion: bitnami.com/v1alpha1
 * kind: SealedSecret
 * metadata: {annotations: {...}, labels: {...}, name: demo-3f2a9c-ssh, namespace: team-a}
 * spec:
 *   encryptedData: {ssh-privatekey: AgB4..., ssh-publickey: AgCk...}
 *   template:
 *     immutable: true
 *     metadata: {annotations: {...}, labels: {...}, name: demo-3f2a9c-ssh, namespace: team-a}
 *     type: kubernetes.io/ssh-auth
 * </pre>
 *
 * <p>Each value is sealed as in sealed-secrets v0.40.0 {@code pkg/crypto/crypto.go HybridEncrypt}:
 * a fresh 32-byte AES-256 session key; RSA-OAEP with SHA-256 (and MGF1-SHA-256, as Go's {@code
 * EncryptOAEP}) wraps it under label {@code "<namespace>/<name>"} ({@code EncryptionLabel}, strict
 * scope); the value is AES-256-GCM with an all-zero 12-byte nonce (safe: each key seals one value)
 * and no additional data. Layout: {@code uint16 big-endian len(rsa) || rsa || gcm ciphertext+tag},
 * then standard base64. Strict scope carries no scope annotation ({@code UpdateScopeAnnotations}).
 * Randomness: session key then OAEP seed, per key in sorted order, all from the injected random.
 */
public final class SealedSecretSealer implements SecretSealer {
  private static final int SESSION_KEY_BYTES = 32;
  private static final OAEPParameterSpec OAEP_SHA256 =
      new OAEPParameterSpec(
          "SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT);
  private final SealingCertificate certificate;
  private final SecureRandom random;

  /**
   * @param certificate the controller's certificate, from {@link SealingCertificate#parse}
   * @param random source of session keys and OAEP seeds
   */
  public SealedSecretSealer(SealingCertificate certificate, SecureRandom random) {
    this.certificate = Objects.requireNonNull(certificate, "certificate");
    this.random = Objects.requireNonNull(random, "random");
  }

  @Override
  public ObjectNode seal(UnsealedSecret secret) {
    byte[] label = (secret.namespace() + "/" + secret.name()).getBytes(StandardCharsets.UTF_8);
    ObjectNode root = SecretNodes.object();
    root.put("apiVersion", "bitnami.com/v1alpha1");
    root.put("kind", "SealedSecret");
    root.set("metadata", SecretNodes.metadata(secret));
    ObjectNode spec = root.putObject("spec");
    ObjectNode encrypted = spec.putObject("encryptedData");
    secret
        .data()
        .forEach(
            (key, value) ->
                encrypted.put(
                    key,
                    Base64.getEncoder()
                        .encodeToString(
                            hybridEncrypt(value.getBytes(StandardCharsets.UTF_8), label))));
    ObjectNode template = spec.putObject("template");
    if (secret.immutable()) {
      template.put("immutable", true);
    }
    template.set("metadata", SecretNodes.metadata(secret));
    template.put("type", secret.type());
    return root;
  }

  private byte[] hybridEncrypt(byte[] plaintext, byte[] label) {
    try {
      byte[] sessionKey = new byte[SESSION_KEY_BYTES];
      random.nextBytes(sessionKey);
      Cipher rsa = Cipher.getInstance("RSA/ECB/OAEPPadding");
      rsa.init(Cipher.ENCRYPT_MODE, certificate.publicKey(), withLabel(label), random);
      byte[] wrapped = rsa.doFinal(sessionKey);
      Cipher aes = Cipher.getInstance("AES/GCM/NoPadding");
      aes.init(
          Cipher.ENCRYPT_MODE,
          new SecretKeySpec(sessionKey, "AES"),
          new GCMParameterSpec(128, new byte[12]));
      byte[] sealed = aes.doFinal(plaintext);
      return ByteBuffer.allocate(2 + wrapped.length + sealed.length)
          .putShort((short) wrapped.length)
          .put(wrapped)
          .put(sealed)
          .array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot seal a value with RSA-OAEP/AES-GCM", e);
    }
  }

  private static OAEPParameterSpec withLabel(byte[] label) {
    return new OAEPParameterSpec(
        OAEP_SHA256.getDigestAlgorithm(),
        OAEP_SHA256.getMGFAlgorithm(),
        OAEP_SHA256.getMGFParameters(),
        new PSource.PSpecified(label));
  }
}
