package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;

/**
 * Every {@code --help} reads whole in an 80-column terminal: picocli wraps a text element that is
 * wider than its column and leaves a word or two alone on the next line ("past"), so each element
 * must fit where it is printed.
 */
class HelpLayoutTest {
  /** Picocli's default usage width. */
  private static final int WIDTH = 80;

  /** Where option descriptions start in picocli's default layout (columns 0-25 hold the names). */
  private static final int DESCRIPTION_COLUMN = 26;

  @Test
  @DisplayName(
      "every command's description and footer lines fit 80 columns, and an option described in several lines has each fit its column: no word left alone on a wrapped line")
  void everyElementFits() {
    List<String> tooWide = new ArrayList<>();
    collect(TrainyardCommand.commandLine(new Invocation(Path.of("/"), Map.of())), tooWide);
    assertEquals(List.of(), tooWide);
  }

  @Test
  @DisplayName("every rendered --help line is at most 80 columns")
  void everyLineFits() {
    List<String> tooWide = new ArrayList<>();
    lines(TrainyardCommand.commandLine(new Invocation(Path.of("/"), Map.of())), tooWide);
    assertEquals(List.of(), tooWide);
  }

  @Test
  @DisplayName(
      "every command that runs (but the hidden warmup) says its exit codes in its --help footer")
  void everyCommandSaysItsExitCodes() {
    List<String> silent = new ArrayList<>();
    footers(TrainyardCommand.commandLine(new Invocation(Path.of("/"), Map.of())), silent);
    assertEquals(List.of(), silent);
  }

  private static void footers(CommandLine command, List<String> silent) {
    boolean runs =
        command.getCommandSpec().userObject() instanceof java.util.concurrent.Callable
            && !command.getCommandSpec().usageMessage().hidden();
    if (runs
        && !String.join("\n", command.getCommandSpec().usageMessage().footer())
            .contains("Exit codes: ")) {
      silent.add(command.getCommandSpec().qualifiedName());
    }
    command.getSubcommands().values().forEach(sub -> footers(sub, silent));
  }

  private static void collect(CommandLine command, List<String> tooWide) {
    var spec = command.getCommandSpec();
    String name = spec.qualifiedName();
    for (String line : spec.usageMessage().description()) {
      check(name + " description", line, WIDTH, tooWide);
    }
    for (String line : spec.usageMessage().footer()) {
      check(name + " footer", line, WIDTH, tooWide);
    }
    for (ArgSpec arg : spec.args()) {
      String[] description = arg.description();
      if (description.length > 1) {
        for (String line : description) {
          check(
              name
                  + " "
                  + (arg.isOption()
                      ? ((CommandLine.Model.OptionSpec) arg).longestName()
                      : arg.paramLabel()),
              line,
              WIDTH - DESCRIPTION_COLUMN,
              tooWide);
        }
      }
    }
    command.getSubcommands().values().forEach(sub -> collect(sub, tooWide));
  }

  private static void check(String where, String line, int width, List<String> tooWide) {
    String shown = line.replace("${DEFAULT-VALUE}", "xxxxxxxx");
    if (shown.length() > width) {
      tooWide.add(where + " (" + shown.length() + " > " + width + "): " + line);
    }
  }

  private static void lines(CommandLine command, List<String> tooWide) {
    for (String line : command.getUsageMessage().split("\n")) {
      if (line.length() > WIDTH) {
        tooWide.add(command.getCommandSpec().qualifiedName() + ": " + line);
      }
    }
    command.getSubcommands().values().forEach(sub -> lines(sub, tooWide));
  }
}
