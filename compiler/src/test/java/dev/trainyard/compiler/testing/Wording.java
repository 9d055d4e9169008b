package dev.trainyard.compiler.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Diagnostic wording approved in a golden file instead of pinned in Java: one file per test class,
 * {@code golden/wording/<TestClass>.txt}, so a reworded message or hint is one reviewed diff and
 * the Java test keeps asserting code, location, exit code and structure.
 *
 * <pre>{@code
 * @RegisterExtension static final Wording WORDING = new Wording();
 * ...
 * assertEquals(DiagnosticCode.RUN_HANGS_AT_RENDEZVOUS, d.code());
 * WORDING.approve(d.hint());
 * }</pre>
 *
 * <p>File shape: blocks headed {@code == <method>[<invocation>] #<n>}, where {@code n} counts the
 * approvals inside one test (1, 2, …; a text the test already approved is not repeated) and {@code
 * [<invocation>]} is a parameterized test's invocation index; the block's text follows verbatim up
 * to the next header. Temporary folders read {@code <tmp>}.
 *
 * <p>Without a flag each {@link #approve} compares at once and fails naming the file and block.
 * {@code -Dgolden.update=true} records instead and, after the class, rewrites the file: blocks of
 * the tests that ran are replaced by what they approved (a block a test no longer approves goes),
 * blocks of tests that did not run stay. Read the diff before committing it.
 */
public final class Wording implements BeforeEachCallback, AfterAllCallback {
  private static final boolean UPDATE = Boolean.getBoolean("golden.update");
  private static final Path DIR =
      Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("golden/wording");
  private static final Pattern HEADER = Pattern.compile("(?m)^== (.+)$");
  private static final Pattern INVOCATION = Pattern.compile("test-template-invocation:#(\\d+)");
  private static final Pattern TEMP =
      Pattern.compile(
          Pattern.quote(System.getProperty("java.io.tmpdir").replaceAll("/+$", ""))
              + "/junit[-0-9]*");
  private static final Pattern COMMIT =
      Pattern.compile("\\b(?=[0-9a-f]*[0-9])[0-9a-f]{40}\\b|\\b(?=[0-9a-f]*[0-9])[0-9a-f]{12}\\b");

  private Path file;
  private Map<String, String> approved;
  private final Map<String, String> recorded = new TreeMap<>();
  private final Set<String> ran = new HashSet<>();
  private final Set<String> seen = new HashSet<>();
  private String test;
  private int count;

  @Override
  public void beforeEach(ExtensionContext context) {
    if (file == null) {
      file = DIR.resolve(context.getRequiredTestClass().getSimpleName() + ".txt");
      approved = read(file);
    }
    String method = context.getRequiredTestMethod().getName();
    Matcher m = INVOCATION.matcher(context.getUniqueId());
    test = m.find() ? method + "[" + m.group(1) + "]" : method;
    ran.add(test);
    seen.clear();
    count = 0;
  }

  /** Approves {@code d}'s whole wording: {@code <code> <message>} and, if any, its hint. */
  public void approve(Diagnostic d) {
    approve(d.code().id() + " " + d.message() + (d.hint() == null ? "" : "\nhint: " + d.hint()));
  }

  /** Approves {@code text} (a message, a hint, printed diagnostics) as the test's next block. */
  public void approve(String text) {
    if (test == null) {
      fail("Wording.approve outside a test: register it with @RegisterExtension");
    }
    String actual =
        COMMIT
            .matcher(TEMP.matcher(String.valueOf(text)).replaceAll("<tmp>"))
            .replaceAll("<commit>");
    if (!seen.add(actual)) {
      return;
    }
    String key = test + " #" + ++count;
    if (UPDATE) {
      recorded.put(key, actual);
      return;
    }
    String expected = approved.get(key);
    if (expected == null) {
      fail(file + " has no block `== " + key + "`; run with -Dgolden.update=true, then review it");
    }
    assertEquals(
        expected,
        actual,
        file + " `== " + key + "` differs (re-approve with -Dgolden.update=true after review)");
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (!UPDATE || file == null) {
      return;
    }
    Map<String, String> merged = new TreeMap<>();
    approved.forEach(
        (key, text) -> {
          if (!ran.contains(key.substring(0, key.lastIndexOf(" #")))) {
            merged.put(key, text);
          }
        });
    merged.putAll(recorded);
    StringBuilder out = new StringBuilder();
    merged.forEach(
        (key, text) -> out.append("== ").append(key).append('\n').append(text).append('\n'));
    try {
      Files.createDirectories(file.getParent());
      if (merged.isEmpty()) {
        Files.deleteIfExists(file);
      } else {
        Files.writeString(file, out.toString(), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, String> read(Path file) {
    Map<String, String> blocks = new TreeMap<>();
    if (!Files.isRegularFile(file)) {
      return blocks;
    }
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Matcher m = HEADER.matcher(text);
    String key = null;
    int start = 0;
    while (m.find()) {
      if (key != null) {
        blocks.put(key, text.substring(start, m.start() - 1));
      }
      key = m.group(1);
      start = m.end() + 1;
    }
    if (key != null) {
      blocks.put(key, text.substring(start, text.length() - 1));
    }
    return blocks;
  }
}
