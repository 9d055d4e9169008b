package dev.trainyard.gitops.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.secrets.SshKeyGenerator;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every kind of key ({@link PlantedKeys}) in every encoding and position: each is found at the line
 * where it starts, with its kind; nothing is found in public keys, certificates or random base64.
 */
class KeyScannerTest {
  private static final Map<String, PlantedKeys.Key> KEYS = PlantedKeys.all();
  private static final String HEAD =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\n";
  private final KeyScanner scanner = new KeyScanner();

  /**
   * A way to write a key into a file: the file's text, and the 1-based line where the key starts.
   */
  record Placement(String name, Function<PlantedKeys.Key, String> text, int line) {}

  static List<Placement> placements() {
    return List.of(
        new Placement(
            "PEM in a ConfigMap block scalar",
            k -> HEAD + "data:\n  id: |\n" + indent(k.pem(), "    "),
            7),
        new Placement(
            "PEM in an annotation with \\n escapes",
            k -> "metadata:\n  annotations:\n    note: \"" + k.pem().replace("\n", "\\n") + "\"\n",
            3),
        new Placement(
            "PEM in a YAML comment",
            k -> HEAD + "# old key, do not use:\n" + indent(k.pem(), "# "),
            6),
        new Placement(
            "PEM folded into one line", k -> "value: " + k.pem().replace("\n", " ") + "\n", 1),
        new Placement(
            "base64 of the PEM in Secret data",
            k -> "kind: Secret\ndata:\n  ssh-privatekey: " + b64(k.pem()) + "\n",
            3),
        new Placement(
            "base64 of the PEM wrapped at 76 in a block scalar",
            k -> HEAD + "data:\n  key.b64: |\n" + indent(wrap(b64(k.pem()), 76), "    "),
            7),
        new Placement(
            "base64 of the PEM split across comment lines",
            k -> "a: 1\n" + indent(wrap(b64(k.pem()), 13), "#  "),
            2),
        new Placement(
            "base64 of the PEM split into list items",
            k -> "parts:\n" + indent(wrap(b64(k.pem()), 50), "  - "),
            2),
        new Placement(
            "base64 of the PEM in a double-quoted JSON string with \\n",
            k -> "{\"k\": \"" + wrap(b64(k.pem()), 60).replace("\n", "\\n") + "\"}\n",
            1),
        new Placement(
            "base64 of the PEM in a double-quoted YAML string continued with \\ every 20",
            k -> "key: \"" + wrap(b64(k.pem()), 20).strip().replace("\n", "\\\n  ") + "\"\n",
            1),
        new Placement(
            "base64 of the PEM in a double-quoted YAML string continued with \\ every 37",
            k -> "key: \"" + wrap(b64(k.pem()), 37).strip().replace("\n", "\\\n  ") + "\"\n",
            1),
        new Placement("base64 of base64 of the PEM", k -> "x: " + b64(b64(k.pem())) + "\n", 1),
        new Placement(
            "base64 of base64 of base64 of the PEM", k -> "x: " + b64(b64(b64(k.pem()))) + "\n", 1),
        new Placement(
            "the armor's body alone in an env value",
            k -> "env:\n- name: KEY\n  value: " + k.bodyBase64() + "\n",
            3),
        new Placement(
            "the body alone, URL-safe base64 without padding",
            k -> "k: " + Base64.getUrlEncoder().withoutPadding().encodeToString(k.body()) + "\n",
            1),
        new Placement(
            "base64 of the body glued behind other letters",
            k -> "blob: abc" + k.bodyBase64() + "\n",
            1),
        new Placement(
            "base64 after KEY= in an env file", k -> "A=1\nKEY=" + b64(k.pem()) + "\n", 2),
        new Placement(
            "raw DER or OpenSSH binary in a binary file",
            k -> "\u0001\u0002\n" + new String(k.body(), StandardCharsets.ISO_8859_1),
            2));
  }

  @TestFactory
  @DisplayName(
      "every kind of private key is found in every encoding and position, at the line it starts")
  Stream<DynamicTest> everyKeyEveryPlacement() {
    List<DynamicTest> tests = new ArrayList<>();
    for (Map.Entry<String, PlantedKeys.Key> key : KEYS.entrySet()) {
      for (Placement p : placements()) {
        tests.add(
            DynamicTest.dynamicTest(
                key.getKey() + ": " + p.name(),
                () -> {
                  List<KeyFinding> found =
                      scanner.scan(
                          p.text().apply(key.getValue()).getBytes(StandardCharsets.ISO_8859_1));
                  assertFalse(found.isEmpty(), "nothing found");
                  assertEquals(p.line(), found.get(0).line(), found.toString());
                  assertTrue(found.get(0).kind().contains("private key"), found.toString());
                }));
      }
    }
    return tests.stream();
  }

