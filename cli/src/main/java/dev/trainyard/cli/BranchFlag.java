package dev.trainyard.cli;

import dev.trainyard.gitops.GitOpsRepository;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The one check of a branch-name flag ({@code --branch} of submit, prune and preview, {@code
 * --source-branch}): git's own ref-name rules ({@link GitOpsRepository#isBranchName}), and one
 * usage error (exit 2) naming the flag and the rule, e.g. {@code --branch "a..b" is not a branch
 * name: …}.
 */
final class BranchFlag {
  private BranchFlag() {}

  /**
   * Checks {@code value} of {@code flag}.
   *
   * @throws ParameterException not a name git accepts for a branch, or given as {@code refs/…}
   *     (exit 2)
   */
  static void check(CommandSpec spec, String flag, String value) {
    if (value.startsWith("refs/") || !GitOpsRepository.isBranchName(value)) {
      throw new ParameterException(
          spec.commandLine(),
          flag
              + " \""
              + value
              + "\" is not a branch name: git refuses blanks, `..`, `~ ^ : ? * [ \\`, `@{`,"
              + " a leading `-`, a trailing `/`, `.` or `.lock`, and the name HEAD"
              + (value.startsWith("refs/") ? " (give it without refs/heads/)" : ""));
    }
  }
}
