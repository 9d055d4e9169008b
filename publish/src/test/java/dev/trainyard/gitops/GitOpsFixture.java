package dev.trainyard.gitops;

import dev.trainyard.compiler.testing.TrainProject;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the submit and prune tests start from: an empty bare GitOps repository made by the git CLI,
 * a source project with one train.yaml, and the Submitter and Pruner on one mirror cache, each at a
 * fixed instant.
 */
final class GitOpsFixture {
  static final Instant T0 = Instant.parse("2026-12-01T09:00:00Z");
  final Path temp;
  final Path bare;
  final TrainProject project;

  /**
   * In {@code temp}: {@code gitops.git} (bare), the project with {@code trainYaml}, the cache
   * {@code cache/}.
   */
  GitOpsFixture(Path temp, String trainYaml) {
    this.temp = temp;
    this.bare = GitCli.bare(temp.resolve("gitops.git"));
    this.project = TrainProject.create(temp, trainYaml);
  }

  /** The bare repository as a GitOps location (a local path). */
  GitOpsLocation location() {
    return GitOpsLocation.parse(bare.toString(), Path.of(""));
  }

  /** A Submitter with no environment, on the fixture's cache, its clock stopped at {@code at}. */
  Submitter submitter(Instant at) {
    return new Submitter(temp.resolve("cache"), Map.of(), Clock.fixed(at, ZoneOffset.UTC));
  }

  /** A Pruner with no environment, on the fixture's cache, its clock stopped at {@code at}. */
  Pruner pruner(Instant at) {
    return new Pruner(temp.resolve("cache"), Map.of(), Clock.fixed(at, ZoneOffset.UTC));
  }

  /**
   * Submit of {@code trainYaml} (a test may make projects of its own) to main, every other option
   * at its default.
   */
  SubmitRequest request(Path trainYaml, boolean rerun, boolean dryRun) {
    return new SubmitRequest(
        List.of(trainYaml),
        location(),
        "main",
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        rerun,
        dryRun);
  }
}
