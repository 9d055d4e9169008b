package dev.trainyard.compiler.secrets;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.manifest.YamlWriter;
import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class SealedSecretSealerTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  private static final SourceLocation PLATFORM = new SourceLocation("platform.yaml", 7, 18);
  private static final UnsealedSecret SECRET =
      new UnsealedSecret(
          "team-a",
          "demo-3f2a9c-ssh",
          "kubernetes.io/ssh-auth",
          Map.of("app.kubernetes.io/managed-by", "trainyard"),
          Map.of("trainyard.dev/source-commit", "9fceb02d0ae598e95dc970b74767f19372d61af8"),
          Map.of(
              "ssh-privatekey",
              "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n",
              "ssh-publickey",
              "ecdsa-sha2-nistp521 AAAAE2 trainyard@demo",
              "empty",
              ""),
          true);

  @TempDir static Path keys;
  static Path privateKeyPem;
  static SealingCertificate certificate;

  @BeforeAll
  static void makeControllerKey() throws IOException {
    String openssl = SecretTools.system("openssl", "openssl").toString();
    SecretTools.run(
        keys,
        Map.of(),
        "",
        List.of(
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
            "-days",
            "2",
            "-subj",
            "/CN=sealed-secret/O=sealed-secret"));
    privateKeyPem = keys.resolve("key.pem");
    certificate =
        parsed(
            SealingCertificate.parse(Files.readString(keys.resolve("cert.pem")), PLATFORM, "/x"));
  }

  @Test
  @DisplayName("kubeseal --recovery-unseal opens our SealedSecret to the original Secret")
  void realKubesealUnsealsOurs(@TempDir Path dir) throws IOException {
    ObjectNode sealed = new SealedSecretSealer(certificate, SecretTools.seeded(11)).seal(SECRET);

    JsonNode secret =
        CanonicalJson.mapper().readTree(unseal(dir, YamlWriter.write(sealed)).stdout());

    assertEquals("Secret", secret.path("kind").asText());
    assertEquals("team-a", secret.at("/metadata/namespace").asText());
    assertEquals("demo-3f2a9c-ssh", secret.at("/metadata/name").asText());
    assertEquals("kubernetes.io/ssh-auth", secret.path("type").asText());
    assertTrue(secret.path("immutable").asBoolean(), secret.toString());
    assertEquals("trainyard", secret.at("/metadata/labels/app.kubernetes.io~1managed-by").asText());
    assertEquals(
        SECRET.annotations().get("trainyard.dev/source-commit"),
        secret.at("/metadata/annotations/trainyard.dev~1source-commit").asText());
    for (Map.Entry<String, String> entry : SECRET.data().entrySet()) {
      JsonNode base64 = secret.path("data").get(entry.getKey());
      // Go's GCM Open returns a nil slice for an empty value, which kubeseal prints as null.
      String value =
          base64.isNull() ? "" : new String(Base64.getDecoder().decode(base64.asText()), UTF_8);
      assertEquals(entry.getValue(), value, "data." + entry.getKey() + " in " + secret);
    }
    assertEquals(SECRET.data().size(), secret.path("data").size());
  }

  @Test
  @DisplayName("strict scope: kubeseal refuses the same ciphertext under another name or namespace")
  void strictScopeBindsNameAndNamespace(@TempDir Path dir) {
    ObjectNode sealed = new SealedSecretSealer(certificate, SecretTools.seeded(12)).seal(SECRET);
    ObjectNode renamed = sealed.deepCopy();
    ((ObjectNode) renamed.get("metadata")).put("name", "other-ssh");
    ((ObjectNode) renamed.at("/spec/template/metadata")).put("name", "other-ssh");
    ObjectNode moved = sealed.deepCopy();
    ((ObjectNode) moved.get("metadata")).put("namespace", "team-b");
    ((ObjectNode) moved.at("/spec/template/metadata")).put("namespace", "team-b");

    assertEquals(0, unseal(dir, YamlWriter.write(sealed)).exitCode());
    assertNotEquals(0, unseal(dir, YamlWriter.write(renamed)).exitCode());
    assertNotEquals(0, unseal(dir, YamlWriter.write(moved)).exitCode());
  }

  @Test
  @DisplayName("layout: uint16 RSA length, RSA-2048 block, AES-GCM ciphertext plus 16-byte tag")
  void hybridLayout() {
    ObjectNode sealed = new SealedSecretSealer(certificate, SecretTools.seeded(13)).seal(SECRET);
    byte[] value =
        Base64.getDecoder().decode(sealed.at("/spec/encryptedData/ssh-publickey").asText());
    int plaintextLength = SECRET.data().get("ssh-publickey").length();

    assertEquals(256, ByteBuffer.wrap(value).getShort());
    assertEquals(2 + 256 + plaintextLength + 16, value.length);
    assertEquals(
        List.of("empty", "ssh-privatekey", "ssh-publickey"),
        fieldNames(sealed.at("/spec/encryptedData")));
  }

  @Test
  @DisplayName(
      "SealedSecret shape: strict scope carries no scope annotation; template holds metadata and type")
  void shape() {
    ObjectNode sealed = new SealedSecretSealer(certificate, SecretTools.seeded(14)).seal(SECRET);

    assertEquals(List.of("apiVersion", "kind", "metadata", "spec"), fieldNames(sealed));
    assertEquals("bitnami.com/v1alpha1", sealed.path("apiVersion").asText());
    assertEquals("SealedSecret", sealed.path("kind").asText());
    assertNull(sealed.at("/metadata/annotations").get("sealedsecrets.bitnami.com/namespace-wide"));
    assertNull(sealed.at("/metadata/annotations").get("sealedsecrets.bitnami.com/cluster-wide"));
    assertEquals(sealed.get("metadata"), sealed.at("/spec/template/metadata"));
    assertEquals(List.of("immutable", "metadata", "type"), fieldNames(sealed.at("/spec/template")));
    assertEquals("kubernetes.io/ssh-auth", sealed.at("/spec/template/type").asText());
  }

  @Test
  @DisplayName("the same seed gives an identical SealedSecret; another seed different ciphertext")
  void deterministicFromSeed() {
    ObjectNode first = new SealedSecretSealer(certificate, SecretTools.seeded(21)).seal(SECRET);
    ObjectNode again = new SealedSecretSealer(certificate, SecretTools.seeded(21)).seal(SECRET);
    ObjectNode other = new SealedSecretSealer(certificate, SecretTools.seeded(22)).seal(SECRET);

    assertEquals(YamlWriter.write(first), YamlWriter.write(again));
    assertNotEquals(
        first.at("/spec/encryptedData/ssh-privatekey"),
        other.at("/spec/encryptedData/ssh-privatekey"));
  }

  @Test
  @DisplayName(
      "each value gets a fresh random AES session key: with another seed the AES-GCM part differs, not only the RSA block")
  void freshSessionKey() {
    byte[] first =
        aesPart(new SealedSecretSealer(certificate, SecretTools.seeded(31)).seal(SECRET));
    byte[] other =
        aesPart(new SealedSecretSealer(certificate, SecretTools.seeded(32)).seal(SECRET));
    assertEquals(first.length, other.length);
    assertFalse(
        Arrays.equals(first, other),
        "the AES-GCM ciphertext repeats: the session key is not random");
  }

  /** The bytes after the uint16 length and the RSA-2048 block of ssh-privatekey's value. */
  private static byte[] aesPart(ObjectNode sealed) {
    byte[] all =
        Base64.getDecoder().decode(sealed.at("/spec/encryptedData/ssh-privatekey").asText());
    return Arrays.copyOfRange(all, 2 + 256, all.length);
  }

  @Test
  @DisplayName(
      "a certificate that is not PEM is an INVALID_PLATFORM diagnostic at the field, with a hint")
  void badCertificateIsDiagnostic() {
    StageResult<SealingCertificate> result =
        SealingCertificate.parse("hello", PLATFORM, "/secrets/certificate");

    assertTrue(result.failed());
    Diagnostic diagnostic = result.diagnostics().get(0);
    assertEquals(DiagnosticCode.INVALID_PLATFORM, diagnostic.code());
    assertEquals(PLATFORM, diagnostic.location());
    assertEquals("/secrets/certificate", diagnostic.pointer());
    WORDING.approve(diagnostic.message());
    WORDING.approve(diagnostic.hint());
  }

  @Test
  @DisplayName("a PEM certificate with a broken body is a diagnostic, not an exception")
  void corruptCertificateIsDiagnostic() {
    for (String body : List.of("AAAA", "!!!!", "MIIBIjANBgkq", "MIIB")) {
      String pem = "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
      StageResult<SealingCertificate> result =
          SealingCertificate.parse(pem, PLATFORM, "/secrets/certificate");
      assertTrue(result.failed(), body);
      assertFalse(result.diagnostics().get(0).message().contains("java."), "no Java class names");
      WORDING.approve(result.diagnostics().get(0).message());
    }
  }

  private SecretTools.ToolResult unseal(Path dir, String yaml) {
    return SecretTools.attempt(
        dir,
        Map.of(),
        yaml,
        List.of(
            SecretTools.built("kubeseal").toString(),
            "--recovery-unseal",
            "--recovery-private-key",
            privateKeyPem.toString(),
            "-o",
            "json"));
  }

  private static List<String> fieldNames(JsonNode node) {
    return node.properties().stream().map(Map.Entry::getKey).toList();
  }

  static <T> T parsed(StageResult<T> result) {
    assertTrue(!result.failed(), () -> result.diagnostics().toString());
    return result.value().orElseThrow();
  }
}
