package dev.trainyard.gitops.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The scanner's bounds: layers, the printable share that lets decoded text be decoded again, line
 * numbers, armor spans.
 */
class KeyScannerEdgesTest {
  private static final PlantedKeys.Key KEY = PlantedKeys.all().get("openssh");
  private final KeyScanner scanner = new KeyScanner();

  private List<String> found(String text) {
    return scanner.scan(text.getBytes(StandardCharsets.ISO_8859_1)).stream()
        .map(f -> f.line() + " " + f.describe())
        .toList();
  }

  @Test
  @DisplayName("three layers of base64 around a PEM are found; a fourth is not searched")
  void layers() {
    String three = KeyScannerTest.b64(KeyScannerTest.b64(KeyScannerTest.b64(KEY.pem())));
    assertEquals(List.of("1 OpenSSH private key (base64 → base64 → base64 → PEM)"), found(three));
    assertEquals(List.of(), found(KeyScannerTest.b64(three)));
    assertEquals(3, KeyScanner.MAX_LAYERS);
  }

  @Test
  @DisplayName(
      "decoded text is decoded again when at least 90% of it is printable (space, ~, tab, CR, LF count; DEL does not)")
  void printableShare() {
    String inner = KeyScannerTest.b64(KEY.pem());
    String printable = " ~\t\r\n";
    StringBuilder exact = new StringBuilder(inner);
    for (int i = 0; exact.length() < inner.length() * 9 / 8; i++) {
      exact.append(printable.charAt(i % printable.length()));
    }
    int total = exact.length() * 10 / 9;
    StringBuilder ninety = new StringBuilder(exact);
    while (ninety.length() < total) {
      ninety.append('\u007f');
    }
    // The most DEL characters that keep 90% printable: exactly 90% when the length divides.
    assertEquals(1, found(b64Latin1(ninety.toString())).size(), "90% printable");
    assertEquals(
        List.of(), found(b64Latin1(ninety + "\u007f".repeat(10))), "just under 90% printable");
    StringBuilder less = new StringBuilder(exact);
    while (less.length() < exact.length() * 100 / 88) {
      less.append('\u007f');
    }
    assertEquals(List.of(), found(b64Latin1(less.toString())), "88% printable");
    StringBuilder control = new StringBuilder(exact);
    while (control.length() < exact.length() * 100 / 88) {
      control.append('\u001f');
    }
    assertEquals(
        List.of(),
        found(b64Latin1(control.toString())),
        "88% printable, the rest control characters");
  }

  @Test
  @DisplayName("the file itself is searched whatever its share of binary bytes")
  void binaryFileSearched() {
    String junk = "\u0000\u0001\u00ff".repeat(400);
    assertEquals(
        List.of("2 OpenSSH private key (base64 → PEM)"),
        found(junk + "\nk: " + KeyScannerTest.b64(KEY.pem()) + "\n" + junk));
  }

  @Test
  @DisplayName(
      "line numbers count LF from the first byte: a key after a leading empty line is on line 2; CRLF files count alike")
  void lines() {
    assertEquals(List.of("2 OpenSSH private key (PEM)"), found("\n" + KEY.pem()));
    assertEquals(
        List.of("3 OpenSSH private key (PEM)"),
        found("a: 1\r\n\r\n" + KEY.pem().replace("\n", "\r\n")));
  }

  @Test
  @DisplayName(
      "a key inside wrapped base64 is reported at the line of the base64 where its armor starts")
  void nestedOrigin() {
    String wrapped =
        KeyScannerTest.wrap(KeyScannerTest.b64("padding line\n".repeat(30) + KEY.pem()), 20);
    // 390 decoded bytes before the PEM are 520 base64 characters: 26 full lines of 20, so the armor
    // starts on line 27 (+1 header line).
    assertEquals(List.of("28 OpenSSH private key (base64 → PEM)"), found("data: |\n" + wrapped));
  }

  @Test
  @DisplayName("armor without an END line: the rest of the file is its body, not a second key")
  void unterminatedArmor() {
    String pkcs1 = PlantedKeys.all().get("pkcs1-rsa").pem();
    String open = pkcs1.substring(0, pkcs1.indexOf("-----END"));
    assertEquals(List.of("1 RSA private key (PKCS#1) (PEM)"), found(open));
    assertEquals(
        List.of(
            "1 RSA private key (PKCS#1) (PEM)",
            "x RSA private key (PKCS#1) (base64 → DER)"
                .replace("x", String.valueOf(pkcs1.split("\n").length + 1))),
        found(pkcs1 + "k: " + PlantedKeys.all().get("pkcs1-rsa").bodyBase64() + "\n"));
  }

  private static String b64(String text) {
    return KeyScannerTest.b64(text);
  }

  private static String b64Latin1(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.ISO_8859_1));
  }
}
