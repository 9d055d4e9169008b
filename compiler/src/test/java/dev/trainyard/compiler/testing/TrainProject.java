package dev.trainyard.compiler.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;

/**
 * A real source repo for tests: a git repository (JGit) in a temp folder with a remote URL, a
 * train.yaml in a sub-folder, committed; compiled with the real compiler. Key material comes from a
 * seeded random so outputs are reproducible in tests.
 *
 * <pre>
 * TrainProject p = TrainProject.create(tempDir, "run: torchrun train.py\nnodes: 2\n");
 * CompileResult r = p.compile();
 * JsonNode jobSet = p.object(r, "JobSet");
 * </pre>
 */
public final class TrainProject {
  public static final String REMOTE = "https://github.com/acme/llm-training.git";
  public static final String FOLDER = "jobs/demo";

  private final Path root;
  private final Path trainYaml;
  private Optional<Path> platform = Optional.empty();

  private TrainProject(Path root, Path trainYaml) {
    this.root = root;
    this.trainYaml = trainYaml;
  }

  /** A committed repo with {@code jobs/demo/train.yaml} holding {@code trainYamlText}. */
  public static TrainProject create(Path dir, String trainYamlText) {
    return create(dir, FOLDER, trainYamlText, Map.of());
  }

  /**
   * A committed repo with {@code <folder>/train.yaml} and extra files (path relative to the folder
   * → text).
   */
  public static TrainProject create(
      Path dir, String folder, String trainYamlText, Map<String, String> extraFiles) {
    try {
      Path work = dir.resolve("src");
      Path jobDir = work.resolve(folder);
      Files.createDirectories(jobDir);
      Files.writeString(jobDir.resolve("train.yaml"), trainYamlText, StandardCharsets.UTF_8);
      for (var e : extraFiles.entrySet()) {
        Files.createDirectories(jobDir.resolve(e.getKey()).getParent());
        Files.writeString(jobDir.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
      }
      try (Git git = Git.init().setDirectory(work.toFile()).setInitialBranch("main").call()) {
        git.getRepository().getConfig().setString("remote", "origin", "url", REMOTE);
        git.getRepository().getConfig().save();
        git.add().addFilepattern(".").call();
        var commit =
            git.commit()
                .setMessage("train")
                .setAuthor("Test", "test@example.com")
                .setCommitter("Test", "test@example.com")
                .call();
        // As after a push: the commit is on origin/main, so the pods' clone of the remote has it
        // (no W316).
        var update = git.getRepository().updateRef("refs/remotes/origin/main");
        update.setNewObjectId(commit);
        update.forceUpdate();
      }
      return new TrainProject(work, jobDir.resolve("train.yaml"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GitAPIException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Uses {@code platformYaml} (written next to the repo) instead of the embedded default. */
  public TrainProject withPlatform(String platformYaml) {
    try {
      Path file = root.getParent().resolve("platform.yaml");
      Files.writeString(file, platformYaml, StandardCharsets.UTF_8);
      platform = Optional.of(file);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path root() {
    return root;
  }

  public Path trainYaml() {
    return trainYaml;
  }

  /** Compiles with a seeded key source and a fixed clock. */
  public CompileResult compile() {
    return compile(Optional.empty());
  }

  /** Compiles, reusing an existing run's Secret from {@code existingTree} when given. */
  public CompileResult compile(Optional<Path> existingTree) {
    return compile(b -> b.existingTree(existingTree));
  }

  /**
   * Compiles the request {@code more} makes of the default one (e.g. {@code b -> b.fresh(true)}).
   */
  public CompileResult compile(UnaryOperator<CompileRequest.Builder> more) {
    CompileRequest request =
        more.apply(
                CompileRequest.builder(trainYaml).displayPath("train.yaml").platformFile(platform))
            .build();
    return new Compiler(
            new SshSecretProvider(
                seeded(), Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC)))
        .compile(request);
  }

  /** A deterministic SecureRandom for reproducible keys in tests. */
  public static SecureRandom seeded() {
    try {
      SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
      random.setSeed(42L);
      return random;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The tree of a successful compile; fails with the diagnostics otherwise. */
  public static OutputTree tree(CompileResult result) {
    return result
        .tree()
        .orElseThrow(() -> new AssertionError("compile failed: " + result.diagnostics()));
  }

  /** The one object of {@code kind} in the run's folder, parsed. */
  public static JsonNode object(CompileResult result, String kind) {
    String prefix = kind.toLowerCase(Locale.ROOT) + "-";
    return tree(result).files().entrySet().stream()
        .filter(e -> e.getKey().contains("/" + prefix) && !e.getKey().contains("/_"))
        .map(e -> parse(e.getKey(), e.getValue()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no " + kind + " in " + tree(result).files().keySet()));
  }

  /** Parses YAML text with the compiler's own loader. */
  public static JsonNode parse(String name, String yaml) {
    return new YamlDocumentLoader().load(new SourceFile(name, yaml)).value().orElseThrow().root();
  }

  /** The diagnostics of {@code code}. */
  public static List<Diagnostic> withCode(CompileResult result, DiagnosticCode code) {
    return result.diagnostics().stream().filter(d -> d.code() == code).toList();
  }

  /**
   * The env var {@code name} of the first container of replicated job {@code rjob}, as text (""
   * when absent).
   */
  public static JsonNode env(JsonNode jobSet, String rjob, String name) {
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      if (rj.path("name").asText().equals(rjob)) {
        for (JsonNode e :
            rj.path("template")
                .path("spec")
                .path("template")
                .path("spec")
                .path("containers")
                .path(0)
                .path("env")) {
          if (e.path("name").asText().equals(name)) {
            return e;
          }
        }
      }
    }
    return MissingNode.getInstance();
  }

  /** The pod spec of replicated job {@code rjob}. */
  public static JsonNode podSpec(JsonNode jobSet, String rjob) {
    for (JsonNode rj : jobSet.path("spec").path("replicatedJobs")) {
      if (rj.path("name").asText().equals(rjob)) {
        return rj.path("template").path("spec").path("template").path("spec");
      }
    }
    return MissingNode.getInstance();
  }
}
