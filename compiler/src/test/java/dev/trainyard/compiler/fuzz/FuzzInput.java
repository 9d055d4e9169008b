package dev.trainyard.compiler.fuzz;

import java.util.List;
import java.util.Optional;

/**
 * One generated compile: the files it writes and which of them was mutated, for running and for
 * printing when it fails.
 *
 * @param index position in the seeded sequence (re-run the same seed and count to reproduce it)
 * @param mutated which file was mutated: {@code train.yaml}, {@code platform.yaml} or {@code
 *     runtime.yaml}
 * @param seed the repository path of the seed file the mutation started from
 * @param steps the mutation operators applied, in order
 * @param trainYaml train.yaml's text
 * @param platform platform.yaml's text, or empty for the embedded default
 * @param runtime a runtime definition's folder ({@code <name>/<version>}) and text, if any
 */
public record FuzzInput(
    int index,
    String mutated,
    String seed,
    List<String> steps,
    String trainYaml,
    Optional<String> platform,
    Optional<Runtime> runtime) {
  /** A platform runtime: folder {@code <name>/<version>} and the text of its runtime.yaml. */
  public record Runtime(String folder, String text) {}

  /**
   * The input as a report shows it: what was mutated from which seed, and the mutated file (cut at
   * 4,000 characters).
   */
  public String describe() {
    String text =
        switch (mutated) {
          case "platform.yaml" -> platform.orElse("");
          case "runtime.yaml" -> runtime.map(Runtime::text).orElse("");
          default -> trainYaml;
        };
    StringBuilder shown = new StringBuilder();
    text.lines()
        .limit(80)
        .forEach(
            l ->
                shown
                    .append(
                        l.length() > 200
                            ? l.substring(0, 200) + "… (" + l.length() + " characters)"
                            : l)
                    .append('\n'));
    if (text.lines().count() > 80) {
      shown.append("… (").append(text.lines().count()).append(" lines)\n");
    }
    return "input #"
        + index
        + ": "
        + mutated
        + " mutated from "
        + seed
        + " by operators "
        + steps
        + ":\n"
        + shown;
  }
}
