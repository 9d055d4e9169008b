package dev.trainyard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;

/**
 * One folder under {@code golden/}: the inputs of a compile and what it must produce.
 *
 * <pre>
 * golden/&lt;case&gt;/
 *   train.yaml             the user's file (committed at jobs/&lt;case&gt;/train.yaml of a real git repo)
 *   files/                 optional: more files next to train.yaml (requirements.txt, code)
 *   platform.yaml          optional: instead of the embedded default platform
 *   runtimes/              optional: platform runtimes (&lt;name&gt;/&lt;version&gt;/runtime.yaml)
 *   case.yaml              optional: {cluster: NAME, namespace: NAME, example: NAME}; with {@code example}
 *                          the source is examples/NAME (compiled against examples/platform.yaml) and
 *                          no train.yaml is needed here
 *   expected/              the exact output tree (absent when the compile must fail)
 *   expected-output.txt    "exit N" and the diagnostics exactly as the CLI prints them
 * </pre>
 *
 * The source repo and commit are fixed ({@link #REPO}, {@link #COMMIT}) so run names do not depend
 * on git timestamps.
 */
record GoldenCase(String name, Path dir) {
  static final String REPO = "https://github.com/acme/golden.git";
  static final String COMMIT = "6f1c2d3e4a5b6c7d8e9f00112233445566778899";

  /** Every case folder under {@code root}, sorted. */
  static Stream<GoldenCase> all(Path root) throws IOException {
    try (Stream<Path> dirs = Files.list(root)) {
      return dirs
          .filter(
              d ->
                  Files.isRegularFile(d.resolve("train.yaml"))
                      || Files.isRegularFile(d.resolve("case.yaml")))
          .sorted()
          .map(d -> new GoldenCase(d.getFileName().toString(), d))
          .toList()
          .stream();
    }
  }

  /** Builds the source repo in {@code work} and returns the request that compiles it. */
  CompileRequest prepare(Path work) throws IOException, GitAPIException {
    Path repo = work.resolve("src");
    Path jobDir = repo.resolve("jobs").resolve(name);
    Files.createDirectories(jobDir);
    JsonNode options = options();
    Optional<Path> example =
        text(options, "example")
            .map(e -> dir.getParent().getParent().resolve("examples").resolve(e));
    if (example.isPresent()) {
      copyTree(example.get(), jobDir);
    } else {
      Files.copy(dir.resolve("train.yaml"), jobDir.resolve("train.yaml"));
    }
    copyTree(dir.resolve("files"), jobDir);
    try (Git git = Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call()) {
      git.add().addFilepattern(".").call();
      git.commit()
          .setMessage("golden")
          .setAuthor("Golden", "golden@example.com")
          .setCommitter("Golden", "golden@example.com")
          .call();
    }
    Optional<Path> platform =
        existing(dir.resolve("platform.yaml"))
            .or(() -> example.map(e -> e.getParent().resolve("platform.yaml")));
    return CompileRequest.builder(jobDir.resolve("train.yaml"))
        .displayPath("jobs/" + name + "/train.yaml")
        .platformFile(platform)
        .runtimesDir(existing(dir.resolve("runtimes")))
        .sourceRepo(REPO)
        .sourceCommit(COMMIT)
        .cluster(text(options, "cluster"))
        .namespace(text(options, "namespace"))
        .build();
  }

  Path expectedTree() {
    return dir.resolve("expected");
  }

  Path expectedOutput() {
    return dir.resolve("expected-output.txt");
  }

  private JsonNode options() throws IOException {
    Path file = dir.resolve("case.yaml");
    if (!Files.exists(file)) {
      return MissingNode.getInstance();
    }
    return new YamlDocumentLoader()
        .load(new SourceFile(file.toString(), Files.readString(file, StandardCharsets.UTF_8)))
        .value()
        .orElseThrow(() -> new IllegalStateException("bad " + file))
        .root();
  }

  private static Optional<String> text(JsonNode node, String field) {
    return node.path(field).isTextual() ? Optional.of(node.path(field).asText()) : Optional.empty();
  }

  private static Optional<Path> existing(Path path) {
    return Files.exists(path) ? Optional.of(path) : Optional.empty();
  }

  static void copyTree(Path from, Path to) throws IOException {
    if (!Files.isDirectory(from)) {
      return;
    }
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        Files.createDirectories(target.getParent());
        Files.copy(f, target);
      }
    }
  }
}
