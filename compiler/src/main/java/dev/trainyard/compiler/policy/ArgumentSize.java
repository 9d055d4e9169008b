package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.nio.charset.StandardCharsets;

/**
 * E453: {@code run} or {@code setup} longer than one string a Linux process may be given. Each is
 * one environment variable of the pod ({@code TRAINYARD_RUN}, {@code TRAINYARD_SETUP}) and one
 * argument of {@code bash -c}, and the kernel refuses any single argument or environment string
 * over {@code MAX_ARG_STRLEN}, 32 pages: 131,072 bytes with its {@code NAME=} and its terminating
 * NUL (Linux {@code include/uapi/linux/binfmts.h}; execve(2), "Limits on size of arguments and
 * environment"). The container would then fail to start on every node with "Argument list too long"
 * (exit 126), a failure nothing in the compiled manifests hints at.
 */
final class ArgumentSize {
  /** Linux {@code MAX_ARG_STRLEN} on 4 KiB pages, bytes, NUL included. */
  static final int MAX_ARG_STRLEN = 32 * 4096;

  private ArgumentSize() {}

  /** E453 for {@code run} and for {@code setup} when one does not fit. */
  static void check(RunCheck c) {
    String run = c.job().command().run();
    if (tooLong("TRAINYARD_RUN", run)) {
      c.out()
          .add(
              Diagnostic.error(
                      DiagnosticCode.RUN_TOO_LONG,
                      new RunSource(c.job().spec().document(), "/run", run).start(),
                      "/run",
                      message("`run`", run))
                  .withHint(HINT));
    }
    String setup = c.job().command().setup();
    if (tooLong("TRAINYARD_SETUP", setup)) {
      c.out()
          .add(
              Diagnostic.error(
                      DiagnosticCode.RUN_TOO_LONG,
                      new RunSource(c.job().spec().document(), "/setup", setup).start(),
                      "/setup",
                      message("`setup`", setup))
                  .withHint(HINT));
    }
  }

  /** Whether {@code NAME=value} and its NUL exceed {@link #MAX_ARG_STRLEN}. */
  static boolean tooLong(String name, String value) {
    return name.length() + 1 + value.getBytes(StandardCharsets.UTF_8).length + 1 > MAX_ARG_STRLEN;
  }

  private static String message(String field, String value) {
    return field
        + " is "
        + String.format("%,d", value.getBytes(StandardCharsets.UTF_8).length)
        + " bytes as compiled; as an environment variable, with its name and the closing NUL, it"
        + " is over the 131,072 bytes Linux lets one argument or environment string be"
        + " (MAX_ARG_STRLEN): every node would fail to start with \"Argument list too long\" (exit"
        + " 126)";
  }

  private static final String HINT =
      "put the commands in a script in the repository and run that (`run: bash train.sh`);"
          + " data belongs in files, not in train.yaml";
}
