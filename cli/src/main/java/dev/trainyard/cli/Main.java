package dev.trainyard.cli;

import dev.trainyard.compiler.manifest.CanonicalJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/**
 * Entry point of the {@code trainyard} command. Exit codes: 0 ok, 1 diagnostics, 2 usage, 3
 * environment (disk, git), 4 internal error. A user mistake never prints a stack trace; an internal
 * error prints one only with {@code TRAINYARD_DEBUG=1}.
 */
public final class Main {
  /** Exit code for environment failures (disk, git, cluster). */
  public static final int EXIT_ENVIRONMENT = 3;

  /** Exit code for bugs. */
  public static final int EXIT_INTERNAL = 4;

  /**
   * The user-info part of any URL in a text ({@code https://user:token@host} → {@code
   * https://host}).
   */
  private static final String URL_USER_INFO = "(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s]*@";

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /**
   * Runs the CLI with the given streams in the process's working directory and environment; returns
   * the exit code (testable, jreleaser style).
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    return run(Invocation.ofProcess(), out, err, args);
  }

  /**
   * Runs the CLI with the given streams in {@code invocation}'s working directory and environment
   * (see {@link Invocation} for how relative paths are read); returns the exit code.
   */
  static int run(Invocation invocation, PrintWriter out, PrintWriter err, String... args) {
    CommandLine cli = TrainyardCommand.commandLine(invocation, args);
    cli.setOut(out).setErr(err);
    boolean json = wantsJson(args);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> handle(e, json ? out : null, err, invocation.debug()));
    cli.setParameterExceptionHandler((e, given) -> usage(e, json ? out : null));
    cli.setExecutionStrategy(
        parsed -> {
          EmptyArguments.reject(parsed);
          return new CommandLine.RunLast().execute(parsed);
        });
    // JGit's local transport pushes from a thread of its own; a failure there (a read-only
    // repository) must be
    // one line, not a stack trace: the push itself reports the error.
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, e) -> {
          if (invocation.debug()) {
            e.printStackTrace(err);
          }
        });
    return cli.execute(args);
  }

  /**
   * A usage error: the message and one line pointing at {@code --help} (not the whole help), exit
   * 2; with {@code jsonOut} (an {@code -o json} call) also {@code {"error": …, "exitCode": 2}} on
   * it, as for any other error.
   */
  private static int usage(CommandLine.ParameterException e, PrintWriter jsonOut) {
    CommandLine command = e.getCommandLine();
    PrintWriter err = command.getErr();
    // A mistyped command may echo a URL that carries a token (https://user:token@host/...): never
    // print it.
    String message = String.valueOf(e.getMessage()).replaceAll(URL_USER_INFO, "$1");
    err.println("trainyard: " + message);
    CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
    err.println(
        "Try '" + command.getCommandSpec().qualifiedName() + " --help' for more information.");
    err.flush();
    int exit = command.getCommandSpec().exitCodeOnInvalidInput();
    if (jsonOut != null) {
      printJsonError(jsonOut, message, exit);
    }
    return exit;
  }

  /** {@code {"error": message, "exitCode": exit}} on {@code out}, for bots. */
  private static void printJsonError(PrintWriter out, String message, int exit) {
    var node = CanonicalJson.mapper().createObjectNode();
    node.put("error", message).put("exitCode", exit);
    out.println(node.toPrettyString());
    out.flush();
  }

  /**
   * {@code --output json}, {@code --output=json}, {@code -o json}, {@code -ojson} or {@code
   * -o=json}: errors are then also printed as JSON on stdout, for bots.
   */
  static boolean wantsJson(String... args) {
    for (int i = 0; i < args.length; i++) {
      boolean flag = args[i].equals("--output") || args[i].equals("-o");
      if (args[i].equals("--output=json")
          || args[i].equals("-ojson")
          || args[i].equals("-o=json")
          || flag && i + 1 < args.length && args[i + 1].equals("json")) {
        return true;
      }
    }
    return false;
  }

  /**
   * What an exception out of a command prints and exits with: an I/O failure is one line (and with
   * {@code jsonOut}, JSON too), exit 3; anything else is a bug, one line asking for a report (the
   * stack trace with {@code debug}), exit 4.
   */
  static int handle(Exception e, PrintWriter jsonOut, PrintWriter err, boolean debug) {
    if (e instanceof IOException || e instanceof UncheckedIOException) {
      String message =
          Reporting.ioReason(e instanceof UncheckedIOException u ? u.getCause() : (IOException) e);
      err.println("trainyard: error: " + message);
      err.flush();
      if (jsonOut != null) {
        printJsonError(jsonOut, message, EXIT_ENVIRONMENT);
      }
      return EXIT_ENVIRONMENT;
    }
    err.println(
        "trainyard: internal error: "
            + e
            + " (please report it; set TRAINYARD_DEBUG=1 for the stack trace)");
    if (debug) {
      e.printStackTrace(err);
    }
    err.flush();
    return EXIT_INTERNAL;
  }
}
