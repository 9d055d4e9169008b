package dev.trainyard.cluster.netns;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A source repo committed with the real git CLI ({@code jobs/<folder>/} holding a train.yaml and
 * its files, remote {@code https://github.com/acme/it.git}) and compiled with the real compiler:
 * the embedded default platform (namespace {@code default}, plain SSH Secret), a fresh SSH key, and
 * optionally a platform runtimes folder.
 *
 * @param repo the source repo's folder (what the compiled GIT_REPO stands for)
 * @param run the compiled run
 * @param files the compiled output tree (path → YAML)
 */
record CompiledProject(Path repo, CompiledRun run, Map<String, String> files) {

  /**
   * Commits {@code files} (relative path → text) under {@code jobs/<folder>/} and compiles its
   * train.yaml.
   */
  static CompiledProject compile(
      Path dir, String folder, Map<String, String> files, Optional<Path> runtimes) {
    return compile(dir, folder, files, b -> b.runtimesDir(runtimes));
  }

  /**
   * As {@link #compile(Path, String, Map, Optional)}, with the request {@code more} makes of the
   * plain one (e.g. a platform.yaml).
   */
  static CompiledProject compile(
      Path dir,
      String folder,
      Map<String, String> files,
      UnaryOperator<CompileRequest.Builder> more) {
    Path jobDir = dir.resolve("jobs").resolve(folder);
    try {
      Files.createDirectories(jobDir);
      for (Map.Entry<String, String> f : files.entrySet()) {
        Files.writeString(jobDir.resolve(f.getKey()), f.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    commit(dir);
    CompileRequest plain = CompileRequest.of(jobDir.resolve("train.yaml"));
    CompileRequest request =
        more.apply(CompileRequest.builder(plain.trainYaml()).displayPath(plain.displayPath()))
            .build();
    CompileResult result = new Compiler(SshSecretProvider.system()).compile(request);
    if (result.hasErrors()) {
      throw new AssertionError("compile of " + folder + " failed: " + result.diagnostics());
    }
    Map<String, String> tree = result.tree().orElseThrow().files();
    return new CompiledProject(dir, CompiledRun.from(tree), new TreeMap<>(tree));
  }

  /**
   * Commits {@code files} as {@link #compile} does and returns the compiler's diagnostics, errors
   * included (for lines the lint refuses, whose hints a test then compiles and runs).
   */
  static List<Diagnostic> diagnose(Path dir, String folder, Map<String, String> files) {
    Path jobDir = dir.resolve("jobs").resolve(folder);
    try {
      Files.createDirectories(jobDir);
      for (Map.Entry<String, String> f : files.entrySet()) {
        Files.writeString(jobDir.resolve(f.getKey()), f.getValue());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    commit(dir);
    return new Compiler(SshSecretProvider.system())
        .compile(CompileRequest.of(jobDir.resolve("train.yaml")))
        .diagnostics();
  }

  /**
   * Copies an example folder of this repository ({@code examples/<name>/}) unmodified and compiles
   * it.
   */
  static CompiledProject example(Path dir, Path repoRoot, String name, Optional<Path> runtimes) {
    Path source = repoRoot.resolve("examples").resolve(name);
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> list = Files.list(source)) {
      for (Path f : list.filter(Files::isRegularFile).toList()) {
        files.put(f.getFileName().toString(), Files.readString(f));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return compile(dir, name, files, runtimes);
  }

  private static void commit(Path dir) {
    String[] base = {
      "git",
      "-C",
      dir.toString(),
      "-c",
      "user.name=Trainyard IT",
      "-c",
      "user.email=it@trainyard.dev"
    };
    HostCommand.check("git", "-C", dir.toString(), "init", "--quiet", "--initial-branch=main");
    HostCommand.check(
        "git", "-C", dir.toString(), "remote", "add", "origin", "https://github.com/acme/it.git");
    HostCommand.check("git", "-C", dir.toString(), "add", ".");
    HostCommand.check(concat(base, "commit", "--quiet", "-m", "it"));
  }

  private static String[] concat(String[] base, String... more) {
    return Stream.concat(Stream.of(base), Stream.of(more)).toArray(String[]::new);
  }
}
