package dev.trainyard.cluster;

import dev.trainyard.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Trainyard CLI run in-process through {@code Main.run(out, err, args)}, as ValidateClusterIT
 * does.
 */
final class TrainyardCli {

  /** compile and submit print one line per run: {@code run <name>: <nodes> node(s) x ...}. */
  private static final Pattern RUN_LINE = Pattern.compile("(?m)^run ([a-z0-9-]+): ");

  /** Exit code, stdout and stderr of one command. */
  record Result(int exit, String out, String err) {
    /** The first run name printed on stdout. */
    Optional<String> runName() {
      Matcher matcher = RUN_LINE.matcher(out);
      return matcher.find() ? Optional.of(matcher.group(1)) : Optional.empty();
    }

    /** Fails with the command's output unless it exited 0. */
    Result requireSuccess(String what) {
      if (exit != 0) {
        throw new AssertionError(
            what + " exited " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err);
      }
      return this;
    }
  }

  private TrainyardCli() {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Result(exit, out.toString(), err.toString());
  }
}