  @Test
  @DisplayName(
      "kinds are named: OpenSSH, PKCS#8, PKCS#1, SEC1, encrypted PKCS#8, PGP, age, PuTTY; encodings outermost first")
  void kindsAndEncodings() {
    assertEquals("OpenSSH private key (PEM)", only(KEYS.get("openssh").pem()).describe());
    assertEquals(
        "OpenSSH private key (base64 → PEM)",
        only("x: " + b64(KEYS.get("openssh").pem())).describe());
    assertEquals(
        "OpenSSH private key (base64 → binary)",
        only("x: " + KEYS.get("openssh").bodyBase64()).describe());
    assertEquals(
        "PKCS#8 private key (base64 → base64 → PEM)",
        only("x: " + b64(b64(KEYS.get("pkcs8-rsa").pem()))).describe());
    assertEquals(
        "RSA private key (PKCS#1) (base64 → DER)",
        only("x: " + KEYS.get("pkcs1-rsa").bodyBase64()).describe());
    assertEquals("EC private key (SEC1) (PEM)", only(KEYS.get("sec1-ec").pem()).describe());
    assertEquals(
        "PKCS#8 private key (base64 → DER)",
        only("x: " + KEYS.get("pkcs8-ed25519").bodyBase64()).describe());
    assertEquals(
        "encrypted PKCS#8 private key (PEM)",
        only("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----")
            .describe());
    assertEquals(
        "PGP private key block (PEM)", only("-----BEGIN PGP PRIVATE KEY BLOCK-----\n").describe());
    assertEquals(
        "SSH2 ENCRYPTED private key (PEM)",
        only("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n").describe());
    assertEquals(
        "age secret key (Bech32)",
        only("# AGE-SECRET-KEY-1" + "QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQY")
            .describe());
    assertEquals(
        "PuTTY private key (PPK)", only("PuTTY-User-Key-File-3: ssh-ed25519\n").describe());
  }

  @Test
  @DisplayName(
      "one finding per key: the PEM body inside its armor is not a second key; two keys are two findings")
  void oneFindingPerKey() {
    String pem = KEYS.get("pkcs8-rsa").pem();
    assertEquals(1, scanner.scan(pem.getBytes(StandardCharsets.UTF_8)).size());
    List<KeyFinding> two =
        scanner.scan((pem + "---\n" + KEYS.get("openssh").pem()).getBytes(StandardCharsets.UTF_8));
    assertEquals(
        List.of(1, pem.split("\n").length + 2),
        two.stream().map(KeyFinding::line).toList(),
        two.toString());
  }

  @Test
  @DisplayName(
      "public keys, certificates, sealed-looking ciphertext and 300 random base64 blobs hold no private key")
  void noFalsePositives() {
    String cert =
        "-----BEGIN CERTIFICATE-----\nMIIDQzCCAiugAwIBAgIUUb7HXbGaqDAuao717mZlq5VnIoAwDQYJKoZIhvcNAQEL\n-----END CERTIFICATE-----\n";
    String ssh = new SshKeyGenerator(new SecureRandom()).generate("c").publicKeyAuthorized();
    StringBuilder text =
        new StringBuilder(
            cert
                + "ssh-publickey: "
                + b64(ssh)
                + "\npub: "
                + ssh
                + "\n"
                + "-----BEGIN PUBLIC KEY-----\n-----BEGIN AGE ENCRYPTED FILE-----\nENC[AES256_GCM,data:abc=,iv:def=,tag:ghi=,type:str]\n");
    Random random = new Random(42);
    for (int i = 0; i < 300; i++) {
      byte[] bytes = new byte[50 + random.nextInt(2000)];
      random.nextBytes(bytes);
      text.append("blob")
          .append(i)
          .append(": ")
          .append(Base64.getEncoder().encodeToString(bytes))
          .append('\n');
    }
    assertEquals(List.of(), scanner.scan(text.toString().getBytes(StandardCharsets.UTF_8)));
  }

  private KeyFinding only(String text) {
    List<KeyFinding> found = scanner.scan(text.getBytes(StandardCharsets.UTF_8));
    assertEquals(1, found.size(), found.toString());
    return found.get(0);
  }

  static String b64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  static String indent(String text, String prefix) {
    StringBuilder out = new StringBuilder();
    for (String line : text.split("\n")) {
      out.append(prefix).append(line).append('\n');
    }
    return out.toString();
  }

  static String wrap(String text, int width) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length(); i += width) {
      out.append(text, i, Math.min(text.length(), i + width)).append('\n');
    }
    return out.toString();
  }

  @Test
  @DisplayName(
      "base64 of a key glued right after another key's END line (files joined without a line break) is found too")
  void gluedAfterArmor() {
    String first = KEYS.get("openssh").pem().strip();
    String text = first + b64(KEYS.get("pkcs1-rsa").pem()) + "\n";
    int end = first.split("\n").length;
    assertEquals(
        List.of(
            new KeyFinding(1, "OpenSSH private key", "PEM"),
            new KeyFinding(end, "RSA private key (PKCS#1)", "base64 → PEM")),
        scanner.scan(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  @DisplayName(
      "a decoded layer exactly 90 % printable is searched again (the bound is inclusive, in integers)")
  void exactlyNinetyPercentPrintable() {
    StringBuilder layer = new StringBuilder(b64(KEYS.get("openssh").pem()));
    while (layer.length() % 9 != 0) {
      layer.append(' ');
    }
    layer.append("\0".repeat(layer.length() / 9));
    String text =
        "x: "
            + Base64.getEncoder()
                .encodeToString(layer.toString().getBytes(StandardCharsets.ISO_8859_1))
            + "\n";
    assertEquals(
        List.of(new KeyFinding(1, "OpenSSH private key", "base64 → base64 → PEM")),
        scanner.scan(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  @DisplayName(
      "a key whose first base64 character is the last of its line (wrapped at 5) is named at that line")
  void startsOnALinesLastCharacter() {
    String encoded = b64("#k\n" + KEYS.get("openssh").pem());
    String text = encoded.substring(0, 5) + "\n" + encoded.substring(5) + "\n";
    assertEquals(
        List.of(new KeyFinding(1, "OpenSSH private key", "base64 → PEM")),
        scanner.scan(text.getBytes(StandardCharsets.UTF_8)));
  }
}
