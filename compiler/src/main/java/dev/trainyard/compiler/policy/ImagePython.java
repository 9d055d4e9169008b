package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.runtime.RuntimeDefinition;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code run} starts Python on an image that has none: the {@code mpi} runtime's image
 * (kubeflow/mpi-operator {@code build/base}: Debian with {@code openmpi-bin} and {@code openssh-server}, no
 * Python) fails {@code python3 train.py} with "command not found" (exit 127) on every node, after the run has
 * been admitted and its pods scheduled. Only bare names are checked ({@code python}, {@code python3.12},
 * {@code pip3}): a path such as {@code ./venv/bin/python} is the user's own.
 *
 * <pre>
 * runtime: mpi
 * run: python3 train.py      # W431 at python3
 * </pre>
 */
final class ImagePython {
  private static final Pattern PROGRAM = Pattern.compile("python[0-9.]*|pip[0-9.]*");

  private ImagePython() {}

  static void check(RunCheck c) {
    if (!c.job().command().imageWithoutPython()) {
      return;
    }
    List<RunTokens.Word> words = c.run().words();
    for (int i = 0; i < words.size(); i++) {
      if (PROGRAM.matcher(words.get(i).text()).matches() && c.run().startsCommand(i)) {
        RuntimeDefinition rt = c.job().runtime();
        c.warning(DiagnosticCode.NO_PYTHON_IN_IMAGE, words.get(i),
            "`run` starts " + words.get(i).text() + ", but runtime " + rt.ref() + " records no Python in its image "
                + rt.image() + ": the command would not be found (exit 127) on any node",
            "set `image:` to an image built from " + rt.image() + " that adds Python (and mpi4py for an MPI program), "
                + "choose a runtime whose image has Python (`trainyard runtimes list`), or, if this image has Python, "
                + "record it in the runtime's runtime.yaml (`python:`)");
        return;
      }
    }
  }
}
