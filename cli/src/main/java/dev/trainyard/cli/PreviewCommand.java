package dev.trainyard.cli;

import dev.trainyard.gitops.GitOpsException;
import dev.trainyard.gitops.GitOpsLocation;
import dev.trainyard.gitops.preview.GitOpsPreview;
import dev.trainyard.gitops.preview.JsonPreview;
import dev.trainyard.gitops.preview.MarkdownPreview;
import dev.trainyard.gitops.preview.Preview;
import dev.trainyard.gitops.preview.SourcePreview;
import dev.trainyard.gitops.preview.SourcePreviewRequest;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard preview}: the pull-request comment showing what a change would start, with
 * Secret data masked.
 */
@Command(
    name = "preview",
    header = "Preview a pull request's runs as Markdown (or JSON) for a PR comment.",
    description = {
      "Preview a pull request as Markdown for a PR comment (or --output json): runs",
      "added, changed and removed (runtime, image, nodes × processes, GPUs, queue,",
      "cluster), GPUs per queue beside the quota, call-outs, every diagnostic as",
      "validate prints it, one diff per object. Secret data is never shown.",
      "Source repo (--gitops given, or $" + GitOpsOptions.GITOPS_ENV + "): compiles the train.yaml",
      "files changed between --base and --head (or those named) as submit would, and",
      "compares each run with the latest run of its train.yaml. Nothing is pushed.",
      "GitOps repo (no --gitops; it has a clusters/ folder): compares --base and",
      "--head run by run. A source repo without --gitops is a usage error.",
      "Output over --part-size bytes (default 65,536, GitHub's limit; at least "
          + PreviewCommand.MIN_PART_TEXT
          + ")",
      "is split into parts, each valid Markdown, each starting with",
      "<!-- trainyard-preview part N/M -->. --out DIR writes preview-1.md, ... (or",
      "preview.json) and removes the other format's files. --out must lie outside",
      "the folders of the source repo's train.yaml files (submit would refuse",
      "uncommitted files there, E305): use e.g. --out \"$(mktemp -d)\"."
    },
    mixinStandardHelpOptions = true,
    footer = {
      "",
      "Exit codes: 0 preview written, nothing refused; 1 preview written, but a",
      "train.yaml has errors or a call-out says the cluster would refuse the change",
      "(CI fails, the comment is still posted); 2 usage (also a --base or --head the",
      "repository lacks); 3 environment (a repository missing, GitOps repo",
      "unreachable); 4 internal error."
    })
final class PreviewCommand implements Callable<Integer> {
  private static final Pattern PART_FILE = Pattern.compile("preview-[0-9]+\\.md");
  private static final String JSON_FILE = "preview.json";

  /** The smallest --part-size, as --help shows it. */
  static final String MIN_PART_TEXT = "2000";

