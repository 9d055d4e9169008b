package dev.trainyard.cli;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What one {@code trainyard} call runs in: its working directory and its environment. The process
 * passes {@link #ofProcess()} (the JVM's working directory and {@code System.getenv()}); a test or
 * an embedder passes its own, so commands never read the process's globals themselves.
 *
 * <pre>
 * Main.run(new Invocation(repo, Map.of("TRAINYARD_GITOPS", url)), out, err, "preview", "--base", "HEAD~1")
 * </pre>
 *
 * <p>Relative paths: a path the user gives (a TRAIN_YAML argument, {@code --out}, {@code
 * --platform}, {@code --runtimes}, DIR) is relative to {@link #workingDirectory()}. The CLI opens
 * it resolved against the working directory ({@link #resolve(Path)}) and names it, in its messages
 * and in the diagnostics of the libraries it calls (their requests carry the working directory and
 * the path as typed), exactly as the user typed it. In the process the working directory is the
 * JVM's, so every file and every line is what it was before this seam.
 *
 * @param workingDirectory the folder relative paths are relative to: absolute and normalized
 * @param environment the environment variables (name → value), copied, with {@code PWD} set to the
 *     working directory
 * @param stop what stops a publishing call: {@link CallStop#SIGNALS} in a process of its own, the
 *     client's stop frame in the resident server
 */
record Invocation(Path workingDirectory, Map<String, String> environment, CallStop stop) {
  Invocation {
    workingDirectory = workingDirectory.toAbsolutePath().normalize();
    Map<String, String> env = new HashMap<>(environment);
    // The call's folder, as a shell's PWD names it: git's child processes run there
    // (GitCredentials.folder), though this JVM's own folder may be another (the resident server's
    // is
    // /) and a caller's PWD may be stale (a subprocess started with another cwd keeps its
    // parent's).
    env.put("PWD", workingDirectory.toString());
    environment = Map.copyOf(env);
    Objects.requireNonNull(stop);
  }

  /** A call in this process: stopped by the JVM's signals. */
  Invocation(Path workingDirectory, Map<String, String> environment) {
    this(workingDirectory, environment, CallStop.SIGNALS);
  }

  /** The process's own: the JVM's working directory and environment. */
  static Invocation ofProcess() {
    return new Invocation(Path.of(""), System.getenv());
  }

  /**
   * The invocation of the call {@code spec} belongs to (a command's or a mixin's spec); {@link
   * #ofProcess()} for a command run outside {@link Main#run} (its root is not {@code trainyard}).
   */
  static Invocation of(CommandSpec spec) {
    return spec.root().userObject() instanceof TrainyardCommand root
        ? root.invocation()
        : ofProcess();
  }

  /** {@code path} as it is opened: unchanged when absolute, else below the working directory. */
  Path resolve(Path path) {
    return workingDirectory.resolve(path);
  }

  /** Whether {@code TRAINYARD_DEBUG=1}: internal errors then print their stack trace. */
  boolean debug() {
    return "1".equals(environment.get("TRAINYARD_DEBUG"));
  }
}
