package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.runtime.RuntimeDefinition;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code run} starts Python on an image that has none: the {@code mpi} runtime's image
 * (kubeflow/mpi-operator {@code build/base}: Debian with {@code openmpi-bin} and {@code
 * openssh-server}, no Python) fails {@code python3 train.py} with "command not found" (exit 127) on
 * every node, after the run has been admitted and its pods scheduled. Bare names ({@code python},
 * {@code python3.12}, {@code pip3}) and paths into the image ({@code /usr/bin/python3}) are
 * checked; a relative path such as {@code ./venv/bin/python}, or one under the checkout in {@code
 * /workspace}, is the user's own. {@code setup} runs on every node first, so it is checked too, and
 * so is the {@code pip install -r requirements.txt} a requirements.txt in the working directory
 * adds.
 *
 * <pre>
 * runtime: mpi
 * run: python3 train.py      # W431 at python3
 * </pre>
 */
final class ImagePython {
  /**
   * A bare name, or a path into the image (anywhere but the pod's checkout under /workspace, e.g. a
   * committed venv).
   */
  private static final Pattern PROGRAM =
      Pattern.compile("(/(?!workspace/)(\\S*/)?)?(python[0-9.]*|pip[0-9.]*)");

  private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=.*");

  /** Words that run the word after them: prefixes, reserved words, grouping. */
  private static final Set<String> LEADS =
      Set.of(
          "exec", "time", "nohup", "command", "env", "then", "do", "else", "if", "while", "until",
          "!", "{", "(");

  /** The setup Trainyard adds when a requirements.txt lies next to train.yaml (ResolveStage). */
  private static final String REQUIREMENTS = "pip install -r requirements.txt";

  private ImagePython() {}

  static void check(RunCheck c) {
    if (!c.job().command().imageWithoutPython()) {
      return;
    }
    String hint =
        "set `image:` to an image built from "
            + c.job().runtime().image()
            + " that adds Python (and mpi4py for an MPI"
            + " program), choose a runtime whose image has Python (`trainyard runtimes show NAME` gives its Python and packages), or, if this image has Python, record it"
            + " in the runtime's runtime.yaml (`python:`)";
    Optional<String> setup = c.job().spec().setup();
    if (setup.isPresent()) {
      RunSource source = new RunSource(c.job().spec().document(), "/setup", setup.get());
      program(RunTokens.of(setup.get()))
          .ifPresent(
              w ->
                  c.out()
                      .add(
                          Diagnostic.warning(
                                  DiagnosticCode.NO_PYTHON_IN_IMAGE,
                                  source.at(w.start(), w.end() - w.start()),
                                  "/setup",
                                  "`setup` starts " + w.text() + ", but " + lacks(c))
                              .withHint(hint)));
    } else if (c.job().command().setup().contains(REQUIREMENTS)) {
      c.out()
          .add(
              Diagnostic.warning(
                      DiagnosticCode.NO_PYTHON_IN_IMAGE,
                      c.source().start(),
                      RunCheck.POINTER,
                      "the requirements.txt in the working directory makes every node run `"
                          + REQUIREMENTS
                          + "` first, but "
                          + lacks(c))
                  .withHint(hint));
    }
    program(c.run())
        .ifPresent(
            w ->
                c.warning(
                    DiagnosticCode.NO_PYTHON_IN_IMAGE,
                    w,
                    "`run` starts " + w.text() + ", but " + lacks(c),
                    hint));
  }

  /**
   * The first python or pip that a simple command runs: its first word, or the first after {@code NAME=value}
   * assignments and the words that run the next one ({@code exec}, {@code time}, {@code nohup}, {@code env},
   * {@code command}, {@code !}, {@code (}, {@code {}, {@code then}, {@code do}, …, and mpirun with its options).
   */
  private static Optional<RunTokens.Word> program(RunTokens tokens) {
    List<RunTokens.Word> words = tokens.words();
    for (int i = 0; i < words.size(); i++) {
      RunTokens.Word w = words.get(i);
      String name = w.text().replaceFirst("^\\(+", "");
      if (PROGRAM.matcher(name).matches() && runs(words, i)) {
        // (python3 x.py): the subshell's ( is no part of the program's name.
        int parens = w.text().length() - name.length();
        return Optional.of(new RunTokens.Word(name, w.start() + parens, w.end(), w.command()));
      }
    }
    return Optional.empty();
  }

  /**
   * True when everything before word {@code i} in its simple command only leads up to running it.
   */
  private static boolean runs(List<RunTokens.Word> words, int i) {
    int first = i;
    while (first > 0 && words.get(first - 1).command() == words.get(i).command()) {
      first--;
    }
    for (int j = first; j < i; j++) {
      String w = words.get(j).text();
      if (MpiRunRule.isMpirun(w)) {
        return MpiRunRule.programIndex(words, j) == i;
      }
      boolean afterEnv = j > first && words.get(j - 1).text().equals("env");
      if (!ASSIGNMENT.matcher(w).matches()
          && !LEADS.contains(w)
          && !(afterEnv && w.startsWith("-"))) {
        return false;
      }
    }
    return true;
  }

  private static String lacks(RunCheck c) {
    RuntimeDefinition rt = c.job().runtime();
    return "runtime "
        + rt.ref()
        + " records no Python in its image "
        + rt.image()
        + ": the command would not be found (exit 127) on any node";
  }
}
