package dev.trainyard.cli;

import java.util.Set;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The one check for empty arguments, run on every command line before its command: an argument or
 * option value given as {@code ""} or blank is a usage error (exit 2), because it is almost always
 * an unset variable ({@code --out "$OUT"}) and would otherwise read or write the current folder, or
 * become a namespace, context, branch or commit named "". The options in {@link #BLANK_MEANS_NONE}
 * document a blank value as "none" and are not checked.
 */
final class EmptyArguments {
  /**
   * {@code --source-branch}: CI passes its branch variable, which is unset outside a branch build;
   * no branch is the flag's default.
   */
  static final Set<String> BLANK_MEANS_NONE = Set.of("--source-branch");

  private EmptyArguments() {}

  /**
   * Throws a {@link ParameterException} naming the first empty argument of {@code parsed} or of its
   * subcommands, e.g. {@code --out got an empty value (an unset variable?)}.
   */
  static void reject(ParseResult parsed) {
    for (ParseResult level = parsed; level != null; level = level.subcommand()) {
      for (ArgSpec arg : level.matchedArgs()) {
        boolean exempt =
            arg instanceof OptionSpec option && BLANK_MEANS_NONE.contains(option.longestName());
        if (!exempt && arg.originalStringValues().stream().anyMatch(String::isBlank)) {
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
}
