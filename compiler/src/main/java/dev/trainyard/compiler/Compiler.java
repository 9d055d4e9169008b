package dev.trainyard.compiler;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.CheckStage;
import dev.trainyard.compiler.manifest.EmitStage;
import dev.trainyard.compiler.manifest.ManifestSet;
import dev.trainyard.compiler.manifest.OutputTree;
import dev.trainyard.compiler.manifest.QueueSet;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.platform.PlatformLoader;
import dev.trainyard.compiler.policy.PolicyStage;
import dev.trainyard.compiler.provenance.GitSourceInspector;
import dev.trainyard.compiler.provenance.RepositoryBoundary;
import dev.trainyard.compiler.provenance.SourceInfo;
import dev.trainyard.compiler.render.PlatformQueues;
import dev.trainyard.compiler.render.RenderServices;
import dev.trainyard.compiler.render.RenderStage;
import dev.trainyard.compiler.resolve.PlatformRuntimes;
import dev.trainyard.compiler.resolve.ResolveInput;
import dev.trainyard.compiler.resolve.ResolveStage;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.resolve.Stamp;
import dev.trainyard.compiler.runtime.RuntimeCatalog;
import dev.trainyard.compiler.runtime.RuntimeCatalogLoader;
import dev.trainyard.compiler.schema.NetworkntSchemaValidator;
import dev.trainyard.compiler.schema.SchemaValidator;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import dev.trainyard.compiler.spec.SpecReader;
import dev.trainyard.compiler.spec.TrainSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The compiler: train.yaml + runtimes + platform.yaml → the GitOps files of one run. Reads like a
 * table of contents (kustomize's {@code Run}): load and schema, resolve, policy, render, check,
 * emit. Each stage reports all its problems; the pipeline stops after the first stage with an
 * error; warnings pass through. Reading files and git happens here at the edge; the stages are
 * pure. Writing is the caller's job.
 *
 * <pre>
 * CompileResult result = new Compiler(secrets).compile(CompileRequest.of(Path.of("train.yaml")));
 * </pre>
 */
public final class Compiler implements AutoCloseable {
  /** The compiler version stamped into provenance. */
  public static final String VERSION = "0.1.0";

  private final YamlDocumentLoader loader = new YamlDocumentLoader();
  private final SchemaValidator validator = new NetworkntSchemaValidator();
  private final SshSecretSource secrets;

  /** Keeps each source repository open across the train.yaml files of this compiler's call. */
  private final GitSourceInspector inspector = new GitSourceInspector();

  /**
   * The last platform.yaml parsed, by its text and display path: a preview or submit of many
   * train.yaml files reads the file for each but parses, validates and binds it once.
   */
  private volatile ParsedPlatform lastPlatform;

  private record ParsedPlatform(
      SourceFile source, boolean embedded, StageResult<Platform> result) {}

  /**
   * The built-in runtimes (jar resources, immutable while the process runs), loaded on the first
   * compile without {@code --runtimes}: parsing and validating them was about half of a warm
   * compile. A platform runtimes folder is read on every compile, as its files may change. A race
   * loads them twice, harmlessly.
   */
  private volatile StageResult<RuntimeCatalog> builtInRuntimes;

  /**
   * @param secrets makes or reuses the SSH Secret of MPI runs
   */
  public Compiler(SshSecretSource secrets) {
    this.secrets = secrets;
  }

  /** Compiles one train.yaml. Never throws for a mistake in the user's or the platform's files. */
  public CompileResult compile(CompileRequest request) {
    List<Diagnostic> all =
        new ArrayList<>(
            RepositoryBoundary.check(request.trainYaml(), request.displayPath(), inspector));
    if (!all.isEmpty()) {
      return failed(all, Optional.empty());
    }
    Optional<TrainSpec> spec =
        keep(
            new SpecReader(loader, validator).read(request.trainYaml(), request.displayPath()),
            all);
    Optional<Platform> platform =
        keep(
            platform(
                request.platformFile(),
                request
                    .platformDisplay()
                    .orElseGet(
                        () -> displayOf(request.platformFile(), request.workingDirectory()))),
            all);
    platform = platform.map(p -> p.withProvenance(provenanceOf(request)));
    Optional<RuntimeCatalog> catalog = keep(runtimes(request.runtimesDir()), all);
    if (spec.isEmpty() || platform.isEmpty() || catalog.isEmpty()) {
      return failed(all, Optional.empty());
    }
    List<Diagnostic> platformRuntimes = PlatformRuntimes.check(platform.get(), catalog.get());
    if (!platformRuntimes.isEmpty()) {
      all.addAll(platformRuntimes);
      return failed(all, Optional.empty());
    }
    Optional<SourceInfo> source =
        keep(
            inspector.inspect(
                request.trainYaml(),
                request.displayPath(),
                request.sourceRepo(),
                request.sourceCommit(),
                request.existingTree(),
                request.workingTree(),
                request.workingDirectory()),
            all);
    if (source.isEmpty()) {
      return failed(all, Optional.empty());
    }
    if (source.get().hasCredentials()) {
      all.add(
          Diagnostic.warning(
                  DiagnosticCode.CREDENTIALS_IN_URL,
                  SourceLocation.ofFile(request.displayPath()),
                  "",
                  "the source repo URL carries credentials or a query; they were removed and are not written to the GitOps repo")
              .withHint(
                  "private repos are cloned with the Secret named by platform.yaml `codeSync.credentialSecret`"));
      source = Optional.of(source.get().withoutCredentials());
    }
    if (source.get().isSsh()) {
      SourceInfo https = source.get().overHttps();
      all.add(
          Diagnostic.warning(
                  DiagnosticCode.SSH_URL_REWRITTEN,
                  SourceLocation.ofFile(request.displayPath()),
                  "",
                  "pods clone over HTTPS (git-sync has no SSH key), so the SSH remote \""
                      + source.get().repoUrl()
                      + "\" becomes \""
                      + https.repoUrl()
                      + "\"")
              .withHint("pass --source-repo if your forge serves the repo at another HTTPS URL"));
      source = Optional.of(https);
    }
    workdirMissing(request, spec.get()).ifPresent(all::add);
    ResolveInput input =
        new ResolveInput(
            spec.get(),
            catalog.get(),
            platform.get(),
            source.get(),
            request.cluster(),
            request.namespace(),
            request.attempt(),
            hasRequirements(request, spec.get()),
            new Stamp(VERSION, request.createdAt()),
            new ResolveInput.CheckpointKeyInput(
                request.sourceBranch().orElse(""), request.fresh()));
    return compileResolved(input, request, all);
  }

  /**
   * The queue folders of every cluster in platform.yaml ({@code _cluster/} and each namespace's
   * {@code _queues/}), exactly as a run's compile writes its own: the same platform and runtime
   * loading (a broken platform.yaml or a runtime it names that does not exist is the same
   * diagnostic), the same objects ({@link PlatformQueues}), the same check and layout. Used by
   * {@code trainyard platform render} so a platform change re-renders the queues in its own commit.
   *
   * @param platformFile platform.yaml, or empty for the embedded default
   * @param platformDisplay how diagnostics and the {@code trainyard.dev/platform} annotation name
   *     it (a submit from a GitOps repo uses {@code platform.yaml (GitOps repo)})
   * @param runtimesDir the platform's runtimes folder, or empty for the built-ins
   * @return the files and their owned folders, or the diagnostics that stop it
   */
  public StageResult<OutputTree> renderQueues(
      Optional<Path> platformFile, String platformDisplay, Optional<Path> runtimesDir) {
    List<Diagnostic> all = new ArrayList<>();
    Optional<Platform> platform = keep(platform(platformFile, platformDisplay), all);
    Optional<RuntimeCatalog> catalog = keep(runtimes(runtimesDir), all);
    if (platform.isEmpty() || catalog.isEmpty()) {
      return StageResult.failed(all);
    }
    all.addAll(PlatformRuntimes.check(platform.get(), catalog.get()));
    if (all.stream().anyMatch(Diagnostic::isError)) {
      return StageResult.failed(all);
    }
    SortedMap<String, String> files = new TreeMap<>();
    List<String> owned = new ArrayList<>();
    for (QueueSet set : PlatformQueues.of(platform.get(), VERSION)) {
      Optional<QueueSet> checked = keep(new CheckStage().check(set, platform.get().origin()), all);
      if (checked.isEmpty()) {
        return StageResult.failed(all);
      }
      OutputTree tree = new EmitStage().emit(checked.get());
      files.putAll(tree.files());
      owned.addAll(tree.ownedFolders());
    }
    return StageResult.of(new OutputTree(files, owned), all);
  }

  private CompileResult compileResolved(
      ResolveInput input, CompileRequest request, List<Diagnostic> all) {
    Optional<ResolvedJob> job = keep(new ResolveStage().resolve(input), all);
    if (job.isEmpty()) {
      return failed(all, Optional.empty());
    }
    Optional<ResolvedJob> checked =
        keep(
            new PolicyStage().check(job.get(), new WorkdirScripts(workdir(request, input.spec()))),
            all);
    if (checked.isEmpty() || all.stream().anyMatch(Diagnostic::isError)) {
      return failed(all, job);
    }
    Optional<RenderServices> services = keep(secrets.forRun(request, job.get()), all);
    if (services.isEmpty()) {
      return failed(all, job);
    }
    Optional<ManifestSet> set = keep(new RenderStage().render(job.get(), services.get()), all);
    Optional<ManifestSet> valid =
        set.flatMap(s -> keep(new CheckStage().check(s, job.get().runtime().origin()), all));
    if (valid.isEmpty()) {
      return failed(all, job);
    }
    OutputTree tree = new EmitStage().emit(valid.get());
    return new CompileResult(Optional.of(tree), job, all);
  }

  /**
   * Closes the source repositories opened by earlier compiles. The compiler may be used again: it
   * opens them again.
   */
  @Override
  public void close() {
    inspector.close();
  }

  private StageResult<Platform> platform(Optional<Path> file, String displayPath) {
    StageResult<SourceFile> read =
        file.isPresent()
            ? YamlDocumentLoader.readFile(file.get(), displayPath)
            : StageResult.of(PlatformLoader.embedded(), List.of());
    if (read.failed()) {
      return StageResult.failed(read.diagnostics());
    }
    SourceFile source = read.value().orElseThrow();
    ParsedPlatform last = lastPlatform;
    if (last != null && last.embedded() == file.isEmpty() && last.source().equals(source)) {
      return last.result();
    }
    StageResult<Platform> result =
        new PlatformLoader(loader, validator).load(source, file.isEmpty());
    lastPlatform = new ParsedPlatform(source, file.isEmpty(), result);
    return result;
  }

  private StageResult<RuntimeCatalog> runtimes(Optional<Path> platformDir) {
    if (platformDir.isPresent()) {
      return new RuntimeCatalogLoader(loader, validator).load(platformDir);
    }
    StageResult<RuntimeCatalog> builtIns = builtInRuntimes;
    if (builtIns == null) {
      builtIns = new RuntimeCatalogLoader(loader, validator).load(Optional.empty());
      builtInRuntimes = builtIns;
    }
    return builtIns;
  }

  private static <T> Optional<T> keep(StageResult<T> result, List<Diagnostic> all) {
    all.addAll(result.diagnostics());
    return result.failed() ? Optional.empty() : result.value();
  }

  private static CompileResult failed(List<Diagnostic> all, Optional<ResolvedJob> job) {
    return new CompileResult(Optional.empty(), job, all);
  }

  /**
   * How diagnostics name platform.yaml: relative to {@code workingDirectory} (the empty path: the
   * process's) when it can be.
   */
  static String displayOf(Optional<Path> file, Path workingDirectory) {
    return file.map(f -> relative(f, workingDirectory)).orElse(PlatformLoader.EMBEDDED_NAME);
  }

  /**
   * The queue objects' {@code trainyard.dev/platform} annotation: the caller's name for a copy,
   * else the embedded platform's name, else platform.yaml's real path (symlinks followed) in its
   * git work tree, else its file name. Never the working directory's view of it: the same
   * platform.yaml must give the same bytes from every folder and checkout path (a cwd-relative name
   * rewrote every queue object of a GitOps repo when a submit ran from another folder).
   */
  String provenanceOf(CompileRequest request) {
    if (request.platformProvenance().isPresent()) {
      return request.platformProvenance().get();
    }
    if (request.platformFile().isEmpty()) {
      return PlatformLoader.EMBEDDED_NAME;
    }
    Path given = request.platformFile().get().toAbsolutePath().normalize();
    // Its real path: a symlink (to the file, or to a folder above it) is another name for it.
    Path file;
    try {
      file = inspector.realPath(given);
    } catch (IOException e) {
      file = given; // read already, so unreachable but for a race; the name as given then
    }
    Path named = file;
    return inspector.pathInWorkTree(named).orElseGet(() -> String.valueOf(named.getFileName()));
  }

  static String relative(Path file, Path workingDirectory) {
    Path cwd = workingDirectory.toAbsolutePath();
    if (!file.isAbsolute() || !cwd.getRoot().equals(file.getRoot())) {
      return file.toString(); // another Windows drive has no relative path (relativize would throw)
    }
    Path rel = cwd.relativize(file.normalize());
    boolean near =
        rel.getNameCount() > 1
            && !(rel.getName(0).toString().equals("..") && rel.getName(1).toString().equals(".."));
    return near || !rel.startsWith("..") ? rel.toString() : file.normalize().toString();
  }

  /**
   * A {@code workdir} that is not a folder next to train.yaml would make every pod fail at start.
   */
  private static Optional<Diagnostic> workdirMissing(CompileRequest request, TrainSpec spec) {
    if (spec.workdir().isEmpty()) {
      return Optional.empty();
    }
    Path dir =
        request.trainYaml().toAbsolutePath().getParent().resolve(spec.workdir().get()).normalize();
    if (Files.isDirectory(dir)) {
      return outsideRepository(request, spec, dir);
    }
    return Optional.of(
        Diagnostic.error(
                DiagnosticCode.WORKDIR_OUTSIDE_REPO,
                spec.document().map().at("/workdir"),
                "/workdir",
                "`workdir` \"" + spec.workdir().get() + "\" is not a folder next to train.yaml")
            .withHint("give a folder relative to train.yaml that is committed with it"));
  }

  /**
   * A {@code workdir} that is, or passes through, a symlink out of the repository: pods clone the
   * repository, so they would not find what the compile saw (refused like a symlinked train.yaml).
   */
  private static Optional<Diagnostic> outsideRepository(
      CompileRequest request, TrainSpec spec, Path dir) {
    try {
      Path real = dir.toRealPath();
      for (Path at = request.trainYaml().toAbsolutePath().getParent().toRealPath();
          at != null;
          at = at.getParent()) {
        if (Files.exists(at.resolve(".git"))) {
          if (real.startsWith(at)) {
            return Optional.empty();
          }
          return Optional.of(
              Diagnostic.error(
                      DiagnosticCode.WORKDIR_OUTSIDE_REPO,
                      spec.document().map().at("/workdir"),
                      "/workdir",
                      "`workdir` \""
                          + spec.workdir().get()
                          + "\" resolves to "
                          + real
                          + ", outside the repository (through a symlink), so pods would not have it")
                  .withHint(
                      "give a folder that is committed in the repository, not a symlink out of it"));
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Whether requirements.txt exists in the working directory (the default {@code setup}). */
  private static boolean hasRequirements(CompileRequest request, TrainSpec spec) {
    return Files.isRegularFile(workdir(request, spec).resolve("requirements.txt"));
  }

  /**
   * The working directory of {@code run} on this machine: train.yaml's folder, or its {@code
   * workdir}.
   */
  private static Path workdir(CompileRequest request, TrainSpec spec) {
    Path folder = request.trainYaml().toAbsolutePath().getParent();
    return spec.workdir().map(folder::resolve).orElse(folder).normalize();
  }
}
