package dev.trainyard.compiler.diagnostic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/reference/diagnostics.md} has one entry per {@link DiagnosticCode}: a {@code ### ID}
 * heading whose section names the enum constant and has a trigger, an example, the message and the
 * fix. A new code without an entry, or an entry for a code that does not exist, fails the build.
 */
class DiagnosticsReferenceTest {
  private static final Pattern HEADING = Pattern.compile("(?m)^### ([EW][0-9]{3})\\s*$");
  private static final List<String> PARTS =
      List.of("**Trigger.**", "**Example.**", "**Message.**", "**Fix.**");

  @Test
  @DisplayName(
      "every DiagnosticCode has exactly one entry in docs/reference/diagnostics.md, and every entry"
          + " names an existing code")
  void everyCodeHasOneEntry() throws IOException {
    Map<String, String> sections = sections(read());
    List<String> missing = new ArrayList<>();
    for (DiagnosticCode code : DiagnosticCode.values()) {
      if (!sections.containsKey(code.id())) {
        missing.add(code.id() + " " + code.name());
      }
    }
    assertEquals(List.of(), missing, "codes without an entry in docs/reference/diagnostics.md");
    List<String> ids = Arrays.stream(DiagnosticCode.values()).map(DiagnosticCode::id).toList();
    List<String> unknown = sections.keySet().stream().filter(id -> !ids.contains(id)).toList();
    assertEquals(List.of(), unknown, "entries for codes DiagnosticCode does not have");
  }

  @Test
  @DisplayName(
      "each entry names its enum constant and gives the trigger, an example, the message and the fix")
  void everyEntryIsComplete() throws IOException {
    Map<String, String> sections = sections(read());
    List<String> incomplete = new ArrayList<>();
    for (DiagnosticCode code : DiagnosticCode.values()) {
      String body = sections.getOrDefault(code.id(), "");
      if (!body.contains("`" + code.name() + "`")) {
        incomplete.add(code.id() + ": does not name `" + code.name() + "`");
      }
      for (String part : PARTS) {
        if (!body.contains(part)) {
          incomplete.add(code.id() + ": no " + part);
        }
      }
    }
    assertEquals(List.of(), incomplete);
  }

  @Test
  @DisplayName(
      "the index at the top links every entry once, in the order of the entries (a new code's entry"
          + " without its index link fails)")
  void indexLinksEveryEntry() throws IOException {
    String text = read();
    List<String> entries = new ArrayList<>(sections(text).keySet());
    Matcher link =
        Pattern.compile("\\[([EW][0-9]{3})\\]\\(#([ew][0-9]{3})\\)")
            .matcher(text.substring(0, text.indexOf("\n## ", text.indexOf("\n## Index\n") + 1)));
    List<String> linked = new ArrayList<>();
    while (link.find()) {
      assertEquals(link.group(1).toLowerCase(Locale.ROOT), link.group(2), link.group());
      linked.add(link.group(1));
    }
    assertEquals(entries, linked);
  }

  /** The section of each {@code ### ID} heading, up to the next heading; a repeated ID fails. */
  private static Map<String, String> sections(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m = HEADING.matcher(text);
    List<int[]> starts = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    while (m.find()) {
      starts.add(new int[] {m.start(), m.end()});
      ids.add(m.group(1));
    }
    for (int i = 0; i < ids.size(); i++) {
      int end = i + 1 < ids.size() ? starts.get(i + 1)[0] : text.length();
      int next = text.indexOf("\n## ", starts.get(i)[1]);
      if (next >= 0 && next < end) {
        end = next;
      }
      String previous = out.put(ids.get(i), text.substring(starts.get(i)[1], end));
      assertTrue(previous == null, ids.get(i) + " has two entries");
    }
    return out;
  }

  private static String read() throws IOException {
    Path doc = repoRoot().resolve("docs/reference/diagnostics.md");
    assertTrue(Files.isRegularFile(doc), "no " + doc);
    return Files.readString(doc, StandardCharsets.UTF_8);
  }

  private static Path repoRoot() {
    for (Path at = Path.of("").toAbsolutePath(); at != null; at = at.getParent()) {
      if (Files.isDirectory(at.resolve("docs/reference"))) {
        return at;
      }
    }
    return Path.of("").toAbsolutePath();
  }
}
