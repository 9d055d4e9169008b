package dev.trainyard.gitops.preview;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.gitops.Snapshot;
import dev.trainyard.gitops.leaks.LeakCheck;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A snapshot whose files with private key material (E809 from the leak check) read as one comment
 * line, so no diff of a preview, which CI posts as a pull request comment, shows the key. A finding
 * names only the line a key starts on, and a key may span many lines (PEM, wrapped base64), so the
 * whole file is hidden; the preview fails anyway (E809 is an error), and the diagnostic says where
 * the key is.
 */
final class LeakHiding implements Snapshot {
  /**
   * Kustomization files: {@link KustomizeSecrets} masks their Secret generators and patches, so
   * they stay readable.
   */
  private static final Set<String> KUSTOMIZATIONS =
      Set.of("kustomization.yaml", "kustomization.yml", "Kustomization");

  /** What a hidden file reads as. */
  static final String HIDDEN =
      "# hidden: this file holds private key material (E809, see Diagnostics)\n";

  private final Snapshot tree;
  private final Set<String> hidden;

  private LeakHiding(Snapshot tree, Set<String> hidden) {
    this.tree = tree;
    this.hidden = hidden;
  }

  /**
   * {@code tree} with the files that E809 diagnostics among {@code diagnostics} name hidden, except
   * where the key sits in a Secret's data or a kustomization file, which the preview masks anyway
   * ({@link SecretMask}, {@link KustomizeSecrets}); {@code tree} itself when none.
   */
  static Snapshot hide(Snapshot tree, List<Diagnostic> diagnostics) {
    Set<String> files =
        diagnostics.stream()
            .filter(d -> d.code() == DiagnosticCode.PRIVATE_KEY_IN_TREE)
            .filter(
                d ->
                    !KUSTOMIZATIONS.contains(
                        d.location().file().substring(d.location().file().lastIndexOf('/') + 1)))
            .filter(
                d ->
                    !tree.read(d.location().file())
                        .map(t -> LeakCheck.inSecretData(t, d.location().line()))
                        .orElse(false))
            .map(d -> d.location().file())
            .collect(Collectors.toSet());
    return files.isEmpty() ? tree : new LeakHiding(tree, Set.copyOf(files));
  }

  @Override
  public Optional<String> commit() {
    return tree.commit();
  }

  @Override
  public Optional<String> read(String path) {
    return tree.read(path).map(text -> hidden.contains(path) ? HIDDEN : text);
  }

  /** The blob id of a file that reads as its own text; empty for a hidden one. */
  @Override
  public Optional<String> blobId(String path) {
    return hidden.contains(path) ? Optional.empty() : tree.blobId(path);
  }

  @Override
  public List<String> children(String folder) {
    return tree.children(folder);
  }

  @Override
  public SortedMap<String, String> folder(String folder) {
    SortedMap<String, String> files = new TreeMap<>(tree.folder(folder));
    String prefix = folder.isEmpty() ? "" : folder + "/";
    files.replaceAll((name, text) -> hidden.contains(prefix + name) ? HIDDEN : text);
    return files;
  }
}
