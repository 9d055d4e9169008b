package dev.trainyard.compiler.policy;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where a launcher starts in {@code run}, in each spelling its README gives: {@code accelerate
 * launch} or {@code python -m accelerate.commands.launch} (huggingface/accelerate {@code
 * commands/launch.py} runs as a module), {@code torchrun} or {@code python -m
 * torch.distributed.run} / the deprecated {@code python -m torch.distributed.launch} (torch {@code
 * distributed/run.py}: "torchrun is the console script of this module"). {@code python} may be a
 * versioned name or a path ({@code python3.11}, {@code /usr/bin/python3}) and may carry its own
 * options before {@code -m} ({@code -u}, {@code -W ignore}).
 *
 * <pre>
 * Launchers.accelerate(RunTokens.of("python3 -u -m accelerate.commands.launch train.py"))
 *     // Launcher[first=python3, last=accelerate.commands.launch]
 * </pre>
 */
final class Launchers {
  static final Pattern PYTHON = Pattern.compile("(.*/)?python[0-9.]*");

  /** The modules that are torchrun. */
  static final List<String> TORCHRUN_MODULES =
      List.of("torch.distributed.run", "torch.distributed.launch");

  static final String ACCELERATE_MODULE = "accelerate.commands.launch";

  /** python's options that take a value, so the value is not mistaken for the script. */
  private static final List<String> PYTHON_VALUE_OPTIONS = List.of("-W", "-X");

  private Launchers() {}

  /**
   * A launcher as written: its first word (where a diagnostic points) and its last (after which the
   * corrected command inserts flags).
   *
   * @param first {@code accelerate} or {@code python}
   * @param last {@code launch} or the module's word
   */
  record Launcher(RunTokens.Word first, RunTokens.Word last) {
    /** The launcher's words as written, e.g. {@code python -m accelerate.commands.launch}. */
    String text(RunTokens run) {
      return run.text().substring(first.start(), last.end()).replaceAll("\\s+", " ");
    }
  }

  /**
   * {@code accelerate launch} or {@code python -m accelerate.commands.launch}, the first one in
   * {@code run}.
   */
  static Optional<Launcher> accelerate(RunTokens run) {
    return run.pair("accelerate", "launch")
        .map(w -> new Launcher(w, run.words().get(run.indexOf(w) + 1)))
        .or(() -> module(run, List.of(ACCELERATE_MODULE)));
  }

  /** {@code python -m torch.distributed.run} or {@code python -m torch.distributed.launch}. */
  static Optional<Launcher> torchModule(RunTokens run) {
    return module(run, TORCHRUN_MODULES);
  }

  /** The first {@code python … -m M} whose module {@code M} is one of {@code modules}. */
  static Optional<Launcher> module(RunTokens run, List<String> modules) {
    List<RunTokens.Word> words = run.words();
    for (int i = 0; i < words.size(); i++) {
      if (PYTHON.matcher(words.get(i).text()).matches()) {
        Optional<RunTokens.Word> m = moduleOf(words, i).filter(w -> modules.contains(w.text()));
        if (m.isPresent()) {
          return Optional.of(new Launcher(words.get(i), m.get()));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The word after {@code -m} when python at {@code python} runs a module; empty for a script or
   * {@code -c}.
   */
  static Optional<RunTokens.Word> moduleOf(List<RunTokens.Word> words, int python) {
    int command = words.get(python).command();
    for (int i = python + 1; i + 1 < words.size() && words.get(i).command() == command; i++) {
      String w = words.get(i).text();
      if (w.equals("-m")) {
        return words.get(i + 1).command() == command
            ? Optional.of(words.get(i + 1))
            : Optional.empty();
      }
      if (!w.startsWith("-") || w.equals("-c")) {
        return Optional.empty();
      }
      i += PYTHON_VALUE_OPTIONS.contains(w) ? 1 : 0;
    }
    return Optional.empty();
  }
}
