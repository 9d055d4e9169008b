package dev.trainyard.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code trainyard schema}: prints the train.yaml JSON Schema for editors. */
@Command(
    name = "schema",
    description = {
      "Print the JSON Schema (2020-12) of train.yaml, for your editor's completion.",
      "Save it next to your code (trainyard schema > train.schema.json) and point",
      "the first line of train.yaml at it:",
      "  # yaml-language-server: $schema=train.schema.json"
    },
    mixinStandardHelpOptions = true,
    footer = {"", "Exit codes: 0 ok, 2 usage, 4 internal error."})
final class SchemaCommand implements Callable<Integer> {
  static final String TRAIN_SCHEMA = "trainyard/schemas/train.v1.schema.json";
  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    try (InputStream in = SchemaCommand.class.getClassLoader().getResourceAsStream(TRAIN_SCHEMA)) {
      if (in == null) {
        throw new IllegalStateException("the jar lacks " + TRAIN_SCHEMA);
      }
      spec.commandLine().getOut().print(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      spec.commandLine().getOut().flush();
    }
    return 0;
  }
}
