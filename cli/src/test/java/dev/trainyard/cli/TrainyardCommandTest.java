package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.trainyard.compiler.Compiler;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** A call builds the model of the subcommand it names alone, and that model is the full one's. */
class TrainyardCommandTest {
  private static final Invocation INVOCATION = new Invocation(Path.of("/"), Map.of());

  @Test
  @DisplayName(
      "each subcommand's name builds the root with that subcommand alone; no argument, an option or an unknown name build all")
  void subcommandsForArguments() {
    for (Class<?> sub : TrainyardCommand.SUBCOMMANDS) {
      String name = sub.getAnnotation(Command.class).name();
      assertEquals(List.of(sub), TrainyardCommand.subcommandsFor(name, "--help"), name);
      assertEquals(
          Set.of(name),
          TrainyardCommand.commandLine(INVOCATION, name).getSubcommands().keySet(),
          name);
    }
    for (String[] args :
        new String[][] {{}, {"--help"}, {"-V"}, {"sumbit"}, {"-submit"}, {"", "submit"}}) {
      assertEquals(
          TrainyardCommand.SUBCOMMANDS,
          TrainyardCommand.subcommandsFor(args),
          List.of(args).toString());
    }
    assertEquals(
        TrainyardCommand.SUBCOMMANDS.size(),
        TrainyardCommand.commandLine(INVOCATION).getSubcommands().size());
  }

  @Test
  @DisplayName(
      "the help of each subcommand (and of theirs) built alone is the help built with all of them")
  void sameHelpAlone() {
    CommandLine all = TrainyardCommand.commandLine(INVOCATION);
    all.getSubcommands()
        .forEach(
            (name, full) ->
                assertSameHelp(
                    full,
                    TrainyardCommand.commandLine(INVOCATION, name).getSubcommands().get(name)));
  }

  @Test
  @DisplayName("-V and --version print the version from the root and from every subcommand")
  void versionEverywhere() {
    List<List<String>> calls = new ArrayList<>(List.of(List.of()));
    TrainyardCommand.commandLine(INVOCATION)
        .getSubcommands()
        .forEach(
            (name, sub) -> {
              if (!sub.getCommandSpec().mixinStandardHelpOptions()) {
                return; // the hidden warmup and server take no -V
              }
              calls.add(List.of(name));
              sub.getSubcommands().keySet().forEach(inner -> calls.add(List.of(name, inner)));
            });
    assertEquals(TrainyardCommand.SUBCOMMANDS.size() - 2 + 1 + 3, calls.size(), calls.toString());
    for (List<String> call : calls) {
      for (String flag : List.of("-V", "--version")) {
        List<String> args = new ArrayList<>(call);
        args.add(flag);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code =
            Main.run(
                INVOCATION,
                new PrintWriter(out, true),
                new PrintWriter(err, true),
                args.toArray(String[]::new));
        assertEquals(0, code, args + ": " + err);
        assertEquals(
            "trainyard " + Compiler.VERSION + System.lineSeparator(),
            out.toString(),
            args.toString());
        assertEquals("", err.toString(), args.toString());
      }
    }
  }

  private static void assertSameHelp(CommandLine full, CommandLine alone) {
    assertEquals(full.getUsageMessage(), alone.getUsageMessage(), full.getCommandName());
    assertEquals(full.getSubcommands().keySet(), alone.getSubcommands().keySet());
    full.getSubcommands()
        .forEach((name, sub) -> assertSameHelp(sub, alone.getSubcommands().get(name)));
  }
}
