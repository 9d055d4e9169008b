package dev.trainyard.compiler.cluster;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where {@code validate --cluster} finds its kubeconfig, in kubectl's order: {@code --kubeconfig},
 * else the files of {@code $KUBECONFIG} (a {@code :}-separated list), else {@code ~/.kube/config},
 * else the pod's service account when running in a cluster ({@code KUBERNETES_SERVICE_HOST}). When
 * none is there, the error names every place looked at; a kubeconfig that is not YAML is reported
 * at its line and column.
 */
final class Kubeconfigs {
  /**
   * Load problems that make the file unreadable as YAML to any reader (anchors and duplicates are
   * kubectl's call).
   */
  private static final Set<DiagnosticCode> BROKEN =
      Set.of(
          DiagnosticCode.YAML_SYNTAX,
          DiagnosticCode.TAB_INDENTATION,
          DiagnosticCode.NOT_A_MAPPING,
          DiagnosticCode.EMPTY_FILE,
          DiagnosticCode.NOT_UTF8);

  private Kubeconfigs() {}

  /**
   * The kubeconfig files to read: the flag's, else every existing file of {@code $KUBECONFIG} in
   * its order (kubectl merges them), else {@code ~/.kube/config}; empty inside a cluster (the
   * service account is used).
   *
   * @throws ClusterDryRun.ClusterUnavailableException naming every place looked at, when there is
   *     none
   */
  static List<Path> locate(Optional<Path> flag, Map<String, String> env, Path home) {
    if (flag.isPresent()) {
      if (!Files.isRegularFile(flag.get())) {
        throw new ClusterDryRun.ClusterUnavailableException(
            "--kubeconfig "
                + flag.get()
                + ": "
                + (Files.isDirectory(flag.get()) ? "is a folder, not a file" : "no such file"),
            null);
      }
      return List.of(flag.get());
    }
    List<String> looked = new ArrayList<>(List.of("--kubeconfig (not given)"));
    String list = env.getOrDefault("KUBECONFIG", "");
    List<Path> files = new ArrayList<>();
    for (String entry : list.split(":")) {
      // An empty entry is Path.of(""), the working directory, never a regular file: skipped like
      // kubectl skips it, as it skips a file named twice and merges an empty file as nothing.
      if (Files.isRegularFile(Path.of(entry)) && !files.contains(Path.of(entry))) {
        files.add(Path.of(entry));
      }
    }
    if (files.size() > 1) {
      files.removeIf(Kubeconfigs::empty);
    }
    if (!files.isEmpty()) {
      return List.copyOf(files);
    }
    looked.add(
        list.isBlank() ? "$KUBECONFIG (not set)" : "$KUBECONFIG=" + list + " (no such file)");
    Path standard = home.resolve(".kube").resolve("config");
    if (Files.isRegularFile(standard)) {
      return List.of(standard);
    }
    looked.add(standard + " (no such file)");
    if (!env.getOrDefault("KUBERNETES_SERVICE_HOST", "").isBlank()) {
      return List.of();
    }
    looked.add("the in-cluster service account (KUBERNETES_SERVICE_HOST not set)");
    throw new ClusterDryRun.ClusterUnavailableException(
        "no kubeconfig found; looked at "
            + String.join(", ", looked)
            + "; pass --kubeconfig FILE or set KUBECONFIG",
        null);
  }

  /** A file of no bytes (an unreadable one is not: reading it reports why). */
  private static boolean empty(Path file) {
    try {
      return Files.size(file) == 0;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The loader's message without its quote of a plain top-level value: a kubeconfig holds tokens
   * and keys, and a file that is one scalar may be nothing else (found by {@code
   * KubeconfigFuzzTest}).
   */
  private static String unquoted(Diagnostic d) {
    return d.message()
        .replaceFirst(
            "(?s)the plain value `.*`$", "a plain value (not shown: it may be a credential)");
  }

  /**
   * The kubeconfig's text, checked to be YAML; the message of a broken one never quotes it.
   *
   * @throws ClusterDryRun.ClusterUnavailableException {@code file:line:col: not valid YAML: …}, or
   *     why it cannot be read
   */
  static String read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ClusterDryRun.ClusterUnavailableException(
          "cannot read kubeconfig "
              + file
              + ": "
              + (e instanceof AccessDeniedException
                  ? "permission denied"
                  : e.getClass().getSimpleName()),
          e);
    }
    var doc = new YamlDocumentLoader().load(new SourceFile(file.toString(), text));
    Optional<Diagnostic> broken =
        doc.diagnostics().stream().filter(d -> BROKEN.contains(d.code())).findFirst();
    if (broken.isPresent()) {
      throw new ClusterDryRun.ClusterUnavailableException(
          broken.get().location() + ": the kubeconfig is not valid YAML: " + unquoted(broken.get()),
          null);
    }
    return text;
  }
}
