package dev.trainyard.compiler;

import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.manifest.TreeLayout;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.render.RenderServices;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.secrets.AgeRecipient;
import dev.trainyard.compiler.secrets.PlainSecretSealer;
import dev.trainyard.compiler.secrets.SealedSecretSealer;
import dev.trainyard.compiler.secrets.SealingCertificate;
import dev.trainyard.compiler.secrets.SecretSealer;
import dev.trainyard.compiler.secrets.SopsAgeSealer;
import dev.trainyard.compiler.secrets.SshKeyGenerator;
import dev.trainyard.compiler.secrets.SshKeyPair;
import dev.trainyard.compiler.secrets.UnsealedSecret;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The SSH Secret of an MPI run: reused byte for byte when the run's folder in the GitOps tree
 * already has one (so a re-compile changes nothing and the key stays stable), else a fresh key pair
 * sealed per platform.yaml's secrets policy. The only place with key randomness and a clock. The
 * existing tree is the request's {@code existingTree} folder, or, when publishing straight into
 * git, a {@link GitOpsFiles} reader.
 */
public final class SshSecretProvider implements SshSecretSource {
  private static final String TYPE = "kubernetes.io/ssh-auth";
  private final SecureRandom random;
  private final Clock clock;
  private final Optional<GitOpsFiles> tree;

  public SshSecretProvider(SecureRandom random, Clock clock) {
    this(random, clock, Optional.empty());
  }

  /**
   * Reuses Secrets found through {@code tree} instead of the request's {@code existingTree} folder.
   */
  public SshSecretProvider(SecureRandom random, Clock clock, Optional<GitOpsFiles> tree) {
    this.random = random;
    this.clock = clock;
    this.tree = tree;
  }

  /** A strong random source and the system clock, reusing Secrets found through {@code tree}. */
  public static SshSecretProvider reading(GitOpsFiles tree) {
    return new SshSecretProvider(new SecureRandom(), Clock.systemUTC(), Optional.of(tree));
  }

  /** With a strong random source and the system clock (SOPS {@code lastmodified}). */
  public static SshSecretProvider system() {
    return new SshSecretProvider(new SecureRandom(), Clock.systemUTC());
  }

  /**
   * Checks the Secret the run's folder already holds (MPI runs only) before rendering, so a damaged
   * or foreign one is E702 at its file; the services then hand it back, or a fresh one.
   */
  @Override
  public StageResult<RenderServices> forRun(CompileRequest request, ResolvedJob job) {
    String secretName = RenderServices.sshSecretName(job.naming().runName());
    StageResult<Optional<Manifest>> found =
        job.runtime().framework().usesMpi()
            ? existing(request, job, job.target().namespace(), secretName)
            : StageResult.of(Optional.empty(), List.of());
    if (found.failed()) {
      return StageResult.failed(found.diagnostics());
    }
    Optional<Manifest> kept = found.value().orElseThrow();
    RenderServices services =
        (namespace, name, labels, annotations) ->
            kept.filter(k -> name.equals(secretName))
                .orElseGet(
                    () -> fresh(job.platform().secrets(), namespace, name, labels, annotations));
    return StageResult.of(services, List.of());
  }

  private Manifest fresh(
      Platform.SecretsPolicy policy,
      String namespace,
      String name,
      Map<String, String> labels,
      Map<String, String> annotations) {
    SshKeyPair keys = new SshKeyGenerator(random).generate("trainyard@" + name);
    UnsealedSecret secret =
        new UnsealedSecret(
            namespace,
            name,
            TYPE,
            new TreeMap<>(labels),
            new TreeMap<>(annotations),
            new TreeMap<>(
                Map.of(
                    "ssh-privatekey",
                    keys.privateKeyOpenSsh(),
                    "ssh-publickey",
                    keys.publicKeyAuthorized())),
            true);
    return Manifest.of(sealer(policy).seal(secret));
  }

  private SecretSealer sealer(Platform.SecretsPolicy policy) {
    SourceLocation at = SourceLocation.ofFile("platform.yaml");
    return switch (policy.mode()) {
      case PLAIN -> new PlainSecretSealer();
      case SEALED_SECRETS ->
          new SealedSecretSealer(
              SealingCertificate.parse(
                      policy.sealedSecretsCertificate().orElseThrow(), at, "/secrets")
                  .value()
                  .orElseThrow(),
              random);
      case SOPS_AGE ->
          new SopsAgeSealer(
              policy.ageRecipients().stream()
                  .map(r -> AgeRecipient.parse(r, at, "/secrets").value().orElseThrow())
                  .toList(),
              random,
              clock);
    };
  }

  /**
   * The Secret (plain, sealed or SOPS) already committed for this run, if the GitOps tree has one.
   */
  private StageResult<Optional<Manifest>> existing(
      CompileRequest request, ResolvedJob job, String namespace, String name) {
    String dir =
        TreeLayout.runFolder(
            job.target().cluster(), job.target().namespace(), job.naming().runName());
    for (String kind : List.of("secret", "sealedsecret")) {
      String path = dir + "/" + kind + "-" + name + ".yaml";
      StageResult<Optional<String>> read =
          tree.isPresent()
              ? StageResult.of(tree.get().read(path), List.of())
              : readDisk(request, path);
      if (read.failed()) {
        return StageResult.failed(read.diagnostics());
      }
      Optional<String> text = read.value().orElseThrow();
      if (text.isPresent()) {
        String display =
            tree.isPresent() ? path : request.existingTree().orElseThrow().resolve(path).toString();
        StageResult<Manifest> checked =
            ExistingSecret.check(
                display, text.get(), namespace, name, job.platform().secrets(), tree.isPresent());
        return checked.failed()
            ? StageResult.failed(checked.diagnostics())
            : StageResult.of(checked.value(), List.of());
      }
    }
    return StageResult.of(Optional.empty(), List.of());
  }

  private static StageResult<Optional<String>> readDisk(CompileRequest request, String path) {
    if (request.existingTree().isEmpty()) {
      return StageResult.of(Optional.empty(), List.of());
    }
    Path file = request.existingTree().get().resolve(path);
    if (!Files.isRegularFile(file)) {
      return StageResult.of(Optional.empty(), List.of());
    }
    // Read as every user file is (at most 1 MiB of UTF-8), so a damaged Secret is E702, never an
    // exception.
    StageResult<SourceFile> read = YamlDocumentLoader.readFile(file, file.toString());
    if (read.failed()) {
      return StageResult.failed(
          List.of(
              ExistingSecret.unreadable(read.diagnostics().get(0), "", file.toString(), false)));
    }
    return StageResult.of(read.value().map(SourceFile::text), List.of());
  }
}
