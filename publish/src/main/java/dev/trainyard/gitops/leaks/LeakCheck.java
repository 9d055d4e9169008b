package dev.trainyard.gitops.leaks;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.manifest.TreeLayout;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The leak check ({@code trainyard check-secrets}, and {@code submit} before every commit): every
 * file of a GitOps tree is scanned for private key material ({@link KeyScanner}); a finding is an
 * error (E809) unless it sits in a plain Secret where {@code platform.yaml} allows plain Secrets:
 * {@code secrets.policy: plain} with {@code allowPlain: true}, in a namespace the platform lists,
 * in a file {@code clusters/<cluster>/<namespace>/…}, in the {@code data} or {@code stringData} of
 * a {@code kind: Secret} object: a YAML document or an item of a {@code kind: List} ({@link
 * ManifestLines}). A ConfigMap, an annotation or a comment never may. Diagnostics name the file,
 * the line and the kind of key, never the key.
 */
public final class LeakCheck {
  private final KeyScanner scanner = new KeyScanner();
  private final Platform platform;

  /**
   * @param platform decides where plain Secrets are allowed
   */
  public LeakCheck(Platform platform) {
    this.platform = platform;
  }

  /**
   * What a check found.
   *
   * @param diagnostics one E809 error per key outside an allowed plain Secret, sorted
   * @param files how many files were scanned
   * @param allowed how many keys sit in plain Secrets the platform allows
   * @param skippedLinks the symbolic links of a tree on disk, not followed and so not read
   *     (relative paths, sorted)
   */
  public record Report(
      List<Diagnostic> diagnostics, int files, int allowed, List<String> skippedLinks) {
    public Report {
      diagnostics = List.copyOf(diagnostics);
      skippedLinks = List.copyOf(skippedLinks);
    }

    /** No link skipped (a tree in memory has none). */
    public Report(List<Diagnostic> diagnostics, int files, int allowed) {
      this(diagnostics, files, allowed, List.of());
    }

    /** Whether a key was found where none may be. */
    public boolean leaked() {
      return diagnostics.stream().anyMatch(Diagnostic::isError);
    }
  }

  /** Checks {@code files} (path relative to the tree's root with {@code /} → content). */
  public Report check(SortedMap<String, byte[]> files) {
    List<Diagnostic> problems = new ArrayList<>();
    int allowed = 0;
    // The scan, the costly part (a preview's 1,000 changed files: ~20 % of its time), on all cores;
    // the findings are then placed in path order on this thread.
    List<List<KeyFinding>> scans = files.values().parallelStream().map(scanner::scan).toList();
    int i = 0;
    for (Map.Entry<String, byte[]> file : files.entrySet()) {
      List<KeyFinding> found = scans.get(i++);
      if (found.isEmpty()) {
        continue;
      }
      String namespace = allowedNamespace(file.getKey());
      ManifestLines.Place[] places = ManifestLines.of(text(file.getValue()));
      for (KeyFinding f : found) {
        ManifestLines.Place place =
            f.line() < places.length ? places[f.line()] : ManifestLines.Place.NOWHERE;
        if (!namespace.isEmpty() && place.inSecretData()) {
          allowed++;
        } else {
          problems.add(leak(file.getKey(), f, namespace, place));
        }
      }
    }
    problems.sort(Diagnostic.ORDER);
    return new Report(problems, files.size(), allowed);
  }

  /**
   * {@code trainyard check-secrets DIR}: the files of {@code dir} ({@link TreeFiles}; its symbolic
   * links are not followed, and the report lists them) under {@code platformFile}, else {@code
   * DIR/platform.yaml}, else the embedded default platform. A broken platform.yaml fails with its
   * diagnostics.
   *
   * @throws IOException when a file or folder of {@code dir} cannot be read (the message says
   *     which, and why)
   */
  public static StageResult<Report> checkFolder(Path dir, Optional<Path> platformFile)
      throws IOException {
    Optional<Path> file =
        platformFile.or(
            () -> Optional.of(dir.resolve("platform.yaml")).filter(Files::isRegularFile));
    StageResult<Platform> platform =
        PlatformLoader.standard()
            .load(file, file.map(Path::toString).orElse(PlatformLoader.EMBEDDED_NAME));
    if (platform.failed()) {
      return StageResult.failed(platform.diagnostics());
    }
    TreeFiles.Tree tree = TreeFiles.read(dir);
    Report report = new LeakCheck(platform.value().orElseThrow()).check(tree.files());
    List<Diagnostic> all = new ArrayList<>(platform.diagnostics());
    all.addAll(report.diagnostics());
    return StageResult.of(
        new Report(all, report.files(), report.allowed(), tree.links()), List.of());
  }

