package dev.trainyard.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Hidden {@code trainyard server --socket PATH [--idle 30m]}: the resident server ({@link
 * ResidentServer}) the launcher scripts start in the background and hand calls to through {@link
 * ServerClient}. Exit code 0 when it stopped (idle, its socket removed, or another server already
 * serving PATH), 3 when PATH's folder is not private to this user or the socket cannot be bound
 * (then {@code PATH.failed} says why, and the launchers start no server for PATH again).
 */
@Command(
    name = "server",
    hidden = true,
    description = "Serve trainyard calls on a Unix socket (started by the launcher).")
final class ServerCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--socket", required = true, description = "The socket to listen on.")
  Path socket;

  @Option(
      names = "--idle",
      defaultValue = "30m",
      description = "Stop after this long without a call.")
  String idle;

  @Override
  public Integer call() throws IOException {
    Duration idleTime = DurationFlag.parse(spec, "--idle", idle);
    PrintWriter err = spec.commandLine().getErr();
    Invocation invocation = Invocation.of(spec);
    Path path = invocation.resolve(socket);
    try {
      PrintWriter sink = new PrintWriter(Writer.nullWriter());
      // One warm-up (the start-up archive's: a torch and an MPI compile, a submit) before serving.
      new ResidentServer(path, idleTime, Main::run, err)
          .serve(() -> Main.run(invocation, sink, sink, "warmup"));
    } catch (IOException e) {
      String reason = "the resident server cannot serve " + path + ": " + Reporting.ioReason(e);
      err.println("trainyard: error: " + reason);
      failed(path, reason);
      return Main.EXIT_ENVIRONMENT;
    }
    return 0;
  }

  /**
   * Leaves {@code SOCKET.failed} with {@code reason}, so the launcher starts no server for this
   * socket again (a new build or environment names a new socket); nothing when it cannot be
   * written.
   */
  static void failed(Path socket, String reason) {
    try {
      Files.writeString(
          socket.resolveSibling(socket.getFileName() + ".failed"),
          reason + "\n",
          StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      // the folder itself is the problem: the launcher starts servers that fail the same way
    }
  }
}
