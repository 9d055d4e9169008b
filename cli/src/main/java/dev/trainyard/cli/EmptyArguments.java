package dev.trainyard.cli;

import java.nio.file.Path;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The one check for empty arguments, run on every command line before its command: a positional
 * argument (a file, folder or run name) or a path option given as {@code ""} or blank is a usage
 * error (exit 2), because it is almost always an unset variable ({@code --out "$OUT"}) and would
 * otherwise read or write the current folder. String options that document a blank value as "none"
 * (a CI variable that may be unset, such as {@code --checkpoint-branch}) are not checked here.
 */
final class EmptyArguments {
  private EmptyArguments() {}

  /**
   * Throws a {@link ParameterException} naming the first empty argument of {@code parsed} or of its
   * subcommands, e.g. {@code --out got an empty value (an unset variable?)}.
   */
  static void reject(ParseResult parsed) {
    for (ParseResult level = parsed; level != null; level = level.subcommand()) {
      for (ArgSpec arg : level.matchedArgs()) {
        if ((arg.isPositional() || holdsPaths(arg))
            && arg.originalStringValues().stream().anyMatch(String::isBlank)) {
          String name =
              arg instanceof OptionSpec option
                  ? option.longestName()
                  : "argument " + arg.paramLabel();
          throw new ParameterException(
              level.commandSpec().commandLine(), name + " got an empty value (an unset variable?)");
        }
      }
    }
  }

  private static boolean holdsPaths(ArgSpec arg) {
    return arg.type() == Path.class
        || arg.auxiliaryTypes().length > 0 && arg.auxiliaryTypes()[0] == Path.class;
  }
}
