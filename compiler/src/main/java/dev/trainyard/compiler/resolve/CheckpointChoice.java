package dev.trainyard.compiler.resolve;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.spec.CheckpointSpec;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Resolves train.yaml's {@code checkpoint} against the target namespace's checkpoint storage
 * (platform.yaml {@code namespaces[].checkpoints}): E317 when the namespace offers none.
 *
 * <pre>
 * checkpoint: {saveSeconds: 120}      # + namespace checkpoints: {size: 500Gi, accessMode: ReadWriteMany}
 *   → claim llama-ft-3f2a1b (written into the GitOps repo), CHECKPOINT_DIR /checkpoints/&lt;run id&gt;
 * </pre>
 */
final class CheckpointChoice {
  private static final int KEY_HEX = 6;

  private CheckpointChoice() {}

  /**
   * The run's checkpoint, empty when train.yaml has none or the namespace offers no storage (then
   * with an E317 in {@code problems}).
   */
  static Optional<ResolvedCheckpoint> choose(
      ResolveInput in,
      ResolvedJob.Target target,
      ResolvedJob.Naming naming,
      List<Diagnostic> problems) {
    if (in.spec().checkpoint().isEmpty()) {
      if (in.checkpointKey().fresh()) {
        problems.add(freshWithout(in));
      }
      return Optional.empty();
    }
    CheckpointSpec spec = in.spec().checkpoint().get();
    Optional<Platform.CheckpointStorage> storage =
        in.platform().namespaces().stream()
            .filter(
                n -> n.cluster().equals(target.cluster()) && n.name().equals(target.namespace()))
            .findFirst()
            .flatMap(Platform.NamespaceRule::checkpoints);
    if (storage.isEmpty()) {
      problems.add(noStorage(in, target));
      return Optional.empty();
    }
    Platform.CheckpointStorage s = storage.get();
    String key = key(in, target, naming.jobName());
    String path = spec.path().orElse(ResolvedCheckpoint.DEFAULT_PATH).replaceFirst("(.)/+$", "$1");
    TreeSet<Integer> codes = new TreeSet<>(s.recoverOnExitCodes());
    codes.addAll(spec.recoverOnExitCodes());
    return Optional.of(
        new ResolvedCheckpoint(
            key,
            s.claim().orElse(key),
            s.claim().isEmpty(),
            s.storageClass(),
            s.size().orElse(""),
            s.accessMode(),
            path,
            (path.equals("/") ? "" : path) + "/" + naming.runId(),
            in.checkpointKey().fresh(),
            spec.keep().orElse(ResolvedCheckpoint.DEFAULT_KEEP),
            spec.saveSeconds().orElse(ResolvedCheckpoint.DEFAULT_SAVE_SECONDS),
            List.copyOf(codes),
            s.sameNode()));
  }

  /**
   * {@code <job>-<6 hex>}: the hex of SHA-256 over namespace, normalised source repo, train.yaml
   * path and source branch, so two repos' jobs of one name never share a claim and a branch keeps
   * its own checkpoints. The job name is at most 47 characters (the JobSet budget), so the key is a
   * valid claim name and DNS label.
   */
  static String key(ResolveInput in, ResolvedJob.Target target, String jobName) {
    String what =
        target.namespace()
            + "\n"
            + in.source().normalizedRepo()
            + "\n"
            + in.source().trainYamlPath()
            + "\n"
            + in.checkpointKey().branch();
    return jobName + "-" + CanonicalJson.sha256Hex(what).substring(0, KEY_HEX);
  }

  /** W318: {@code --fresh} starts over from checkpoints, and this train.yaml keeps none. */
  private static Diagnostic freshWithout(ResolveInput in) {
    return Diagnostic.warning(
            DiagnosticCode.FRESH_WITHOUT_CHECKPOINT,
            in.spec().document().map().at(""),
            "",
            "--fresh does nothing here: train.yaml has no `checkpoint:`, so every run starts at step 0"
                + " anyway")
        .withHint(
            "leave --fresh out, or add `checkpoint:` (docs/checkpoints.md) so runs resume and --fresh"
                + " has something to start over from");
  }

  private static Diagnostic noStorage(ResolveInput in, ResolvedJob.Target target) {
    return Diagnostic.error(
            DiagnosticCode.NO_CHECKPOINT_STORAGE,
            in.spec().document().map().keyAt("/checkpoint"),
            "/checkpoint",
            "namespace `"
                + target.namespace()
                + "` of cluster `"
                + target.cluster()
                + "` offers no checkpoint storage, so `checkpoint` has nowhere to keep checkpoints")
        .withHint(
            "ask your platform team to add `checkpoints:` (a size and access mode, or an existing claim) to namespace `"
                + target.namespace()
                + "` in "
                + in.platform().origin()
                + ", or target a namespace that has it (--namespace)");
  }
}