  /** Output formats. */
  enum Format {
    markdown,
    json
  }

  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "TRAIN_YAML",
      arity = "0..*",
      description =
          "source repo: train.yaml files to preview (default: every job whose folder changed since --base)")
  List<Path> trainYamls;

  @Option(
      names = "--gitops",
      paramLabel = "URL|PATH",
      description =
          "the GitOps repository (source-repo mode; default: $" + GitOpsOptions.GITOPS_ENV + ")")
  String gitops;

  @Option(
      names = "--base",
      paramLabel = "REF",
      description = "the revision the pull request merges into, e.g. origin/main")
  String base;

  @Option(
      names = "--head",
      paramLabel = "REF",
      defaultValue = "HEAD",
      description =
          "the pull request's revision (default: ${DEFAULT-VALUE}); in a source repo it must be checked out")
  String head;

  @Option(
      names = "--branch",
      paramLabel = "NAME",
      defaultValue = "main",
      description = "branch of the GitOps repository (source-repo mode; default: ${DEFAULT-VALUE})")
  String branch;

  @Option(
      names = "--platform",
      paramLabel = "FILE",
      description = "platform.yaml instead of the GitOps repository's")
  Path platform;

  @Option(
      names = "--runtimes",
      paramLabel = "DIR",
      description =
          "runtimes folder instead of the GitOps repository's runtimes/ (source-repo mode)")
  Path runtimes;

  @Option(
      names = "--source-repo",
      paramLabel = "URL",
      description = "clone URL of the source repo (default: its git remote)")
  String sourceRepo;

  @CommandLine.Mixin TargetOptions target;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      defaultValue = "markdown",
      description = "markdown or json (default: ${DEFAULT-VALUE})")
  Format output;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "write preview-1.md, preview-2.md, … (or preview.json) into DIR instead of stdout")
  Path out;

  @Option(
      names = "--part-size",
      paramLabel = "BYTES",
      defaultValue = "65536",
      description =
          "largest part in UTF-8 bytes, at least "
              + MIN_PART_TEXT
              + " (default: ${DEFAULT-VALUE}, GitHub's comment limit); longer lines are cut")
  int partSize;

  @Override
  public Integer call() {
    Invocation invocation = Invocation.of(spec);
    Map<String, String> env = invocation.environment();
    if (partSize < MarkdownPreview.MIN_PART) {
      throw new ParameterException(
          spec.commandLine(),
          "--part-size must be at least " + MarkdownPreview.MIN_PART + ", got " + partSize);
    }
    String where = gitops != null ? gitops : env.get(GitOpsOptions.GITOPS_ENV);
    checkOut(where != null, invocation);
    try {
      Preview preview = where != null ? source(where, invocation) : gitOpsRepo(invocation);
      write(preview, invocation);
      return preview.refused() ? 1 : 0;
    } catch (GitOpsException e) {
      OutputOptions.Format format =
          output == Format.json ? OutputOptions.Format.json : OutputOptions.Format.text;
      return Reporting.failure(
          spec, format, e.getMessage(), e.hint(), e.isUsage() ? 2 : Main.EXIT_ENVIRONMENT);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private Preview source(String where, Invocation invocation) throws GitOpsException {
    Path dir = invocation.workingDirectory();
    BranchFlag.check(spec, "--branch", branch);
    GitOpsLocation location;
    try {
      location = GitOpsLocation.parse(where, dir);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    if (Files.isDirectory(dir.resolve("clusters"))) {
      spec.commandLine()
          .getErr()
          .println(
              "trainyard preview: source-repo mode (--gitops or $"
                  + GitOpsOptions.GITOPS_ENV
                  + " is set), although this"
                  + " folder has clusters/ like a GitOps repo; to preview a GitOps pull request, run without --gitops and unset $"
                  + GitOpsOptions.GITOPS_ENV);
      spec.commandLine().getErr().flush();
    }
    if (base != null && trainYamls != null && !trainYamls.isEmpty()) {
      // --base would be read for nothing: a typo in it would pass unnoticed.
      throw new ParameterException(
          spec.commandLine(),
          "--base selects the jobs a pull request changes, TRAIN_YAML files name them: give one"
              + " or the other");
    }
    if (base == null && (trainYamls == null || trainYamls.isEmpty())) {
      throw new ParameterException(
          spec.commandLine(),
          "give --base REF (the branch the pull request merges into, e.g. origin/main)"
              + " to preview the jobs it changes, or name the TRAIN_YAML files to preview");
    }
    SourcePreviewRequest request =
        SourcePreviewRequest.builder(dir, location)
            .trainYamls(trainYamls == null ? List.of() : trainYamls)
            .base(Optional.ofNullable(base))
            .head(head)
            .branch(branch)
            .platform(Optional.ofNullable(platform))
            .runtimes(Optional.ofNullable(runtimes))
            .sourceRepo(Optional.ofNullable(sourceRepo))
            .cluster(target.cluster())
            .namespace(target.namespace())
            .build();
    Map<String, String> env = invocation.environment();
    return new SourcePreview(GitOpsOptions.cacheRoot(invocation), env, Clock.systemUTC())
        .preview(request);
  }

  private Preview gitOpsRepo(Invocation invocation) throws GitOpsException {
    Path dir = invocation.workingDirectory();
    if (base == null) {
      throw new ParameterException(
          spec.commandLine(),
          "Give --gitops URL|PATH (in a source repo) or --base REF (in a GitOps repo, to compare --base with --head)");
    }
    if (trainYamls != null && !trainYamls.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "TRAIN_YAML files are previewed in a source repo: add --gitops URL|PATH");
    }
    if (!Files.isDirectory(dir.resolve("clusters")) && RepoKind.hasTrainYaml(dir)) {
      throw new ParameterException(
          spec.commandLine(),
          "this looks like a source repo (train.yaml files, no clusters/ folder), but neither --gitops"
              + " nor $"
              + GitOpsOptions.GITOPS_ENV
              + " is set, so preview would compare it as a GitOps repo; hint: pass --gitops URL|PATH"
              + " (or set $"
              + GitOpsOptions.GITOPS_ENV
              + ") to preview what merging would start");
    }
    return GitOpsPreview.of(dir, base, head, Optional.ofNullable(platform), dir);
  }

  private void write(Preview preview, Invocation invocation) {
    PrintWriter stdout = spec.commandLine().getOut();
    Optional<Path> folder = Optional.ofNullable(out).map(invocation::resolve);
    if (output == Format.json) {
      emit(stdout, List.of(JsonPreview.render(preview)), JSON_FILE, folder);
    } else {
      emit(stdout, MarkdownPreview.parts(preview, partSize), null, folder);
    }
    stdout.flush();
  }

  /**
   * --out must name a folder (or nothing yet), and in a source repo not the folder of a train.yaml
   * or one below it: submit refuses uncommitted files there (E305), so a preview written there
   * would make the next submit fail.
   */
  private void checkOut(boolean sourceMode, Invocation invocation) {
    if (out == null) {
      return;
    }
    Path folder = invocation.resolve(out);
    if (Files.exists(folder) && !Files.isDirectory(folder)) {
      throw new ParameterException(
          spec.commandLine(),
          "--out "
              + out
              + " is a file, not a folder; hint: name a folder (it is created if missing)");
    }
    if (sourceMode) {
      RepoKind.trainYamlAbove(folder.normalize(), invocation.workingDirectory())
          .ifPresent(
              t -> {
                throw new ParameterException(
                    spec.commandLine(),
                    "--out "
                        + out
                        + " lies in the folder of "
                        + t
                        + ", where submit refuses uncommitted files"
                        + " (E305); hint: write the preview outside the source repo, e.g. --out \"$(mktemp -d)\"");
              });
    }
  }

  /**
   * To stdout, or into --out: {@code name} for one file, else preview-N.md; files of the other
   * format and parts left from a longer preview are removed, so CI posting the folder never posts a
   * stale file.
   */
  private void emit(PrintWriter stdout, List<String> texts, String name, Optional<Path> into) {
    if (into.isEmpty()) {
      texts.forEach(stdout::print);
      return;
    }
    Path folder = into.get();
    try {
      Files.createDirectories(folder);
      try (Stream<Path> old = Files.list(folder)) {
        for (Path p :
            old.filter(
                    p ->
                        PART_FILE.matcher(p.getFileName().toString()).matches()
                            || p.getFileName().toString().equals(JSON_FILE))
                .toList()) {
          Files.delete(p);
        }
      }
      for (int i = 0; i < texts.size(); i++) {
        Files.writeString(
            folder.resolve(name != null ? name : "preview-" + (i + 1) + ".md"),
            texts.get(i),
            StandardCharsets.UTF_8);
      }
      stdout.println(
          "wrote "
              + (name != null
                  ? name
                  : texts.size() + " part(s), preview-1.md … preview-" + texts.size() + ".md,")
              + " to "
              + out);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the preview to " + out + ": " + e.getMessage(), e);
    }
  }
}
