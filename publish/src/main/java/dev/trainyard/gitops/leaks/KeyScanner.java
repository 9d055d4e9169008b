package dev.trainyard.gitops.leaks;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds private key material in a file's bytes, in any form a key reaches a GitOps tree: PEM armor
 * (PKCS#1, SEC1, PKCS#8 plain and encrypted, OpenSSH, PGP, SSH2), the armor's body alone (base64 of
 * DER or of {@code openssh-key-v1}), raw DER, age secret keys, PuTTY key files, and base64 of any
 * of these up to {@link #MAX_LAYERS} layers deep — wrapped, split across lines, in comments,
 * annotations, ConfigMaps or any other field (gitleaks decodes likewise: gitleaks#807, #1426). A
 * base64 run is decoded at each of its four alignments, so text glued in front of it (a key name, a
 * list dash) does not hide it. SealedSecret and SOPS ciphertexts are random bytes and never match.
 * UTF-16 and UTF-32 files are decoded first ({@link WideText}, which also names what is out of
 * scope: compressed, archived or encrypted data). Thread-safe; the findings never contain key
 * bytes.
 */
public final class KeyScanner {
  /** Layers of base64 decoded around a key (base64 of base64 of a PEM file is 2). */
  public static final int MAX_LAYERS = 3;

  private static final Pattern ARMOR =
      Pattern.compile("-{4,5} ?BEGIN\\s+((?:[A-Z0-9]+\\s+)*?)PRIVATE\\s+KEY(\\s+BLOCK)?\\s*-{4,5}");
  private static final Pattern ARMOR_END =
      Pattern.compile("-{4,5} ?END\\s+(?:[A-Z0-9]+\\s+)*?PRIVATE\\s+KEY(?:\\s+BLOCK)?\\s*-{4,5}");

  /** age's Bech32 secret key (age-encryption.org/v1: HRP AGE-SECRET-KEY-, 32 bytes of key). */
  private static final Pattern AGE = Pattern.compile("AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}");

  private static final Pattern PUTTY = Pattern.compile("PuTTY-User-Key-File-[0-9]+:");

  /** OpenSSH's PROTOCOL.key: a private key file's binary form starts with this. */
  private static final String OPENSSH_MAGIC = "openssh-key-v1\0";

  /**
   * Decoded text is searched again only when 9 tenths of it are printable: wrongly aligned decodes
   * are noise.
   */
  private static final int PRINTABLE_TENTHS = 9;

  private record Hit(int offset, String kind, String encoding) {}

  /**
   * The keys in {@code content}, one finding per key and line, in order. The bytes are searched as
   * they are and, when they are UTF-16 or UTF-32 text ({@link WideText}), as the decoded text too;
   * the encoding then leads the finding's, e.g. {@code UTF-16LE → PEM}.
   */
  public List<KeyFinding> scan(byte[] content) {
    List<KeyFinding> found =
        new ArrayList<>(scanText(new String(content, StandardCharsets.ISO_8859_1), ""));
    WideText.decode(content)
        .ifPresent(wide -> found.addAll(scanText(wide.text(), wide.encoding() + " → ")));
    Map<String, KeyFinding> unique = new LinkedHashMap<>();
    found.stream()
        .sorted(Comparator.comparingInt(KeyFinding::line))
        .forEach(f -> unique.putIfAbsent(f.line() + "\0" + f.kind(), f));
    return List.copyOf(unique.values());
  }

  private List<KeyFinding> scanText(String text, String via) {
    List<Hit> hits = new ArrayList<>();
    scan(text, 0, via, i -> i, hits);
    int[] lineStarts = lineStarts(text);
    return hits.stream()
        .sorted(Comparator.comparingInt(Hit::offset))
        .map(h -> new KeyFinding(line(lineStarts, h.offset()), h.kind(), h.encoding()))
        .toList();
  }

  private void scan(String text, int layer, String via, IntUnaryOperator outer, List<Hit> out) {
    List<int[]> armored = armor(text, via, outer, out);
    words(text, via, outer, out);
    binary(text, armored, via, outer, out);
    if (layer >= MAX_LAYERS || (layer > 0 && !printable(text))) {
      return;
    }
    for (Base64Runs.Run run : Base64Runs.of(text)) {
      if (inside(armored, run.origin(0))) {
        continue;
      }
      for (int skip = 0; skip < 4; skip++) {
        byte[] decoded = decode(run.chars().substring(skip));
        int from = skip;
        scan(
            new String(decoded, StandardCharsets.ISO_8859_1),
            layer + 1,
            via + "base64 → ",
            d -> outer.applyAsInt(run.origin(from + d / 3 * 4)),
            out);
      }
    }
  }

  /** PEM armor; returns the spans from each BEGIN to its END, whose base64 body is the same key. */
  private static List<int[]> armor(String text, String via, IntUnaryOperator outer, List<Hit> out) {
    List<int[]> spans = new ArrayList<>();
    Matcher m = ARMOR.matcher(text);
    while (m.find()) {
      out.add(
          new Hit(
              outer.applyAsInt(m.start()),
              armorKind(m.group(1).trim().replaceAll("\\s+", " ")),
              via + "PEM"));
      Matcher end = ARMOR_END.matcher(text);
      int stop = end.find(m.end()) ? end.end() : text.length();
      spans.add(new int[] {m.start(), stop});
    }
    return spans;
  }

  private static void words(String text, String via, IntUnaryOperator outer, List<Hit> out) {
    Matcher age = AGE.matcher(text);
    while (age.find()) {
      out.add(new Hit(outer.applyAsInt(age.start()), "age secret key", via + "Bech32"));
    }
    Matcher putty = PUTTY.matcher(text);
    while (putty.find()) {
      out.add(new Hit(outer.applyAsInt(putty.start()), "PuTTY private key", via + "PPK"));
    }
  }

  private static void binary(
      String text, List<int[]> armored, String via, IntUnaryOperator outer, List<Hit> out) {
    for (int i = text.indexOf(OPENSSH_MAGIC); i >= 0; i = text.indexOf(OPENSSH_MAGIC, i + 1)) {
      out.add(new Hit(outer.applyAsInt(i), "OpenSSH private key", via + "binary"));
    }
    byte[] bytes = null;
    for (int i = text.indexOf('0'); i >= 0; i = text.indexOf('0', i + 1)) {
      if (inside(armored, i)) {
        continue;
      }
      bytes = bytes == null ? text.getBytes(StandardCharsets.ISO_8859_1) : bytes;
      int at = i;
      DerPrivateKey.at(bytes, i)
          .ifPresent(kind -> out.add(new Hit(outer.applyAsInt(at), kind, via + "DER")));
    }
  }

  private static String armorKind(String label) {
    return switch (label) {
      case "" -> "PKCS#8 private key";
      case "ENCRYPTED" -> "encrypted PKCS#8 private key";
      case "RSA" -> "RSA private key (PKCS#1)";
      case "EC" -> "EC private key (SEC1)";
      case "OPENSSH" -> "OpenSSH private key";
      case "PGP" -> "PGP private key block";
      default -> label + " private key";
    };
  }

  private static byte[] decode(String chars) {
    String standard = chars.replace('-', '+').replace('_', '/');
    int usable = standard.length() % 4 == 1 ? standard.length() - 1 : standard.length();
    try {
      return Base64.getDecoder().decode(standard.substring(0, usable));
    } catch (IllegalArgumentException e) {
      return new byte[0];
    }
  }

  private static boolean printable(String text) {
    int printable = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\r' || c == '\t') {
        printable++;
      }
    }
    // Integers: 0.9 * n in floating point is a hair above 9n/10 for some n, which would refuse
    // exactly 90%.
    return text.length() > 0 && printable * 10L >= (long) PRINTABLE_TENTHS * text.length();
  }

  private static boolean inside(List<int[]> spans, int offset) {
    return spans.stream().anyMatch(s -> offset >= s[0] && offset < s[1]);
  }

  private static int[] lineStarts(String text) {
    List<Integer> starts = new ArrayList<>(List.of(0));
    for (int i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
      starts.add(i + 1);
    }
    return starts.stream().mapToInt(Integer::intValue).toArray();
  }

  private static int line(int[] starts, int offset) {
    int index = Arrays.binarySearch(starts, offset);
    return (index >= 0 ? index : -index - 2) + 1;
  }
}
