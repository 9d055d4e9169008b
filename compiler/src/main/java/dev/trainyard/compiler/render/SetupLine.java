package dev.trainyard.compiler.render;

/**
 * The line of every generated pod script that runs {@code setup}: {@code $TRAINYARD_SETUP} under
 * {@code bash -eo pipefail}, and when it fails the script ends at once with setup's exit code and
 * one line on stderr, so {@code run} never starts on a node whose setup failed (the scripts run
 * under {@code bash -c} without {@code -e}: a failed command would otherwise be ignored). The
 * user's text reaches the shell only as the variable's value.
 *
 * <pre>
 * trainyard: setup failed with exit 1; run does not start
 * </pre>
 */
public final class SetupLine {
  /** The line, ending in a line break. */
  public static final String TEXT =
      "if [ -n \"${TRAINYARD_SETUP:-}\" ]; then bash -eo pipefail -c \"$TRAINYARD_SETUP\""
          + " || { setup_status=$?; echo \"trainyard: setup failed with exit $setup_status; run does"
          + " not start\" >&2; exit \"$setup_status\"; }; fi\n";

  private SetupLine() {}
}
