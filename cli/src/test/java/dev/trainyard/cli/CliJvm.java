package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The real CLI in a JVM of its own ({@code dev.trainyard.cli.Main} on this test's class path), run
 * in a source repo against a GitOps repository: the fixture of the tests that break the network
 * ({@link GitFaultTest}) or signal the process ({@link InterruptTest}). stdout and stderr go to one
 * log file per process; git's global and system config and the caller's git credentials are left
 * out, so only the test's own {@code env} reaches the CLI.
 */
final class CliJvm {
  /** What one finished CLI call left: its exit code and its stdout and stderr, interleaved. */
  record Result(int exit, String out) {}

  /**
   * A started CLI and its log.
   *
   * @param process the JVM
   * @param log the file its stdout and stderr go to
   */
  record Started(Process process, Path log) {
    /** What the log holds so far. */
    String out() throws IOException {
      return Files.readString(log);
    }

    /** Waits at most {@code timeout} for the end; a CLI still running then fails the test. */
    Result await(Duration timeout, String what) throws Exception {
      boolean ended = process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS);
      process.destroyForcibly();
      assertTrue(ended, what + " did not end in " + timeout.toSeconds() + " s:\n" + out());
      return new Result(process.exitValue(), out());
    }

    /** Sends {@code signal} (INT, TERM) and waits at most 60 s for the end. */
    Result signal(String signal) throws Exception {
      new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
          .start()
          .waitFor(10, TimeUnit.SECONDS);
      return await(Duration.ofSeconds(60), "the CLI after SIG" + signal);
    }
  }

  private CliJvm() {}

  /**
   * Starts {@code trainyard ARGS --gitops URL} in {@code project}, with the cache under {@code
   * dir}/cache and the log in {@code dir}, then {@code env} on top.
   */
  static Started start(
      Path project, Path dir, String url, Map<String, String> env, List<String> args)
      throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                // A suite started in the background (`mvn … &` from a script) inherits SIGINT and
                // SIGHUP ignored, and a JVM installs no handler for an ignored signal: the CLI
                // would
                // never see the test's Ctrl-C. coreutils env (8.31+) puts them back to default.
                "env",
                "--default-signal=INT,HUP,TERM",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.trainyard.cli.Main"));
    command.addAll(args);
    command.addAll(List.of("--gitops", url));
    return launch(project, dir, env, command);
  }

  /**
   * Starts {@code command} (a CLI or a served call's client) in {@code project} with the cache
   * under {@code dir}/cache, the log in {@code dir}, without git's global and system config or the
   * caller's git credentials, then {@code env} on top.
   */
  static Started launch(Path project, Path dir, Map<String, String> env, List<String> command)
      throws IOException {
    Path log = dir.resolve("cli-" + UUID.randomUUID() + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .directory(project.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().remove("TRAINYARD_GITOPS_TOKEN");
    pb.environment().put("TRAINYARD_CACHE", dir.resolve("cache").toString());
    pb.environment().put("GIT_CONFIG_GLOBAL", "/dev/null");
    pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
    pb.environment().remove("GIT_ASKPASS");
    pb.environment().putAll(env);
    return new Started(pb.start(), log);
  }

  /**
   * A hook {@code name} (pre-receive, post-receive) in the bare repository {@code bare} that
   * touches {@code mark}, then waits for {@code release} (at most 60 s): holds a push at that
   * point.
   */
  static void holdingHook(Path bare, String name, Path mark, Path release) throws IOException {
    Path hook = bare.resolve("hooks").resolve(name);
    Files.createDirectories(hook.getParent());
    Files.writeString(
        hook,
        "#!/bin/sh\ncat >/dev/null\ntouch '"
            + mark
            + "'\ni=0\nwhile [ ! -e '"
            + release
            + "' ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\nexit 0\n");
    Files.setPosixFilePermissions(hook, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** {@link #start}, then at most {@code timeout} for the end. */
  static Result run(
      Path project,
      Path dir,
      String url,
      Map<String, String> env,
      List<String> args,
      Duration timeout)
      throws Exception {
    return start(project, dir, url, env, args).await(timeout, "trainyard " + args);
  }

  /**
   * The git CLI in {@code dir}; a failure or a run over 60 s fails the test. Returns its output.
   */
  static String git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
    return out;
  }

  /** The tip of {@code main} in the bare repository {@code bare}. */
  static String tip(Path bare) throws Exception {
    return git(bare, "--git-dir", bare.toString(), "rev-parse", "main").strip();
  }

  /** How often {@code part} stands in {@code text}. */
  static int count(String text, String part) {
    return text.split(Pattern.quote(part), -1).length - 1;
  }

  /** The CLI printed no Java stack trace or exception name. */
  static void assertNoStackTrace(Result cli) {
    assertFalse(cli.out().contains("\tat "), cli.out());
    assertFalse(cli.out().contains("Exception"), cli.out());
  }
}
