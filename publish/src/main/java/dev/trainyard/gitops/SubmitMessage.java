package dev.trainyard.gitops;

import dev.trainyard.compiler.resolve.ResolvedJob;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The commit message of a submit: the runs in the subject, one line per run in the body, and
 * trailers back to the source commit. Besides Trainyard's own trailers it writes Argo CD's
 * source-hydrator trailers ({@code Argocd-reference-commit-repourl}, {@code -sha}, {@code -author};
 * argo-cd docs/user-guide/source-hydrator.md), which Argo CD shows as the code commit behind a
 * GitOps commit. Never carries Secret data: only names, counts and source provenance.
 */
final class SubmitMessage {
  private static final int SUBJECT_MAX = 72;

  private SubmitMessage() {}

  /**
   * @param runs the new runs (at least one); their train.yaml paths as the user typed them
   * @param workingDirectory the folder those paths are relative to (the call's, not this JVM's: the
   *     resident server runs in {@code /})
   */
  static CommitText of(
      List<SubmittedRun> runs, Instant now, Map<String, String> env, Path workingDirectory) {
    ResolvedJob first = runs.get(0).job();
    CommitText.Person committer = CommitText.Person.committer(env, now);
    CommitText.Person author =
        SourceAuthor.of(workingDirectory.resolve(runs.get(0).trainYaml()), first.source().commit())
            .map(a -> new CommitText.Person(a.name(), a.email(), now))
            .orElse(committer);
    List<String> trailers = new ArrayList<>();
    trailers.add("Trainyard-Source-Repo: " + first.source().repoUrl());
    trailers.add("Trainyard-Source-Commit: " + first.source().commit());
    if (author != committer) {
      trailers.add("Trainyard-Source-Author: " + mailbox(author.name(), author.email()));
    }
    for (SubmittedRun r : runs) {
      trailers.add(
          "Trainyard-Run: "
              + r.folder().cluster()
              + "/"
              + r.folder().key()
              + " "
              + r.job().source().trainYamlPath());
    }
    trailers.add("Argocd-reference-commit-repourl: " + first.source().repoUrl());
    trailers.add("Argocd-reference-commit-sha: " + first.source().commit());
    if (author != committer) {
      trailers.add("Argocd-reference-commit-author: " + mailbox(author.name(), author.email()));
    }
    String body = runs.stream().map(SubmitMessage::line).collect(Collectors.joining("\n"));
    return new CommitText(subject(runs), body, trailers, author, committer);
  }

  /**
   * {@code NAME <EMAIL>} as an RFC 5322 mailbox: the display name as it is when it is words of atom
   * characters, else a quoted string (backslash before {@code "} and {@code \\}). Argo CD (v3.1+,
   * the first to read these trailers) parses the author trailer with Go's {@code
   * net/mail.ParseAddress} ({@code util/git/client.go updateCommitMetadata}), which rejects an
   * unquoted comma, dot or parenthesis, e.g. {@code Doe, Jane <jane@example.com>}, and then drops
   * the author.
   */
  static String mailbox(String name, String email) {
    String display =
        name.matches("[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+( [A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*")
            ? name
            : "\"" + name.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    return display + " <" + email + ">";
  }

  static String subject(List<SubmittedRun> runs) {
    String one = "trainyard submit: " + runs.get(0).folder().run();
    if (runs.size() == 1) {
      return one;
    }
    String all =
        "trainyard submit: "
            + runs.stream().map(r -> r.folder().run()).collect(Collectors.joining(", "));
    return all.length() <= SUBJECT_MAX
        ? all
        : "trainyard submit: " + runs.size() + " runs (" + runs.get(0).folder().run() + ", ...)";
  }

  private static String line(SubmittedRun r) {
    ResolvedJob j = r.job();
    return r.folder().run()
        + ": "
        + j.shapeLine()
        + " in "
        + r.folder().cluster()
        + "/"
        + r.folder().namespace()
        + ", from "
        + j.source().trainYamlPath();
  }
}
