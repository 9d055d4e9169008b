package dev.trainyard.compiler.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.testing.Wording;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The platform engineer's secret inputs (age recipients, the sealed-secrets certificate) and the
 * sealers' programming-error guards, each refused with its exact diagnostic or exception.
 * Certificates and an encrypted SSH key come from the real {@code openssl} and {@code ssh-keygen}.
 */
class SecretInputsTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final SourceLocation AT = new SourceLocation("platform.yaml", 9, 7);
  private static final String RECIPIENT =
      "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj";
  private static final String CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

  private static String recipientError(String text) {
    StageResult<AgeRecipient> result = AgeRecipient.parse(text, AT, "/secrets/recipients/0");
    assertTrue(result.failed(), () -> text + " was accepted");
    Diagnostic d = result.diagnostics().get(0);
    assertEquals(AT, d.location());
    assertEquals("/secrets/recipients/0", d.pointer());
    WORDING.approve(d.hint());
    return d.message();
  }

  @Test
  @DisplayName(
      "recipients that are upper case, have another prefix, a misplaced `1`, a bad character or are short"
          + " are refused")
  void malformedRecipients() {
    assertEquals(
        "an age recipient must be `age1` followed by 58 Bech32 characters, got `"
            + RECIPIENT.toUpperCase()
            + "`: it has upper-case letters",
        recipientError(RECIPIENT.toUpperCase()));
    for (String prefix : List.of("agx1", "ag1", "agee1")) {
      assertTrue(
          recipientError(prefix + RECIPIENT.substring(4))
              .endsWith("`: it does not start with `age1`"),
          prefix);
    }
    assertTrue(
        recipientError(RECIPIENT.substring(0, 10) + "b" + RECIPIENT.substring(11))
            .endsWith("`: `b` is not a Bech32 character"));
    assertTrue(recipientError("age1qqqqq").endsWith("`: it has 5 characters after `age1`"));
    assertEquals(
        "an age recipient must be `age1` followed by 58 Bech32 characters, got `null`: it is empty",
        recipientError(null));
  }

  @Test
  @DisplayName(
      "a valid Bech32 string of 31 or 33 bytes, or with non-zero padding bits, is not an X25519 key")
  void wrongPayloads() {
    byte[] key = AgeRecipient.parse(RECIPIENT, AT, "/p").value().orElseThrow().publicKey();
    assertEquals(RECIPIENT, bech32(eightToFive(key, 0)));
    assertTrue(
        recipientError(bech32(eightToFive(Arrays.copyOf(key, 31), 0)))
            .endsWith(": it has 56 characters after `age1`"));
    assertTrue(
        recipientError(bech32(eightToFive(Arrays.copyOf(key, 33), 0)))
            .endsWith(": it has 59 characters after `age1`"));
    assertTrue(
        recipientError(bech32(eightToFive(key, 1)))
            .endsWith(": it does not spell a 32-byte X25519 key"),
        "non-zero padding bits");
    int[] extra = Arrays.copyOf(eightToFive(key, 0), eightToFive(key, 0).length + 1);
    assertTrue(recipientError(bech32(extra)).endsWith(": it has 59 characters after `age1`"));
  }

  @Test
  @DisplayName(
      "a recipient is stripped of blanks, equal by its text, and hands out copies of its key")
  void recipientValue() {
    AgeRecipient padded =
        AgeRecipient.parse("  " + RECIPIENT + "\n", AT, "/p").value().orElseThrow();
    assertEquals(RECIPIENT, padded.text());
    AgeRecipient plain = AgeRecipient.parse(RECIPIENT, AT, "/p").value().orElseThrow();
    assertEquals(plain, padded);
    assertEquals(RECIPIENT.hashCode(), padded.hashCode());
    assertNotEquals(plain, RECIPIENT);
    byte[] copy = plain.publicKey();
    copy[0] ^= 1;
    assertNotEquals(copy[0], plain.publicKey()[0]);
  }

  /**
   * BIP 173 Bech32 with HRP `age` over 5-bit values, written here from the spec to build test
   * inputs.
   */
  private static String bech32(int[] data) {
    int[] hrp = {3, 3, 3, 0, 1, 7, 5};
    int[] values = new int[hrp.length + data.length + 6];
    System.arraycopy(hrp, 0, values, 0, hrp.length);
    System.arraycopy(data, 0, values, hrp.length, data.length);
    int mod = polymod(values) ^ 1;
    StringBuilder out = new StringBuilder("age1");
    for (int value : data) {
      out.append(CHARSET.charAt(value));
    }
    for (int i = 0; i < 6; i++) {
      out.append(CHARSET.charAt((mod >>> (5 * (5 - i))) & 31));
    }
    return out.toString();
  }

  private static int polymod(int[] values) {
    int[] gen = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3};
    int chk = 1;
    for (int v : values) {
      int top = chk >>> 25;
      chk = (chk & 0x1ffffff) << 5 ^ v;
      for (int i = 0; i < 5; i++) {
        chk ^= ((top >>> i) & 1) != 0 ? gen[i] : 0;
      }
    }
    return chk;
  }

  private static int[] eightToFive(byte[] bytes, int paddingBits) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int acc = 0;
    int bits = 0;
    for (byte b : bytes) {
      acc = (acc << 8) | (b & 0xff);
      bits += 8;
      while (bits >= 5) {
        bits -= 5;
        out.write((acc >>> bits) & 31);
      }
    }
    if (bits > 0) {
      out.write(((acc << (5 - bits)) & 31) | paddingBits);
    }
    byte[] raw = out.toByteArray();
    int[] values = new int[raw.length];
    for (int i = 0; i < raw.length; i++) {
      values[i] = raw[i];
    }
    return values;
  }

  private static String certificateError(String pem) {
    StageResult<SealingCertificate> result =
        SealingCertificate.parse(pem, AT, "/secrets/certificate");
    assertTrue(result.failed());
    assertEquals(AT, result.diagnostics().get(0).location());
    assertEquals("/secrets/certificate", result.diagnostics().get(0).pointer());
    return result.diagnostics().get(0).message();
  }

  private static String openssl(Path dir, String... keyArgs) {
    String openssl = SecretTools.system("openssl", "openssl").toString();
    List<String> command = new ArrayList<>(List.of(openssl, "req", "-x509"));
    command.addAll(List.of(keyArgs));
    command.addAll(
        List.of(
            "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2", "-subj", "/CN=t"));
    SecretTools.run(dir, Map.of(), "", command);
    try {
      return Files.readString(dir.resolve("cert.pem"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  @DisplayName(
      "an EC certificate and an RSA-1024 one are refused; RSA-2048 is the smallest accepted")
  void certificateKeys(@TempDir Path dir) {
    assertEquals(
        "the sealed-secrets certificate must hold an RSA key, got EC",
        certificateError(
            openssl(dir, "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")));
    assertEquals(
        "the sealed-secrets certificate's RSA key must have at least 2048 bits, got 1024",
        certificateError(openssl(dir, "-newkey", "rsa:1024")));
    StageResult<SealingCertificate> ok =
        SealingCertificate.parse(openssl(dir, "-newkey", "rsa:2048"), AT, "/c");
    assertEquals(2048, ok.value().orElseThrow().publicKey().getModulus().bitLength());
    assertEquals(List.of(), ok.diagnostics());
    assertThrows(NullPointerException.class, () -> new SealingCertificate(null));
  }

  @Test
  @DisplayName(
      "each sealed value gets its own session key: the same text twice gives two different AES-GCM parts")
  void freshSessionKeyPerValue(@TempDir Path dir) {
    SealingCertificate certificate =
        SealingCertificate.parse(openssl(dir, "-newkey", "rsa:2048"), AT, "/c")
            .value()
            .orElseThrow();
    UnsealedSecret secret =
        new UnsealedSecret(
            "ns",
            "n",
            "Opaque",
            Map.of(),
            Map.of(),
            Map.of("a", "same text", "b", "same text"),
            false);
    var sealed = new SealedSecretSealer(certificate, SecretTools.seeded(11)).seal(secret);
    byte[] a = Base64.getDecoder().decode(sealed.at("/spec/encryptedData/a").asText());
    byte[] b = Base64.getDecoder().decode(sealed.at("/spec/encryptedData/b").asText());
    int rsa = ((a[0] & 0xff) << 8) | (a[1] & 0xff);
    assertEquals(256, rsa);
    byte[] gcmA = Arrays.copyOfRange(a, 2 + rsa, a.length);
    byte[] gcmB = Arrays.copyOfRange(b, 2 + rsa, b.length);
    assertEquals("same text".length() + 16, gcmA.length);
    assertTrue(!Arrays.equals(gcmA, gcmB), "the two values share a session key");
  }

  @Test
  @DisplayName(
      "a certificate that is no PEM quotes an empty value as such and the first line up to 40 characters")
  void certificateExcerpts() {
    String prefix = "the sealed-secrets certificate must be a PEM `CERTIFICATE` block, got ";
    assertEquals(prefix + "an empty value", certificateError(null));
    assertEquals(prefix + "an empty value", certificateError(" \n "));
    assertEquals(
        prefix + "`" + "x".repeat(40) + "`",
        certificateError("\n  " + "x".repeat(40) + "\nsecond"));
    assertEquals(prefix + "`" + "x".repeat(40) + "…`", certificateError("x".repeat(41)));
  }

  @Test
  @DisplayName("an unsealed Secret needs a namespace, name and type, and never prints its values")
  void unsealedSecretGuards() {
    Map<String, String> none = Map.of();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new UnsealedSecret("", "n", "Opaque", none, none, none, false));
    assertEquals("Secret namespace must be non-empty", e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> new UnsealedSecret("ns", null, "Opaque", none, none, none, false));
    assertThrows(
        IllegalArgumentException.class,
        () -> new UnsealedSecret("ns", "n", "", none, none, none, false));
    assertThrows(
        NullPointerException.class,
        () -> new UnsealedSecret("ns", "n", "Opaque", null, none, none, false));
    UnsealedSecret secret =
        new UnsealedSecret("ns", "n", "Opaque", none, none, Map.of("k", "hunter2"), false);
    assertEquals("UnsealedSecret[ns/n, type Opaque, keys [k]]", secret.toString());
  }

  @Test
  @DisplayName("sops-age without recipients is a programming error")
  void sopsNeedsRecipients() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SopsAgeSealer(List.of(), SecretTools.seeded(1), Clock.systemUTC()));
    assertEquals("sops-age needs at least one age recipient", e.getMessage());
  }

  @Test
  @DisplayName(
      "sops-age: an empty value stays empty (as sops writes it), a boolean leaf stays clear, keys are sorted")
  void sopsEmptyAndBooleanLeaves() {
    AgeRecipient recipient = AgeRecipient.parse(RECIPIENT, AT, "/p").value().orElseThrow();
    UnsealedSecret secret =
        new UnsealedSecret(
            "ns", "n", "Opaque", Map.of(), Map.of(), Map.of("empty", "", "k", "v"), true);
    Clock clock = Clock.fixed(Instant.parse("2026-12-01T10:00:00.5Z"), ZoneOffset.UTC);
    var sealed = new SopsAgeSealer(List.of(recipient), SecretTools.seeded(5), clock).seal(secret);
    assertEquals("", sealed.at("/data/empty").textValue());
    assertTrue(
        sealed
            .at("/data/k")
            .asText()
            .matches(
                "ENC\\[AES256_GCM,data:[A-Za-z0-9+/=]+,iv:[A-Za-z0-9+/=]{44},"
                    + "tag:[A-Za-z0-9+/=]{24},type:str]"),
        sealed.toString());
    assertTrue(sealed.at("/immutable").isBoolean() && sealed.at("/immutable").booleanValue());
    assertEquals(
        List.of("apiVersion", "data", "immutable", "kind", "metadata", "sops", "type"),
        sealed.properties().stream().map(Map.Entry::getKey).toList());
    assertEquals("2026-12-01T10:00:00Z", sealed.at("/sops/lastmodified").asText());
    assertEquals("3.13.3", sealed.at("/sops/version").asText());
    assertTrue(
        sealed.at("/sops/mac").asText().startsWith("ENC[AES256_GCM,data:"),
        sealed.at("/sops/mac").asText());
    var again = new SopsAgeSealer(List.of(recipient), SecretTools.seeded(5), clock).seal(secret);
    // the age file differs on every call (Jagged's own randomness); all else is the seed's
    sealed.at("/sops/age").forEach(e -> ((ObjectNode) e).remove("enc"));
    again.at("/sops/age").forEach(e -> ((ObjectNode) e).remove("enc"));
    assertEquals(sealed, again);
  }

  @Test
  @DisplayName(
      "check integers are only rewritten in an unencrypted openssh-key-v1 key; anything else is refused")
  void checkIntGuards(@TempDir Path dir) throws Exception {
    String ssh = SecretTools.system("ssh-keygen", "openssh-client").toString();
    SecretTools.run(
        dir,
        Map.of(),
        "",
        List.of(ssh, "-q", "-t", "ed25519", "-N", "pw-for-test", "-C", "t", "-f", "k"));
    String encrypted = Files.readString(dir.resolve("k"));
    assertEquals(
        "OpenSSH private key is encrypted; expected cipher none",
        assertThrows(
                IllegalStateException.class,
                () -> OpenSshCheckInt.replace(encrypted, SecretTools.seeded(1)))
            .getMessage());
    assertEquals(
        "not an OpenSSH private key",
        assertThrows(
                IllegalStateException.class,
                () -> OpenSshCheckInt.replace("hello", SecretTools.seeded(1)))
            .getMessage());
    String swapped = "-----END OPENSSH PRIVATE KEY-----\n-----BEGIN OPENSSH PRIVATE KEY-----\n";
    assertEquals(
        "not an OpenSSH private key",
        assertThrows(
                IllegalStateException.class,
                () -> OpenSshCheckInt.replace(swapped, SecretTools.seeded(1)))
            .getMessage());
    String noMagic =
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + Base64.getEncoder().encodeToString(new byte[64])
            + "\n-----END OPENSSH PRIVATE KEY-----\n";
    assertEquals(
        "OpenSSH private key lacks the openssh-key-v1 magic",
        assertThrows(
                IllegalStateException.class,
                () -> OpenSshCheckInt.replace(noMagic, SecretTools.seeded(1)))
            .getMessage());
  }

  @Test
  @DisplayName(
      "publicKeyOf gives a generated pair's public key without comment, and nothing for other text")
  void publicKeyOf() {
    SshKeyPair pair = new SshKeyGenerator(SecretTools.seeded(7)).generate("t@run");
    String withoutComment =
        pair.publicKeyAuthorized().substring(0, pair.publicKeyAuthorized().lastIndexOf(' '));
    assertEquals(
        Optional.of(withoutComment), SshKeyGenerator.publicKeyOf(pair.privateKeyOpenSsh()));
    assertEquals(Optional.empty(), SshKeyGenerator.publicKeyOf("not a key"));
    assertEquals(Optional.empty(), SshKeyGenerator.publicKeyOf(""));
    assertThrows(
        IllegalArgumentException.class,
        () -> new SshKeyGenerator(SecretTools.seeded(7)).generate(""));
  }

  @Test
  @DisplayName("a printed key pair shows its public half only")
  void keyPairPrinted() {
    SshKeyPair pair = new SshKeyGenerator(SecretTools.seeded(8)).generate("t@run");
    assertEquals(
        "SshKeyPair[" + pair.publicKeyAuthorized() + ", private key hidden]", pair.toString());
    assertEquals("ecdsa-sha2-nistp256", pair.keyType());
  }

  @Test
  @DisplayName(
      "armor: 70-column lines with no empty line, also when the base64 fills its last line exactly")
  void armorAtExactMultiple() {
    // The private section is padded to 8 bytes, so comment lengths step the base64 by 8 bytes'
    // worth; some
    // length below 900 makes it a multiple of 70 (the case where a `<=` loop would add an empty
    // line).
    boolean exact = false;
    for (int k = 1; k <= 900 && !exact; k++) {
      String key =
          new SshKeyGenerator(SecretTools.seeded(k))
              .generate("t@" + "r".repeat(k))
              .privateKeyOpenSsh();
      List<String> body = key.lines().filter(l -> !l.startsWith("-----")).toList();
      exact = String.join("", body).length() % 70 == 0;
      assertTrue(key.lines().noneMatch(String::isEmpty), key);
      assertTrue(body.stream().limit(body.size() - 1).allMatch(l -> l.length() == 70), key);
    }
    assertTrue(exact, "no comment length gave a base64 body of a multiple of 70 characters");
  }

  @Test
  @DisplayName(
      "a rewritten key keeps its key material and sets both check integers to the same draw")
  void checkIntsRewritten() {
    SshKeyPair pair = new SshKeyGenerator(SecretTools.seeded(3)).generate("t@run");
    String again = OpenSshCheckInt.replace(pair.privateKeyOpenSsh(), SecretTools.seeded(99));
    assertNotEquals(pair.privateKeyOpenSsh(), again);
    assertEquals(
        SshKeyGenerator.publicKeyOf(pair.privateKeyOpenSsh()), SshKeyGenerator.publicKeyOf(again));
    byte[] blob =
        Base64.getDecoder()
            .decode(
                again
                    .replace("-----BEGIN OPENSSH PRIVATE KEY-----", "")
                    .replace("-----END OPENSSH PRIVATE KEY-----", "")
                    .replaceAll("\\s", ""));
    ByteBuffer buffer = ByteBuffer.wrap(blob);
    buffer.position(15);
    for (int i = 0; i < 4; i++) {
      skipString(buffer);
      if (i == 2) {
        buffer.getInt();
      }
    }
    buffer.getInt();
    int expected = SecretTools.seeded(99).nextInt();
    assertEquals(expected, buffer.getInt());
    assertEquals(expected, buffer.getInt());
    assertTrue(again.lines().allMatch(l -> l.length() <= 70), again);
    assertTrue(again.endsWith("-----END OPENSSH PRIVATE KEY-----\n"));
  }

  /**
   * Skips an OpenSSH string (uint32 length, then the bytes): ciphername, kdfname, kdfoptions,
   * public key.
   */
  private static void skipString(ByteBuffer buffer) {
    int length = buffer.getInt();
    buffer.position(buffer.position() + length);
  }
}
