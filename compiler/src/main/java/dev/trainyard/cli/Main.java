package dev.trainyard.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/**
 * Entry point of the {@code trainyard} command. Exit codes: 0 ok, 1 diagnostics, 2 usage, 3 environment
 * (disk, git), 4 internal error. A user mistake never prints a stack trace; an internal error prints one only
 * with {@code TRAINYARD_DEBUG=1}.
 */
public final class Main {
  /** Exit code for environment failures (disk, git, cluster). */
  public static final int EXIT_ENVIRONMENT = 3;
  /** Exit code for bugs. */
  public static final int EXIT_INTERNAL = 4;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs the CLI with the given streams; returns the exit code (testable, jreleaser style). */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = new CommandLine(new TrainyardCommand());
    cli.setOut(out).setErr(err);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> handle(e, err));
    return cli.execute(args);
  }

  private static int handle(Exception e, PrintWriter err) {
    if (e instanceof IOException || e instanceof UncheckedIOException) {
      err.println("trainyard: error: " + e.getMessage());
      err.flush();
      return EXIT_ENVIRONMENT;
    }
    err.println("trainyard: internal error: " + e + " (please report it; set TRAINYARD_DEBUG=1 for the stack trace)");
    if ("1".equals(System.getenv("TRAINYARD_DEBUG"))) {
      e.printStackTrace(err);
    }
    err.flush();
    return EXIT_INTERNAL;
  }
}
