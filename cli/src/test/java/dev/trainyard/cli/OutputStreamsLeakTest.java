package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.gitops.leaks.KeyScanner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every golden case through the real CLI ({@code compile}, {@code compile --output json}, {@code
 * validate}, {@code check-secrets} over what compile wrote): no stdout or stderr holds private key
 * material (the {@link KeyScanner} over each stream), nor any 16-character piece of the private key
 * of a plain Secret the compile wrote.
 */
class OutputStreamsLeakTest {
  @TempDir Path temp;

  @TestFactory
  @DisplayName(
      "no output stream of compile, validate or check-secrets of any golden case carries key material")
  Stream<DynamicTest> everyStream() throws IOException {
    return GoldenCase.all(GoldenCasesTest.ROOT)
        .map(c -> DynamicTest.dynamicTest(c.name(), () -> check(c)));
  }

  private void check(GoldenCase c) throws Exception {
    Path work = Files.createTempDirectory(temp, c.name());
    CompileRequest request = c.prepare(work);
    Path out = work.resolve("gitops");
    List<MainTest.Run> runs = new ArrayList<>();
    runs.add(MainTest.run(args("compile", request, out, "text")));
    runs.add(MainTest.run(args("compile", request, out, "json")));
    runs.add(MainTest.run(args("validate", request, out, "text")));
    if (Files.isDirectory(out)) {
      runs.add(MainTest.run("check-secrets", out.toString()));
      request
          .platformFile()
          .ifPresent(
              p ->
                  runs.add(
                      MainTest.run(
                          "check-secrets",
                          out.toString(),
                          "--platform",
                          p.toString(),
                          "--output",
                          "json")));
    }
    List<String> keys = plainKeys(out);
    for (MainTest.Run r : runs) {
      for (String stream : List.of(r.out(), r.err())) {
        assertEquals(
            List.of(), new KeyScanner().scan(stream.getBytes(StandardCharsets.UTF_8)), stream);
        for (String key : keys) {
          for (int i = 0; i + 16 <= key.length(); i += 8) {
            assertFalse(
                stream.contains(key.substring(i, i + 16)),
                "a piece of the private key in: " + stream);
          }
        }
      }
    }
  }

  private static String[] args(String command, CompileRequest r, Path out, String format) {
    List<String> a =
        new ArrayList<>(
            List.of(
                command, r.trainYaml().toString(), "--out", out.toString(), "--output", format));
    r.platformFile().ifPresent(p -> a.addAll(List.of("--platform", p.toString())));
    r.runtimesDir().ifPresent(p -> a.addAll(List.of("--runtimes", p.toString())));
    r.sourceRepo().ifPresent(p -> a.addAll(List.of("--source-repo", p)));
    r.sourceCommit().ifPresent(p -> a.addAll(List.of("--source-commit", p)));
    r.cluster().ifPresent(p -> a.addAll(List.of("--target-cluster", p)));
    r.namespace().ifPresent(p -> a.addAll(List.of("--namespace", p)));
    return a.toArray(String[]::new);
  }

  /**
   * The private key bodies (base64 as in the PEM, and the Secret's base64 of the PEM) of plain
   * Secrets under {@code out}.
   */
  private static List<String> plainKeys(Path out) throws IOException {
    List<String> keys = new ArrayList<>();
    if (!Files.isDirectory(out)) {
      return keys;
    }
    try (Stream<Path> files = Files.walk(out)) {
      for (Path f : files.filter(p -> p.getFileName().toString().startsWith("secret-")).toList()) {
        Matcher m =
            Pattern.compile("(?m)^  ssh-privatekey: ([A-Za-z0-9+/=]{40,})$")
                .matcher(Files.readString(f));
        if (m.find()) {
          String b64 = m.group(1);
          keys.add(b64);
          keys.add(
              new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8)
                  .replaceAll("-----[^-]+-----", "")
                  .replace("\n", ""));
        }
      }
    }
    return keys;
  }
}
