package dev.trainyard.compiler.secrets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The {@code sops-age} policy: the plain Secret of {@link PlainSecretSealer} with its {@code data}
 * values encrypted the way {@code sops --encrypt --age <recipients> --encrypted-regex
 * '^(data|stringData)$'} does, so that Flux's kustomize-controller (or {@code sops -d}) decrypts
 * it; {@code apiVersion}, {@code kind} and {@code metadata} stay readable, as Flux requires.
 *
 * <pre>
 * apiVersion: v1
 * data: {ssh-privatekey: "ENC[AES256_GCM,data:...,iv:...,tag:...,type:str]", ...}
 * kind: Secret
 * metadata: {name: demo-3f2a9c-ssh, namespace: team-a}
 * sops:
 *   age: [{enc: "-----BEGIN AGE ENCRYPTED FILE-----\n...", recipient: age1...}]
 *   encrypted_regex: ^(data|stringData)$
 *   lastmodified: "2026-11-29T12:00:00Z"
 *   mac: ENC[AES256_GCM,...,type:str]
 *   version: 3.13.3
 * type: kubernetes.io/ssh-auth
 * </pre>
 *
 * <p>Rules from getsops/sops v3.13.3 ({@code sops.go Tree.Encrypt}, {@code shouldBeEncrypted},
 * {@code cmd/sops/common/common.go}, {@code stores/stores.go}): one random 32-byte data key per
 * file, encrypted to every age recipient; a leaf is encrypted when any key on its path matches the
 * regex; its GCM additional data is the path joined by {@code :} plus {@code :}; the MAC is the
 * upper-case hex SHA-512 of every leaf value in document order (encrypted or not), encrypted with
 * {@code lastmodified} (RFC 3339, UTC, seconds, from the injected clock) as additional data. Keys
 * are sorted at every level, so the order the MAC sees is the order any sorted emitter writes.
 */
public final class SopsAgeSealer implements SecretSealer {
  /** The SOPS release whose format this writes and whose tool the tests decrypt with. */
  public static final String SOPS_FORMAT_VERSION = "3.13.3";

  /** Flux needs apiVersion/kind/metadata in clear text (reference/gitops-status-secrets.md §4). */
  public static final String ENCRYPTED_REGEX = "^(data|stringData)$";

  private final List<AgeRecipient> recipients;
  private final SecureRandom random;
  private final Clock clock;

  /**
   * @param recipients at least one age recipient, from {@link AgeRecipient#parse}
   * @param random source of the data key and every IV (age's file key, ephemeral share and nonce
   *     come from Jagged's own SecureRandom)
   * @param clock gives {@code sops.lastmodified}; inject a fixed clock for reproducible output
   */
  public SopsAgeSealer(List<AgeRecipient> recipients, SecureRandom random, Clock clock) {
    this.recipients = List.copyOf(recipients);
    this.random = Objects.requireNonNull(random, "random");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (this.recipients.isEmpty()) {
      throw new IllegalArgumentException("sops-age needs at least one age recipient");
    }
  }

  @Override
  public ObjectNode seal(UnsealedSecret secret) {
    ObjectNode plain = new PlainSecretSealer().seal(secret);
    byte[] dataKey = new byte[32];
    random.nextBytes(dataKey);
    ObjectNode metadata = SecretNodes.object();
    metadata.set("age", ageKeys(dataKey));
    SopsValueCipher cipher = new SopsValueCipher(dataKey, random);
    MessageDigest mac = sha512();
    ObjectNode encrypted = (ObjectNode) encryptNode(plain, new ArrayList<>(), cipher, mac);
    String lastModified =
        DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS));
    String macHex = HexFormat.of().withUpperCase().formatHex(mac.digest());
    metadata.put("encrypted_regex", ENCRYPTED_REGEX);
    metadata.put("lastmodified", lastModified);
    metadata.put(
        "mac", cipher.encrypt(macHex.getBytes(StandardCharsets.US_ASCII), "str", lastModified));
    metadata.put("version", SOPS_FORMAT_VERSION);
    encrypted.set("sops", metadata);
    return sortedTopLevel(encrypted);
  }

  private ArrayNode ageKeys(byte[] dataKey) {
    ArrayNode keys = SecretNodes.object().arrayNode();
    for (AgeRecipient recipient : recipients) {
      ObjectNode entry = keys.addObject();
      entry.put("enc", AgeFileEncryptor.encrypt(dataKey, List.of(recipient)));
      entry.put("recipient", recipient.text());
    }
    return keys;
  }

  /**
   * Copies {@code node}, hashing every leaf into {@code mac} and encrypting those the regex
   * selects.
   */
  private JsonNode encryptNode(
      JsonNode node, List<String> path, SopsValueCipher cipher, MessageDigest mac) {
    if (node.isObject()) {
      ObjectNode out = SecretNodes.object();
      for (var field : node.properties()) {
        path.add(field.getKey());
        out.set(field.getKey(), encryptNode(field.getValue(), path, cipher, mac));
        path.remove(path.size() - 1);
      }
      return out;
    }
    if (!node.isTextual() && !node.isBoolean()) {
      throw new IllegalStateException(
          "sops sealer supports string and boolean leaves, got " + node.getNodeType());
    }
    byte[] plaintext =
        node.isBoolean()
            ? (node.booleanValue() ? "True" : "False").getBytes(StandardCharsets.US_ASCII)
            : node.textValue().getBytes(StandardCharsets.UTF_8);
    mac.update(plaintext);
    if (path.stream().noneMatch(key -> key.matches(ENCRYPTED_REGEX))) {
      return node;
    }
    String type = node.isBoolean() ? "bool" : "str";
    return SecretNodes.object()
        .textNode(cipher.encrypt(plaintext, type, String.join(":", path) + ":"));
  }

  private static ObjectNode sortedTopLevel(ObjectNode node) {
    TreeMap<String, JsonNode> fields = new TreeMap<>();
    node.properties().forEach(field -> fields.put(field.getKey(), field.getValue()));
    ObjectNode out = SecretNodes.object();
    fields.forEach(out::set);
    return out;
  }

  private static MessageDigest sha512() {
    try {
      return MessageDigest.getInstance("SHA-512");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-512 is missing from the JDK", e);
    }
  }
}
