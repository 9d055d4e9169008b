package dev.trainyard.controller.forge;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A GitHub App's identity: its app id and the private key it signs JSON Web Tokens with, the only
 * credential that may write check runs ("Write permission for the REST API to interact with checks
 * is only available to GitHub Apps", docs.github.com rest/checks/runs).
 *
 * <p>A token ({@link #jwt}) is an RS256 JWT with {@code iat} 60 seconds in the past (clock drift),
 * {@code exp} 9 minutes ahead (GitHub refuses one more than 10 minutes ahead) and {@code iss} the
 * app id (docs.github.com "Generating a JSON web token (JWT) for a GitHub App"). It is exchanged
 * for an installation access token by {@link GitHubChecks}; it never authorises a check run itself.
 *
 * <p>The key is the PEM file GitHub hands out, PKCS#1 ({@code BEGIN RSA PRIVATE KEY}), or PKCS#8
 * ({@code BEGIN PRIVATE KEY}); it is read again for every token, so a rotated Secret takes effect
 * without a restart. Its {@link #toString()} shows the app id only.
 */
public final class GitHubApp {

  private static final Pattern PEM =
      Pattern.compile(
          "-----BEGIN (RSA )?PRIVATE KEY-----\\s*([A-Za-z0-9+/=\\s]+?)-----END (RSA )?PRIVATE"
              + " KEY-----");

  /** The DER prefix of a PKCS#8 PrivateKeyInfo for rsaEncryption (RFC 5208, RFC 8017 A.1). */
  private static final byte[] RSA_ALGORITHM = {
    0x02,
    0x01,
    0x00, // version 0
    0x30,
    0x0d,
    0x06,
    0x09,
    0x2a,
    (byte) 0x86,
    0x48,
    (byte) 0x86,
    (byte) 0xf7,
    0x0d,
    0x01,
    0x01,
    0x01,
    0x05,
    0x00 // AlgorithmIdentifier { rsaEncryption, NULL }
  };

  private final long appId;
  private final Path keyFile;

  /**
   * @param appId the app's numeric id (its settings page: "App ID")
   * @param keyFile the mounted PEM private key
   * @throws ForgeException REJECTED when the file cannot be read or holds no RSA private key (the
   *     message names the file, never its content)
   */
  public GitHubApp(long appId, Path keyFile) throws ForgeException {
    if (appId < 1) {
      throw new IllegalArgumentException("GitHub App id must be positive, got " + appId);
    }
    this.appId = appId;
    this.keyFile = keyFile;
    key();
  }

  /** The app id, {@code iss} of its tokens. */
  public long appId() {
    return appId;
  }

  /** A JWT for this app, issued at {@code now}. */
  String jwt(Instant now) throws ForgeException {
    Map<String, Object> claims = new LinkedHashMap<>();
    claims.put("iat", now.getEpochSecond() - 60);
    claims.put("exp", now.getEpochSecond() + 540);
    claims.put("iss", Long.toString(appId));
    String signed =
        base64Url(Json.write(Map.of("alg", "RS256", "typ", "JWT")))
            + "."
            + base64Url(Json.write(claims));
    try {
      Signature rsa = Signature.getInstance("SHA256withRSA");
      rsa.initSign(key());
      rsa.update(signed.getBytes(StandardCharsets.US_ASCII));
      return signed + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(rsa.sign());
    } catch (GeneralSecurityException e) {
      throw new ForgeException(
          ForgeException.Kind.REJECTED,
          0,
          "GitHub App "
              + appId
              + ": cannot sign with the key in "
              + keyFile
              + ": "
              + e.getMessage());
    }
  }

  private PrivateKey key() throws ForgeException {
    String pem;
    try {
      pem = Files.readString(keyFile, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new ForgeException(
          ForgeException.Kind.REJECTED,
          0,
          "GitHub App " + appId + ": cannot read its private key " + keyFile + " (" + e + ")");
    }
    try {
      return parse(pem);
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      throw new ForgeException(
          ForgeException.Kind.REJECTED,
          0,
          "GitHub App "
              + appId
              + ": "
              + keyFile
              + " holds no RSA private key in PEM (BEGIN RSA PRIVATE KEY, as GitHub downloads it,"
              + " or BEGIN PRIVATE KEY)");
    }
  }

  /** The RSA key in PEM text {@code pem}, PKCS#1 or PKCS#8. */
  static PrivateKey parse(String pem) throws GeneralSecurityException {
    Matcher m = PEM.matcher(pem);
    if (!m.find()) {
      throw new IllegalArgumentException("no PEM private key block");
    }
    byte[] der = Base64.getMimeDecoder().decode(m.group(2));
    byte[] pkcs8 = m.group(1) == null ? der : pkcs8(der);
    return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
  }

  /**
   * PKCS#1 RSAPrivateKey {@code der} wrapped as PKCS#8 PrivateKeyInfo (RFC 5208: version 0,
   * rsaEncryption, the key as an OCTET STRING), as Java's {@code KeyFactory} reads it.
   */
  public static byte[] pkcs8(byte[] der) {
    byte[] octets = concat(new byte[] {0x04}, length(der.length), der);
    byte[] body = concat(RSA_ALGORITHM, octets);
    return concat(new byte[] {0x30}, length(body.length), body);
  }

  /** A DER length: short form below 128, else 0x80 + the count of big-endian length bytes. */
  public static byte[] length(int n) {
    if (n < 0x80) {
      return new byte[] {(byte) n};
    }
    int bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
    byte[] out = new byte[bytes + 1];
    out[0] = (byte) (0x80 | bytes);
    for (int i = 0; i < bytes; i++) {
      out[bytes - i] = (byte) (n >>> (8 * i));
    }
    return out;
  }

  private static byte[] concat(byte[]... parts) {
    int size = 0;
    for (byte[] p : parts) {
      size += p.length;
    }
    byte[] out = new byte[size];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private static String base64Url(String json) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "GitHubApp[" + appId + "]";
  }
}
