package dev.trainyard.gitops.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * UTF-16 and UTF-32 text is recognised with and without a byte order mark; UTF-8, binary and random
 * bytes are not.
 */
class WideTextTest {
  private static final String TEXT = "kind: Secret\ndata:\n  k: v\n";
  private static final Charset UTF_32BE = Charset.forName("UTF-32BE");
  private static final Charset UTF_32LE = Charset.forName("UTF-32LE");

  @Test
  @DisplayName("a byte order mark names the encoding and is dropped from the text")
  void byteOrderMarks() {
    assertEquals(new WideText.Decoded("UTF-16BE", TEXT), decode(StandardCharsets.UTF_16BE, true));
    assertEquals(new WideText.Decoded("UTF-16LE", TEXT), decode(StandardCharsets.UTF_16LE, true));
    assertEquals(new WideText.Decoded("UTF-32BE", TEXT), decode(UTF_32BE, true));
    assertEquals(new WideText.Decoded("UTF-32LE", TEXT), decode(UTF_32LE, true));
  }

  @Test
  @DisplayName(
      "without a byte order mark, the NUL bytes between ASCII characters name the encoding")
  void unmarked() {
    assertEquals(new WideText.Decoded("UTF-16BE", TEXT), decode(StandardCharsets.UTF_16BE, false));
    assertEquals(new WideText.Decoded("UTF-16LE", TEXT), decode(StandardCharsets.UTF_16LE, false));
    assertEquals(new WideText.Decoded("UTF-32BE", TEXT), decode(UTF_32BE, false));
    assertEquals(new WideText.Decoded("UTF-32LE", TEXT), decode(UTF_32LE, false));
  }

  @Test
  @DisplayName(
      "mostly ASCII is enough (up to 10% other characters); one unit, UTF-8, a lone BOM byte, DER and random bytes are not wide text")
  void notWide() {
    String mixed = "a".repeat(91) + "é".repeat(9);
    assertEquals(
        Optional.of(new WideText.Decoded("UTF-16LE", mixed)),
        WideText.decode(mixed.getBytes(StandardCharsets.UTF_16LE)));
    String tooMixed = "a".repeat(80) + "\u0100".repeat(20);
    assertEquals(Optional.empty(), WideText.decode(tooMixed.getBytes(StandardCharsets.UTF_16LE)));
    String nuls = "a".repeat(85) + "\u0000".repeat(15);
    assertEquals(Optional.empty(), WideText.decode(nuls.getBytes(StandardCharsets.UTF_16LE)));
    assertEquals(Optional.empty(), WideText.decode("a".getBytes(StandardCharsets.UTF_16LE)));
    assertEquals(Optional.empty(), WideText.decode(TEXT.getBytes(StandardCharsets.UTF_8)));
    assertEquals(Optional.empty(), WideText.decode(new byte[] {(byte) 0xFF}));
    assertEquals(Optional.empty(), WideText.decode(new byte[] {(byte) 0xFE, 0x41, 0x42, 0x43}));
    assertEquals(Optional.empty(), WideText.decode(PlantedKeys.all().get("pkcs8-rsa").body()));
    Random random = new Random(7);
    for (int i = 0; i < 200; i++) {
      byte[] bytes = new byte[2 + random.nextInt(5000)];
      random.nextBytes(bytes);
      bytes[0] = 0x41;
      assertEquals(Optional.empty(), WideText.decode(bytes), "random bytes " + i);
    }
  }

  @Test
  @DisplayName(
      "only the first 4096 bytes decide: a UTF-16 file whose tail is not ASCII is still UTF-16")
  void sample() {
    String text = "a".repeat(WideText.SAMPLE) + "\u4e00".repeat(WideText.SAMPLE);
    assertEquals(
        "UTF-16LE",
        WideText.decode(text.getBytes(StandardCharsets.UTF_16LE)).orElseThrow().encoding());
  }

  @Test
  @DisplayName(
      "every kind of key in UTF-16 and UTF-32 text is found at its line, the encoding named first")
  void keysInWideText() {
    KeyScanner scanner = new KeyScanner();
    for (var key : PlantedKeys.all().entrySet()) {
      String text =
          "apiVersion: v1\nkind: ConfigMap\ndata:\n  k: |\n"
              + KeyScannerTest.indent(key.getValue().pem(), "    ");
      for (Charset cs :
          List.of(StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE, UTF_32LE, UTF_32BE)) {
        List<KeyFinding> found = scanner.scan(text.getBytes(cs));
        assertEquals(1, found.size(), key.getKey() + " " + cs + ": " + found);
        assertEquals(5, found.get(0).line());
        assertEquals(cs.name() + " → PEM", found.get(0).encoding());
        assertTrue(found.get(0).kind().contains("private key"), found.toString());
      }
    }
  }

  private static WideText.Decoded decode(Charset cs, boolean mark) {
    return WideText.decode(((mark ? "\uFEFF" : "") + TEXT).getBytes(cs)).orElseThrow();
  }

  @Test
  @DisplayName(
      "the NUL pattern at its thresholds (exactly 90 % of high bytes NUL, exactly 10 % of low bytes NUL) is UTF-16; two units are enough")
  void thresholds() {
    String edge = "a".repeat(90) + "\u0100".repeat(10);
    assertEquals(
        Optional.of(new WideText.Decoded("UTF-16LE", edge)),
        WideText.decode(edge.getBytes(StandardCharsets.UTF_16LE)));
    assertEquals(
        Optional.of(new WideText.Decoded("UTF-16LE", "ab")),
        WideText.decode("ab".getBytes(StandardCharsets.UTF_16LE)));
  }

  @Test
  @DisplayName(
      "a byte order mark decides even when the text is not ASCII (a Japanese comment), and a file that is only a mark is empty text")
  void markWithoutAscii() {
    String japanese = "# 日本語のコメント\n".repeat(20);
    for (Charset cs :
        List.of(StandardCharsets.UTF_16BE, StandardCharsets.UTF_16LE, UTF_32BE, UTF_32LE)) {
      assertEquals(
          Optional.of(new WideText.Decoded(cs.name(), japanese)),
          WideText.decode(("\uFEFF" + japanese).getBytes(cs)),
          cs.name());
      assertEquals(
          Optional.of(new WideText.Decoded(cs.name(), "")),
          WideText.decode("\uFEFF".getBytes(cs)),
          cs.name());
    }
  }
}