  /**
   * The leak check on a freshly compiled tree, before anything is written or committed (the same
   * bytes {@code compile} writes and {@code submit} commits): E809 for each private key outside a
   * Secret the platform allows in plain text; empty when the tree is clean.
   */
  public static List<Diagnostic> compiled(OutputTree tree, Platform platform) {
    return new LeakCheck(platform).checkText(new TreeMap<>(tree.files())).diagnostics();
  }

  /** Text files (a {@code Snapshot}'s or a compile's), checked as their UTF-8 bytes. */
  public Report checkText(SortedMap<String, String> files) {
    SortedMap<String, byte[]> bytes = new TreeMap<>();
    files.forEach((path, text) -> bytes.put(path, text.getBytes(StandardCharsets.UTF_8)));
    return check(bytes);
  }

  /**
   * The namespace of {@code clusters/<cluster>/<namespace>/...} when plain Secrets are allowed
   * there, else "".
   */
  private String allowedNamespace(String path) {
    Platform.SecretsPolicy policy = platform.secrets();
    TreeLayout place = TreeLayout.of(path);
    if (policy.mode() != Platform.SecretsMode.PLAIN
        || !policy.allowPlain()
        || place.namespace().isEmpty()) {
      return "";
    }
    String cluster = place.cluster().orElseThrow();
    String namespace = place.namespace().get();
    boolean listed =
        platform.namespaces().stream()
            .anyMatch(n -> n.cluster().equals(cluster) && n.name().equals(namespace));
    return listed ? namespace : "";
  }

  /**
   * Whether 1-based {@code line} of a manifest lies in the {@code data} or {@code stringData} of a
   * Secret ({@link ManifestLines}): where a preview masks values anyway, so a key there needs no
   * further hiding.
   */
  public static boolean inSecretData(String text, int line) {
    ManifestLines.Place[] places = ManifestLines.of(text);
    return line > 0 && line < places.length && places[line].inSecretData();
  }

  /** The file's text as the scanner read it: UTF-16/32 decoded ({@link WideText}), else UTF-8. */
  private static String text(byte[] content) {
    return WideText.decode(content)
        .map(WideText.Decoded::text)
        .orElseGet(() -> new String(content, StandardCharsets.UTF_8));
  }

  /**
   * An annotation or label is printed by {@code kubectl describe} and copied into events and
   * last-applied state, so a key there is a leak even in a Secret: the message names the object and
   * field it is in.
   */
  private Diagnostic leak(
      String path, KeyFinding f, String allowedNamespace, ManifestLines.Place place) {
    String where =
        allowedNamespace.isEmpty()
            ? "outside any namespace where platform.yaml allows plain Secrets (secrets.policy: "
                + platform.secrets().mode().id()
                + (platform.secrets().allowPlain() ? "" : ", allowPlain: false")
                + ")"
            : "in namespace "
                + allowedNamespace
                + ", in "
                + place.describe()
                + " (only the data or stringData of a Secret object may hold a key there)";
    return Diagnostic.error(
            DiagnosticCode.PRIVATE_KEY_IN_TREE,
            new SourceLocation(path, f.line(), 0),
            "",
            "private key material, " + f.describe() + ", " + where)
        .withHint(
            "remove it and regenerate the key: anyone who can read the repo or its history has it; commit keys only as a"
                + " SealedSecret (kubeseal) or SOPS-encrypted (sops --encrypt)");
  }
}
