package dev.trainyard.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code --secret-file}: {@code NAME=VALUE} lines (blank lines and {@code #} comments skipped), the
 * values of env variables that Secrets fill in the pod. Values are never printed.
 */
final class SecretFile {
  private SecretFile() {}

  /** The variables of {@code file}; none when {@code file} is null; usage errors name the line. */
  static Map<String, String> read(CommandSpec spec, Path file) {
    Map<String, String> values = new TreeMap<>();
    if (file == null) {
      return values;
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--secret-file " + file + " cannot be read: " + Reporting.ioReason(e));
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq < 1) {
        throw new ParameterException(
            spec.commandLine(),
            "--secret-file "
                + file
                + ":"
                + (i + 1)
                + ": expected NAME=VALUE (the value is not shown)");
      }
      values.put(line.substring(0, eq).strip(), line.substring(eq + 1));
    }
    return values;
  }
}
