package dev.trainyard.compiler.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.manifest.YamlWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SopsAgeSealerTest {
  private static final ObjectMapper YAML_READER = new ObjectMapper(new YAMLFactory());
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-29T12:34:56.789Z"), ZoneOffset.UTC);
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
              "ecdsa-sha2-nistp521 AAAAE2 trainyard@demo"),
          true);

  /** YamlWriter's settings, plus quotes on strings that YAML 1.1 reads as timestamps. */
  private static final ObjectMapper YAML_WRITER =
      new ObjectMapper(
          YAMLFactory.builder()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
              .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
              .stringQuotingChecker(
                  new StringQuotingChecker.Default() {
                    @Override
                    public boolean needToQuoteValue(String value) {
                      return super.needToQuoteValue(value)
                          || value.matches("\\d{4}-\\d\\d?-\\d\\d?([Tt ].*)?");
                    }
                  })
              .build());

  @TempDir static Path keys;
  static List<AgeRecipient> recipients = new ArrayList<>();
  static List<Path> identities = new ArrayList<>();

  @BeforeAll
  static void makeAgeIdentities() throws IOException {
    for (String name : List.of("flux.agekey", "backup.agekey")) {
      SecretTools.run(
          keys, Map.of(), "", List.of(SecretTools.built("age-keygen").toString(), "-o", name));
      String publicLine =
          Files.readAllLines(keys.resolve(name)).stream()
              .filter(line -> line.startsWith("# public key: "))
              .findFirst()
              .orElseThrow();
      String recipient = publicLine.substring("# public key: ".length());
      recipients.add(
          SealedSecretSealerTest.parsed(
              AgeRecipient.parse(
                  recipient, new SourceLocation("platform.yaml", 3, 5), "/secrets/recipients/0")));
      identities.add(keys.resolve(name));
    }
  }

  @Test
  @DisplayName("sops -d decrypts our file with either recipient's age key to the plain Secret")
  void realSopsDecryptsOurs(@TempDir Path dir) throws IOException {
    ObjectNode encrypted =
        new SopsAgeSealer(recipients, SecretTools.seeded(31), CLOCK).seal(SECRET);
    Path file = Files.writeString(dir.resolve("secret.yaml"), yamlQuotingTimestamps(encrypted));

    for (Path identity : identities) {
      String plain =
          SecretTools.run(
              dir,
              Map.of("SOPS_AGE_KEY_FILE", identity.toString()),
              "",
              List.of(SecretTools.built("sops").toString(), "--decrypt", file.toString()));
      JsonNode secret = YAML_READER.readTree(plain);
      assertEquals(YAML_READER.valueToTree(new PlainSecretSealer().seal(SECRET)), secret);
    }
  }

  @Test
  @DisplayName(
      "sops rejects our file when a clear-text metadata value changes: the MAC covers every leaf")
  void macCoversClearTextValues(@TempDir Path dir) throws IOException {
    ObjectNode encrypted =
        new SopsAgeSealer(recipients, SecretTools.seeded(32), CLOCK).seal(SECRET);
    ((ObjectNode) encrypted.get("metadata")).put("name", "other-ssh");
    Path file = Files.writeString(dir.resolve("secret.yaml"), yamlQuotingTimestamps(encrypted));

    SecretTools.ToolResult result =
        SecretTools.attempt(
            dir,
            Map.of("SOPS_AGE_KEY_FILE", identities.get(0).toString()),
            "",
            List.of(SecretTools.built("sops").toString(), "--decrypt", file.toString()));

    assertNotEquals(0, result.exitCode());
    assertTrue(result.stderr().contains("MAC mismatch"), result.stderr());
  }

  @Test
  @DisplayName(
      "the project's YamlWriter output of a SOPS Secret decrypts with real sops (lastmodified stays a string)")
  void realSopsDecryptsYamlWriterOutput(@TempDir Path dir) throws IOException {
    ObjectNode encrypted =
        new SopsAgeSealer(recipients, SecretTools.seeded(37), CLOCK).seal(SECRET);
    Path file = Files.writeString(dir.resolve("secret.yaml"), YamlWriter.write(encrypted));

    // An unquoted `lastmodified: 2026-11-29T12:34:56Z` is a YAML timestamp, and sops then fails
    // with
    // "'lastmodified' expected type 'string', got unconvertible type 'time.Time'".
    String plain =
        SecretTools.run(
            dir,
            Map.of("SOPS_AGE_KEY_FILE", identities.get(0).toString()),
            "",
            List.of(SecretTools.built("sops").toString(), "--decrypt", file.toString()));
    assertEquals(
        YAML_READER.valueToTree(new PlainSecretSealer().seal(SECRET)), YAML_READER.readTree(plain));
  }

  private static String yamlQuotingTimestamps(ObjectNode node) throws IOException {
    return YAML_WRITER.writeValueAsString(node);
  }

  @Test
  @DisplayName("each sops.age[].enc opens with the real age CLI to one 32-byte data key")
  void realAgeOpensDataKey(@TempDir Path dir) throws IOException {
    ObjectNode encrypted =
        new SopsAgeSealer(recipients, SecretTools.seeded(33), CLOCK).seal(SECRET);
    List<String> dataKeys = new ArrayList<>();

    for (int i = 0; i < identities.size(); i++) {
      Path enc =
          Files.writeString(
              dir.resolve("key" + i + ".age"), encrypted.at("/sops/age/" + i + "/enc").asText());
      SecretTools.run(
          dir,
          Map.of(),
          "",
          List.of(
              SecretTools.built("age").toString(),
              "--decrypt",
              "-i",
              identities.get(i).toString(),
              "-o",
              "key" + i + ".bin",
              enc.toString()));
      byte[] dataKey = Files.readAllBytes(dir.resolve("key" + i + ".bin"));
      assertEquals(32, dataKey.length);
      dataKeys.add(Base64.getEncoder().encodeToString(dataKey));
    }
    assertEquals(
        dataKeys.get(0), dataKeys.get(1), "one data key per file, wrapped for each recipient");
  }

  @Test
  @DisplayName(
      "only data is encrypted, with sops metadata from the clock and regex that Flux needs")
  void shape() {
    ObjectNode encrypted =
        new SopsAgeSealer(recipients, SecretTools.seeded(34), CLOCK).seal(SECRET);

    assertEquals(
        List.of("apiVersion", "data", "immutable", "kind", "metadata", "sops", "type"),
        encrypted.properties().stream().map(Map.Entry::getKey).toList());
    assertTrue(
        encrypted
            .at("/data/ssh-privatekey")
            .asText()
            .matches(
                "ENC\\[AES256_GCM,data:[A-Za-z0-9+/=]+,iv:[A-Za-z0-9+/=]{44},tag:[A-Za-z0-9+/=]{24},type:str]"));
    assertEquals("demo-3f2a9c-ssh", encrypted.at("/metadata/name").asText());
    assertEquals("2026-11-29T12:34:56Z", encrypted.at("/sops/lastmodified").asText());
    assertEquals("^(data|stringData)$", encrypted.at("/sops/encrypted_regex").asText());
    assertEquals(recipients.get(1).text(), encrypted.at("/sops/age/1/recipient").asText());
    assertTrue(
        encrypted
            .at("/sops/age/0/enc")
            .asText()
            .startsWith("-----BEGIN AGE ENCRYPTED FILE-----\n"));
    assertFalse(YamlWriter.write(encrypted).contains("OPENSSH PRIVATE KEY"));
  }

  @Test
  @DisplayName(
      "the same seed and clock give byte-identical YAML but for the age files (Jagged's own randomness); another seed changes every ciphertext")
  void deterministicFromSeedAndClock() {
    String first =
        YamlWriter.write(new SopsAgeSealer(recipients, SecretTools.seeded(35), CLOCK).seal(SECRET));
    String again =
        YamlWriter.write(new SopsAgeSealer(recipients, SecretTools.seeded(35), CLOCK).seal(SECRET));
    String other =
        YamlWriter.write(new SopsAgeSealer(recipients, SecretTools.seeded(36), CLOCK).seal(SECRET));

    assertEquals(withoutAgeFiles(first), withoutAgeFiles(again));
    assertNotEquals(first, again, "each age file has a fresh file key, share and nonce");
    assertNotEquals(withoutAgeFiles(first), withoutAgeFiles(other));
    assertTrue(
        new String(first.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).indexOf('\r')
            < 0);
  }

  private static String withoutAgeFiles(String yaml) {
    return yaml.replaceAll(
        "(?s)-----BEGIN AGE ENCRYPTED FILE-----.*?-----END AGE ENCRYPTED FILE-----", "<age file>");
  }
}
