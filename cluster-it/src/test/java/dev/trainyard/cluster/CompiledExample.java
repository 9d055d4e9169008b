package dev.trainyard.cluster;

import dev.trainyard.compiler.CompileRequest;
import dev.trainyard.compiler.CompileResult;
import dev.trainyard.compiler.Compiler;
import dev.trainyard.compiler.SshSecretProvider;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.api.errors.GitAPIException;

/**
 * A shipped example ({@code examples/<name>/}) compiled by the real compiler with its embedded
 * default platform, from a real git repo holding the example's files at {@code jobs/<name>/}
 * ({@link SourceRepo}).
 *
 * @param objects every object of the compiled tree, in the tree's file order
 */
record CompiledExample(List<GenericKubernetesResource> objects) {

  /**
   * Compiles {@code examples/<name>/train.yaml}; fails with the diagnostics when the compile has
   * errors.
   */
  static CompiledExample compile(String name, Path workDir) {
    try {
      return compiled(
          name,
          SourceRepo.withFiles(
              workDir, name, K8sBinaries.repoRoot().resolve("examples").resolve(name)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GitAPIException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Compiles {@code trainYaml} committed alone at {@code jobs/<name>/}; fails with the diagnostics
   * on errors.
   */
  static CompiledExample compileTrainYaml(String name, String trainYaml, Path workDir) {
    try {
      return compiled(name, SourceRepo.withTrainYaml(workDir, name, trainYaml));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GitAPIException e) {
      throw new IllegalStateException(e);
    }
  }

  private static CompiledExample compiled(String name, Path trainYaml) {
    CompileResult result =
        new Compiler(SshSecretProvider.system()).compile(CompileRequest.of(trainYaml));
    if (result.hasErrors()) {
      throw new AssertionError(name + " does not compile: " + result.diagnostics());
    }
    return new CompiledExample(
        result.tree().orElseThrow().files().values().stream()
            .flatMap(yaml -> Manifests.parse(yaml).stream())
            .toList());
  }

  /** The run's JobSet. */
  GenericKubernetesResource jobSet() {
    return objects.stream()
        .filter(o -> "JobSet".equals(o.getKind()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no JobSet among " + objects.size() + " compiled objects"));
  }

  /**
   * The data value {@code key} of the ConfigMap whose name ends with {@code suffix} (e.g. {@code
   * -mpi}).
   */
  String configMapValue(String suffix, String key) {
    return objects.stream()
        .filter(o -> "ConfigMap".equals(o.getKind()) && o.getMetadata().getName().endsWith(suffix))
        .map(o -> (Map<?, ?>) o.getAdditionalProperties().get("data"))
        .map(data -> String.valueOf(data.get(key)))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no ConfigMap *" + suffix + " among the compiled objects"));
  }

  /**
   * The run's other objects that this cluster serves (the SSH Secret, the MPI ConfigMap, RBAC):
   * neither the JobSet nor Kueue's queue objects (the ITs here run unqueued).
   */
  Stream<GenericKubernetesResource> companions() {
    return objects.stream()
        .filter(o -> !"JobSet".equals(o.getKind()) && !"kueue.x-k8s.io".equals(Manifests.group(o)))
        .filter(Manifests::appliedHere);
  }
}
