package dev.trainyard.gitops.leaks;

import dev.trainyard.compiler.secrets.SshKeyGenerator;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Real private keys of every kind a GitOps tree might leak, made fresh by the JDK and the
 * compiler's own SSH key generator: OpenSSH (as the SSH Secret holds it), PKCS#8 RSA/EC/Ed25519,
 * PKCS#1 RSA and SEC1 EC (the inner structures of the PKCS#8 ones, as {@code openssl genrsa}/{@code
 * ecparam} write them).
 */
final class PlantedKeys {
  private PlantedKeys() {}

  /** A key: its PEM text and the DER (or OpenSSH binary) its armor wraps. */
  record Key(String label, String pem, byte[] body) {
    String bodyBase64() {
      return Base64.getEncoder().encodeToString(body);
    }
  }

  static Map<String, Key> all() {
    try {
      Map<String, Key> keys = new LinkedHashMap<>();
      String ssh =
          new SshKeyGenerator(new SecureRandom()).generate("planted@test").privateKeyOpenSsh();
      keys.put(
          "openssh",
          new Key(
              "OPENSSH",
              ssh,
              Base64.getMimeDecoder().decode(ssh.replaceAll("-----[^-]+-----", ""))));
      byte[] rsa8 = generate("RSA", null).getPrivate().getEncoded();
      keys.put("pkcs8-rsa", armored("", rsa8));
      keys.put("pkcs1-rsa", armored("RSA ", octetStringContent(rsa8)));
      byte[] ec8 = generate("EC", new ECGenParameterSpec("secp256r1")).getPrivate().getEncoded();
      keys.put("pkcs8-ec", armored("", ec8));
      keys.put("sec1-ec", armored("EC ", octetStringContent(ec8)));
      keys.put("pkcs8-ed25519", armored("", generate("Ed25519", null).getPrivate().getEncoded()));
      return keys;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair generate(String algorithm, ECGenParameterSpec spec)
      throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
    if (spec != null) {
      generator.initialize(spec);
    } else if (algorithm.equals("RSA")) {
      generator.initialize(2048);
    }
    return generator.generateKeyPair();
  }

  static Key armored(String label, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    String pem =
        "-----BEGIN "
            + label
            + "PRIVATE KEY-----\n"
            + body
            + "\n-----END "
            + label
            + "PRIVATE KEY-----\n";
    return new Key(label.isEmpty() ? "PKCS8" : label.trim(), pem, der);
  }

  /**
   * The OCTET STRING inside a PKCS#8 PrivateKeyInfo: the algorithm's own key structure (PKCS#1,
   * SEC1).
   */
  private static byte[] octetStringContent(byte[] pkcs8) {
    int i = 1 + lengthBytes(pkcs8, 1);
    i += 3;
    i += 1 + lengthBytes(pkcs8, i + 1) + length(pkcs8, i + 1);
    int start = i + 1 + lengthBytes(pkcs8, i + 1);
    return Arrays.copyOfRange(pkcs8, start, start + length(pkcs8, i + 1));
  }

  private static int lengthBytes(byte[] b, int at) {
    return (b[at] & 0x80) == 0 ? 1 : 1 + (b[at] & 0x7f);
  }

  private static int length(byte[] b, int at) {
    if ((b[at] & 0x80) == 0) {
      return b[at];
    }
    int value = 0;
    for (int i = 1; i <= (b[at] & 0x7f); i++) {
      value = (value << 8) | (b[at + i] & 0xff);
    }
    return value;
  }
}
