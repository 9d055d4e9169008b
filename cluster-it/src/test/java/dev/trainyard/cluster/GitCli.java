package dev.trainyard.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The real {@code git} CLI, run with a bounded time and a configuration that does not depend on the
 * machine: {@code HOME} is a given dir, no system or global config (GIT_CONFIG_NOSYSTEM,
 * GIT_CONFIG_GLOBAL=/dev/null), no inherited {@code GIT_*} variables, no terminal prompt (a missing
 * credential fails at once instead of waiting for input), a fixed author.
 */
final class GitCli {

  /** The exit code and the combined stdout+stderr of one git command. */
  record Result(int exit, String output) {}

  private GitCli() {}

  static String git() {
    return "git";
  }

  /** The variables that make git independent of the machine's config; {@code home} is its HOME. */
  static Map<String, String> isolatedEnv(Path home) {
    Map<String, String> env = new HashMap<>();
    env.put("HOME", home.toString());
    env.put("GIT_CONFIG_NOSYSTEM", "1");
    env.put("GIT_CONFIG_GLOBAL", "/dev/null");
    env.put("GIT_TERMINAL_PROMPT", "0");
    env.put("GIT_AUTHOR_NAME", "Trainyard IT");
    env.put("GIT_AUTHOR_EMAIL", "it@trainyard.dev");
    env.put("GIT_COMMITTER_NAME", "Trainyard IT");
    env.put("GIT_COMMITTER_EMAIL", "it@trainyard.dev");
    env.put("LC_ALL", "C");
    return env;
  }

  /**
   * {@code env} plus an {@code Authorization} header for every HTTP request, given through git's
   * environment config (GIT_CONFIG_COUNT/KEY/VALUE) so that the token is on no command line.
   */
  static Map<String, String> withBasicAuth(
      Map<String, String> env, GitHttpServer.Credentials credentials) {
    Map<String, String> out = new HashMap<>(env);
    out.put("GIT_CONFIG_COUNT", "1");
    out.put("GIT_CONFIG_KEY_0", "http.extraHeader");
    out.put("GIT_CONFIG_VALUE_0", "Authorization: " + credentials.basicHeader());
    return out;
  }

  /** Runs git in {@code dir}; a non-zero exit fails with git's output. */
  static String run(Path dir, Map<String, String> env, String... args) {
    Result result = attempt(dir, env, args);
    if (result.exit() != 0) {
      throw new IllegalStateException(
          "git " + String.join(" ", args) + " exited " + result.exit() + ":\n" + result.output());
    }
    return result.output();
  }

  /**
   * Runs git in {@code dir} and returns its exit code and output; killed after {@link
   * GitHttpServer#GIT_TIMEOUT}.
   */
  static Result attempt(Path dir, Map<String, String> env, String... args) {
    List<String> command = new ArrayList<>(List.of(git()));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().keySet().removeIf(name -> name.startsWith("GIT_"));
    builder.environment().putAll(env);
    try {
      Process process = builder.start();
      process.getOutputStream().close();
      CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> readAll(process));
      if (!process.waitFor(GitHttpServer.GIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "git "
                + String.join(" ", args)
                + " did not finish within "
                + GitHttpServer.GIT_TIMEOUT.toSeconds()
                + "s");
      }
      return new Result(
          process.exitValue(), output.get(GitHttpServer.GIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run git", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running git", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read git's output: " + e.getMessage(), e);
    }
  }

  private static String readAll(Process process) {
    try {
      return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
