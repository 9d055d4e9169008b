package dev.trainyard.gitops.integration;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs an {@code actions/github-script@v8} body (v8 changed only the runtime to Node 24,
 * actions/github-script#637; the script API is v7's) with Node.js and the real libraries the action
 * bundles, {@code @actions/github} 6.0.1 (Octokit) and {@code @actions/core} 1.11.1, installed once
 * with npm into {@code $TRAINYARD_CACHE/npm/github-script-v7} (default {@code ~/.cache/trainyard}).
 * The harness ({@code github-script/harness.js}) calls the body as the action does.
 */
final class GitHubScript {
  static final List<String> PACKAGES = List.of("@actions/github@6.0.1", "@actions/core@1.11.1");
  private static final long INSTALL_SECONDS = 300;
  private static final long RUN_SECONDS = 60;

  /** A finished run: exit code and what it printed (stdout and stderr together). */
  record Run(int exit, String output) {}

  private final Path dir;

  private GitHubScript(Path dir) {
    this.dir = dir;
  }

  /** The runner, or why it cannot run here (no node or npm, or the install failed). */
  static Result prepare() {
    Path dir =
        Path.of(
            Optional.ofNullable(System.getenv("TRAINYARD_CACHE"))
                .orElse(System.getProperty("user.home") + "/.cache/trainyard"),
            "npm",
            "github-script-v7");
    try {
      if (!Files.isDirectory(dir.resolve("node_modules/@actions/github"))
          || !Files.isDirectory(dir.resolve("node_modules/@actions/core"))) {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("package.json"), "{\"private\": true}\n");
        Run install =
            exec(
                dir,
                Map.of(),
                INSTALL_SECONDS,
                concat(
                    List.of("npm", "install", "--no-audit", "--no-fund", "--save-exact"),
                    PACKAGES));
        if (install.exit() != 0) {
          return new Result(null, "npm install " + PACKAGES + " failed: " + install.output());
        }
      }
      try (InputStream harness =
          GitHubScript.class.getResourceAsStream("/github-script/harness.js")) {
        Files.copy(harness, dir.resolve("harness.js"), StandardCopyOption.REPLACE_EXISTING);
      }
      Run version = exec(dir, Map.of(), RUN_SECONDS, List.of("node", "--version"));
      return version.exit() == 0
          ? new Result(new GitHubScript(dir), "")
          : new Result(null, "node --version failed");
    } catch (IOException e) {
      return new Result(null, "cannot run node or npm: " + e.getMessage());
    }
  }

  /** Either a runner or the reason there is none. */
  record Result(GitHubScript script, String whyNot) {}

  /** Runs {@code body} with {@code env} (plus PATH); the step's exit code and output. */
  Run run(String body, Map<String, String> env) throws IOException {
    Path script = Files.createTempFile(dir, "script", ".js");
    try {
      Files.writeString(script, body, StandardCharsets.UTF_8);
      return exec(
          dir,
          env,
          RUN_SECONDS,
          List.of("node", dir.resolve("harness.js").toString(), script.toString()));
    } finally {
      Files.delete(script);
    }
  }

  private static Run exec(Path dir, Map<String, String> env, long seconds, List<String> command)
      throws IOException {
    Path log = Files.createTempFile("github-script", ".log");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      Map<String, String> childEnv = builder.environment();
      // The step sees only the GitHub variables the test gives; a proxy must not carry its
      // 127.0.0.1 calls.
      childEnv
          .keySet()
          .removeIf(
              k ->
                  k.startsWith("GITHUB_")
                      || k.startsWith("INPUT_")
                      || !env.isEmpty() && k.toLowerCase().endsWith("_proxy"));
      childEnv.putAll(env);
      Process process = builder.start();
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new Run(-1, "timed out after " + seconds + " s: " + command);
      }
      return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Run(-1, "interrupted");
    } finally {
      Files.delete(log);
    }
  }

  private static List<String> concat(List<String> a, List<String> b) {
    return Stream.concat(a.stream(), b.stream()).toList();
  }
}
