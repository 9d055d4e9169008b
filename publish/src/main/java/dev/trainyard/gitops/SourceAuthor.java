package dev.trainyard.gitops;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/** The author of the source commit, read from the repository that holds train.yaml (JGit). */
final class SourceAuthor {
  private SourceAuthor() {}

  /**
   * {@code Name <email>} of {@code commit}'s author, or empty when train.yaml is in no repository
   * or the commit is not there (a shallow CI clone, {@code --source-commit} of another repository).
   */
  static Optional<CommitText.Person> of(Path trainYaml, String commit) {
    FileRepositoryBuilder builder =
        new FileRepositoryBuilder().findGitDir(trainYaml.toAbsolutePath().getParent().toFile());
    if (builder.getGitDir() == null) {
      return Optional.empty();
    }
    try (Repository repo = builder.build();
        RevWalk walk = new RevWalk(repo)) {
      PersonIdent a = walk.parseCommit(ObjectId.fromString(commit)).getAuthorIdent();
      return Optional.of(
          new CommitText.Person(a.getName(), a.getEmailAddress(), a.getWhenAsInstant()));
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
