package dev.trainyard.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;

/**
 * A real source repo for compiler-driven ITs: a JGit repository with an https remote and one
 * committed {@code train.yaml} at {@code jobs/<folder>/train.yaml}.
 */
final class SourceRepo {
  private SourceRepo() {}

  /** Creates the repo under {@code dir} and returns the path of its train.yaml. */
  static Path withTrainYaml(Path dir, String folder, String trainYaml)
      throws IOException, GitAPIException {
    return withTrainYaml(dir, folder, trainYaml, "https://github.com/acme/it.git");
  }

  /**
   * As above with the remote {@code origin} at {@code remote} (the run's provenance, which decides
   * the forge its commit status goes to); returns the path of its train.yaml.
   */
  static Path withTrainYaml(Path dir, String folder, String trainYaml, String remote)
      throws IOException, GitAPIException {
    Path jobDir = dir.resolve("jobs").resolve(folder);
    Files.createDirectories(jobDir);
    Files.writeString(jobDir.resolve("train.yaml"), trainYaml, StandardCharsets.UTF_8);
    commit(dir, remote);
    return jobDir.resolve("train.yaml");
  }

  /**
   * Creates the repo under {@code dir} with every regular file of {@code source} (not recursive,
   * e.g. a shipped example's folder) at {@code jobs/<folder>/} and returns the path of its
   * train.yaml.
   */
  static Path withFiles(Path dir, String folder, Path source) throws IOException, GitAPIException {
    Path jobDir = dir.resolve("jobs").resolve(folder);
    Files.createDirectories(jobDir);
    try (Stream<Path> files = Files.list(source)) {
      for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
        Files.copy(file, jobDir.resolve(file.getFileName().toString()));
      }
    }
    commit(dir, "https://github.com/acme/it.git");
    return jobDir.resolve("train.yaml");
  }

  private static void commit(Path dir, String remote) throws GitAPIException, IOException {
    try (Git git = Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call()) {
      git.getRepository().getConfig().setString("remote", "origin", "url", remote);
      git.getRepository().getConfig().save();
      git.add().addFilepattern(".").call();
      git.commit()
          .setMessage("it")
          .setAuthor("IT", "it@example.com")
          .setCommitter("IT", "it@example.com")
          .call();
    }
  }
}
