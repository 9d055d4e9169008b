package dev.trainyard.gitops;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The message and identities of a GitOps commit. Trailers ({@code Key: value},
 * git-interpret-trailers(1)) link the commit back to the source commit, so {@code git log
 * --format=%(trailers)} answers "which push started this run".
 *
 * @param subject first line, e.g. {@code trainyard submit: pytorch-ddp-3fa2c1}
 * @param body paragraphs after the subject ("" for none)
 * @param trailers {@code Key: value} lines in order
 * @param author who caused the change (the source commit's author for a submit)
 * @param committer who wrote it (Trainyard, or the CI identity)
 */
public record CommitText(
    String subject, String body, List<String> trailers, Person author, Person committer) {
  public CommitText {
    Objects.requireNonNull(subject, "subject");
    trailers = List.copyOf(trailers);
    if (subject.contains("\n")) {
      throw new IllegalArgumentException("subject must be one line");
    }
  }

  /** A git identity: name, e-mail and time. */
  public record Person(String name, String email, Instant when) {
    /**
     * Trainyard as committer: {@code TRAINYARD_GIT_COMMITTER_NAME} / {@code
     * TRAINYARD_GIT_COMMITTER_EMAIL} from {@code env} (e.g. the CI bot's identity), else {@code
     * Trainyard <trainyard@localhost>}.
     */
    public static Person committer(Map<String, String> env, Instant when) {
      return new Person(
          env.getOrDefault("TRAINYARD_GIT_COMMITTER_NAME", "Trainyard"),
          env.getOrDefault("TRAINYARD_GIT_COMMITTER_EMAIL", "trainyard@localhost"),
          when);
    }
  }

  /**
   * The full commit message: subject, blank line, body, blank line, trailers; LF line ends, final
   * newline.
   */
  public String message() {
    StringBuilder m = new StringBuilder(subject).append('\n');
    if (!body.isBlank()) {
      m.append('\n').append(body.strip()).append('\n');
    }
    if (!trailers.isEmpty()) {
      m.append('\n');
      trailers.forEach(t -> m.append(t).append('\n'));
    }
    return m.toString();
  }
}
