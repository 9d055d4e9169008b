package dev.trainyard.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;

/**
 * A real source repo for compiler-driven ITs: a JGit repository with an https remote and one committed
 * {@code train.yaml} at {@code jobs/<folder>/train.yaml}.
 */
final class SourceRepo {
    private SourceRepo() {}

    /** Creates the repo under {@code dir} and returns the path of its train.yaml. */
    static Path withTrainYaml(Path dir, String folder, String trainYaml) throws IOException, GitAPIException {
        Path jobDir = dir.resolve("jobs").resolve(folder);
        Files.createDirectories(jobDir);
        Files.writeString(jobDir.resolve("train.yaml"), trainYaml, StandardCharsets.UTF_8);
        try (Git git = Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call()) {
            git.getRepository().getConfig().setString("remote", "origin", "url", "https://github.com/acme/it.git");
            git.getRepository().getConfig().save();
            git.add().addFilepattern(".").call();
            git.commit().setMessage("it").setAuthor("IT", "it@example.com").setCommitter("IT", "it@example.com").call();
        }
        return jobDir.resolve("train.yaml");
    }
}
