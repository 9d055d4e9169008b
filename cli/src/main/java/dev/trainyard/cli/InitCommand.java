package dev.trainyard.cli;

import dev.trainyard.compiler.render.ShellWords;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard init}: scaffolds a two-line train.yaml whose first line points editors at the
 * schema.
 */
@Command(
    name = "init",
    description = {
      "Write a minimal train.yaml into DIR (default: the current folder).",
      "Never overwrites one without --force."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Exit codes: 0 written, 1 DIR/train.yaml exists (without --force), 2 usage,",
      "3 environment (disk), 4 internal error."
    })
final class InitCommand implements Callable<Integer> {
  /** Where the train.yaml schema is published (its {@code $id}). */
  static final String SCHEMA_URL = "https://trainyard.dev/schemas/train.v1.schema.json";

  /** The schema's upper bound for {@code nodes}. */
  static final int MAX_NODES = 1024;

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "DIR",
      defaultValue = ".",
      description = "folder of your training code")
  Path dir;

  @Option(
      names = "--runtime",
      paramLabel = "NAME",
      defaultValue = "torch",
      description = "torch, deepspeed, mpi, mlx, jax or plain (default: ${DEFAULT-VALUE})")
  String runtime;

  @Option(
      names = "--nodes",
      paramLabel = "N",
      defaultValue = "1",
      description = "number of nodes (default: ${DEFAULT-VALUE})")
  int nodes;

  @Option(
      names = "--schema",
      paramLabel = "URL_OR_PATH",
      defaultValue = SCHEMA_URL,
      description =
          "schema reference for the editor line (default: ${DEFAULT-VALUE}); use a local file written by `trainyard schema` to work offline")
  String schema;

  @Option(names = "--force", description = "replace an existing train.yaml")
  boolean force;

  @Override
  public Integer call() throws IOException {
    if (nodes < 1 || nodes > MAX_NODES) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--nodes must be 1 to " + MAX_NODES + ", got " + nodes);
    }
    if (schema.chars().anyMatch(Character::isISOControl)) {
      // It is written into train.yaml's first line: a line break would add YAML of its own.
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--schema must be one line (a URL or a path), without control characters");
    }
    var catalog = RuntimesCommand.load(spec, null);
    if (catalog.isPresent() && catalog.get().find(runtime).isEmpty()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--runtime \""
              + runtime
              + "\" is not installed; installed: "
              + String.join(", ", catalog.get().names()));
    }
    Path folder = Invocation.of(spec).resolve(dir);
    // DIR, or a folder above it, that is a file (init a-file/sub): named as the user would type it.
    Path cwd = Invocation.of(spec).workingDirectory();
    for (Path p = folder; p != null; p = p.getParent()) {
      if (Files.exists(p) && !Files.isDirectory(p)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            (p.equals(folder) ? dir : p.startsWith(cwd) ? cwd.relativize(p) : p)
                + " is a file, not a folder: init writes train.yaml into the folder of your code");
      }
    }
    Path shown = dir.resolve("train.yaml");
    Path file = folder.resolve("train.yaml");
    if (Files.isDirectory(file)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), shown + " is a folder, not a file: init writes train.yaml there");
    }
    if (Files.exists(file) && !force) {
      spec.commandLine()
          .getErr()
          .println("trainyard: " + shown + " already exists; use --force to replace it");
      return 1;
    }
    Files.createDirectories(folder);
    // Not Files.createTempFile: it makes the file 0600 whatever the umask, and train.yaml is a
    // normal source file
    // (0644 under the usual umask 022), read by editors, containers and other users of the
    // checkout.
    Path temp =
        folder.resolve(
            ".train-" + Long.toUnsignedString(new SecureRandom().nextLong(), 36) + ".yaml");
    try {
      Files.writeString(
          temp,
          content(),
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE);
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      // Nothing half-written stays behind when the write or the move fails.
      Files.deleteIfExists(temp);
    }
    spec.commandLine()
        .getOut()
        .println(
            "wrote "
                + shown
                + "; compile it with: trainyard compile "
                + ShellWords.quote((shown.toString().startsWith("-") ? "./" : "") + shown));
    return 0;
  }

  String content() {
    String run = runtime.startsWith("torch") ? "torchrun train.py" : "python train.py";
    StringBuilder out = new StringBuilder("# yaml-language-server: $schema=" + schema + "\n");
    out.append(
        "# Fields and defaults: `trainyard schema`. Compile: `trainyard compile train.yaml`.\n");
    if (!runtime.equals("torch")) {
      out.append("runtime: ").append(runtime).append('\n');
    }
    out.append("run: ").append(run).append('\n');
    out.append("nodes: ").append(nodes).append('\n');
    return out.toString();
  }
}
