package dev.trainyard.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.gitops.FolderSnapshot;
import dev.trainyard.gitops.PlatformRender;
import dev.trainyard.gitops.TreeWriter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code trainyard platform render [--check] [DIR]}: the GitOps repo's queue objects re-rendered
 * from its own platform.yaml and runtimes/ ({@link PlatformRender}), for the platform team's pull
 * request and its CI.
 */
@Command(
    name = "platform",
    description = "Commands for the platform team's GitOps repo.",
    mixinStandardHelpOptions = true,
    subcommands = {PlatformCommand.RenderCommand.class})
final class PlatformCommand {

  @Command(
      name = "render",
      header = "Re-render the GitOps repo's queue objects from its platform.yaml and runtimes/.",
      description = {
        "Run at the root of a GitOps repo checkout (or name it as DIR). Writes what",
        "platform.yaml gives, exactly as submit writes it for a run: per cluster",
        "clusters/<cluster>/_cluster/ (ClusterQueues, ResourceFlavors) and per namespace",
        "clusters/<cluster>/<namespace>/_queues/ (LocalQueues, the controller's log",
        "RoleBinding, the progress CA ConfigMap), plus the kustomization roots that list",
        "them. A queue folder of a cluster or namespace platform.yaml no longer has is",
        "removed. Run folders and other files are never touched. All or nothing: every",
        "folder is written beside its old self first, then renamed into place.",
        "Commit the result with the platform.yaml change, so the same pull request",
        "changes the queues (its GitOps preview shows the ClusterQueue diff and the",
        "runs that no longer fit).",
        "--check writes nothing and fails (exit 1, E811) naming each file that is not",
        "what platform.yaml gives: run it in the GitOps repo's CI.",
        "Without a platform.yaml file at the root (renamed, deleted, a folder) both",
        "refuse (exit 1, E812) and change nothing: they never fall back to the",
        "embedded default platform."
      },
      mixinStandardHelpOptions = true,
      footer = {
        "",
        "Exit codes: 0 written (or, with --check, up to date); 1 --check found stale",
        "files, platform.yaml is missing, or it or runtimes/ has errors; 2 usage;",
        "3 a file cannot be read or written; 4 internal error."
      })
  static final class RenderCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        arity = "0..1",
        paramLabel = "DIR",
        description = "root of the GitOps repo checkout (default: the current folder)")
    Path dir;

    @Option(
        names = "--check",
        description = "write nothing; exit 1 naming each stale file (for CI)")
    boolean check;

    @Mixin OutputOptions output;

    @Override
    public Integer call() {
      Path typed = dir == null ? Path.of("") : dir;
      Path root = Invocation.of(spec).resolve(typed);
      if (!Files.isDirectory(root)) {
        throw new ParameterException(
            spec.commandLine(), "DIR " + typed + " is not a folder; name the GitOps repo checkout");
      }
      if (!Files.exists(root.resolve("platform.yaml"))
          && !Files.isDirectory(root.resolve("clusters"))) {
        throw new ParameterException(
            spec.commandLine(),
            "no platform.yaml and no clusters/ in "
                + (dir == null ? "the current folder" : dir.toString())
                + ": run it at the root of the GitOps repo checkout (or name it as DIR)");
      }
      String display = dir == null ? "platform.yaml" : dir.resolve("platform.yaml").toString();
      var missing = PlatformRender.missingPlatform(root, display);
      if (missing.isPresent()) {
        return report(new PlatformRender.Result(List.of(), List.of(), List.of(missing.get())));
      }
      PlatformRender.Result result;
      try {
        result = PlatformRender.of(new FolderSnapshot(root));
        if (!result.failed() && !check && !result.edits().isEmpty()) {
          write(result, root);
        }
      } catch (InterruptedIOException e) {
        // SIGINT/SIGTERM: the shutdown hook prints the one line and the JVM ends with 130/143.
        return 130;
      } catch (IOException | UncheckedIOException e) {
        return Reporting.environment(
            spec,
            output.format,
            e.getMessage(),
            "check the checkout's permissions and free space; nothing was changed");
      }
      return report(result);
    }

    /**
     * Applies the edits with a JVM shutdown hook registered: on Ctrl-C (SIGINT) or SIGTERM the
     * apply stops before its next file, removes its staging folders and the folders it created, and
     * the hook prints one line saying what happened.
     */
    private void write(PlatformRender.Result result, Path root) throws IOException {
      TreeWriter.Interrupt interrupt = new TreeWriter.Interrupt();
      PrintWriter err = spec.commandLine().getErr();
      Thread hook =
          new Thread(() -> interrupted(interrupt, err, GRACE), "trainyard-render-interrupt");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        TreeWriter.apply(
            result.edits(),
            root,
            (file, text) -> Files.writeString(file, text, StandardCharsets.UTF_8),
            interrupt);
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // Shutting down: the hook is running and prints the line.
        }
      }
    }

    /** How long the hook waits for the apply to clean up. */
    static final Duration GRACE = Duration.ofSeconds(10);

    /** The shutdown hook's work: stop the apply, wait for it, print one line. */
    static void interrupted(TreeWriter.Interrupt interrupt, PrintWriter err, Duration grace) {
      interrupt.request();
      boolean settled;
      try {
        settled = interrupt.awaitSettled(grace);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        settled = false;
      }
      String line;
      if (!settled) {
        line =
            "interrupted while writing; run `trainyard platform render` again: it removes the leftover .trainyard-* folders and renders the rest";
      } else if (interrupt.completed()) {
        line = "interrupted after the render was written whole; commit it";
      } else {
        line = "interrupted; nothing was written (the staged .trainyard-* folders were removed)";
      }
      err.println("trainyard: " + line);
      err.flush();
    }

    private int report(PlatformRender.Result result) {
      List<Diagnostic> diagnostics = new ArrayList<>(result.diagnostics());
      if (check && !result.failed()) {
        diagnostics.addAll(PlatformRender.staleDiagnostics(result));
      } else if (!result.failed()) {
        diagnostics.addAll(PlatformRender.handWrittenWarnings(result));
      }
      output.print(
          spec,
          diagnostics,
          json -> json(json, result),
          out -> {
            if (!result.failed()) {
              text(out, result);
            }
          });
      return diagnostics.stream().anyMatch(Diagnostic::isError) ? 1 : 0;
    }

    private void json(ObjectNode json, PlatformRender.Result result) {
      json.put("check", check).put("upToDate", !result.failed() && result.stale().isEmpty());
      ArrayNode files = json.putArray("files");
      for (PlatformRender.StaleFile f : result.stale()) {
        files
            .addObject()
            .put("path", f.path())
            .put("change", f.difference().name().toLowerCase(Locale.ROOT))
            .put("line", f.line());
      }
    }

    private void text(PrintWriter out, PlatformRender.Result result) {
      if (result.stale().isEmpty()) {
        out.println("the queue objects are what platform.yaml gives: nothing to change");
        return;
      }
      out.println(
          (check ? "would change " : "rendered from platform.yaml: changed ")
              + result.stale().size()
              + " file(s):");
      for (PlatformRender.StaleFile f : result.stale()) {
        String sign =
            switch (f.difference()) {
              case MISSING -> "A";
              case DIFFERS, ORIGIN -> "M";
              case EXTRA, HAND_WRITTEN, LEFTOVER -> "D";
            };
        out.println("  " + sign + " " + f.path());
      }
      if (!check) {
        out.println("commit them with the platform.yaml change");
      }
    }
  }
}
