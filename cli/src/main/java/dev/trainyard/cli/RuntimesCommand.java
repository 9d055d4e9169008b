package dev.trainyard.cli;

import dev.trainyard.compiler.diagnostic.DiagnosticPrinter;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.runtime.RuntimeCatalog;
import dev.trainyard.compiler.runtime.RuntimeCatalogLoader;
import dev.trainyard.compiler.runtime.RuntimeDefinition;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code trainyard runtimes list|show}: what runtimes are installed and what they provide. */
@Command(
    name = "runtimes",
    description = "List installed runtimes or show one.",
    mixinStandardHelpOptions = true,
    subcommands = {RuntimesCommand.ListCommand.class, RuntimesCommand.ShowCommand.class})
final class RuntimesCommand {

  @Command(
      name = "list",
      description = "List runtimes: the newest version of each (--all: every version).",
      mixinStandardHelpOptions = true,
      footer = {
        "",
        "Exit codes: 0 ok, 1 a runtime definition under --runtimes has errors, 2 usage,",
        "4 internal error."
      })
  static final class ListCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--runtimes",
        paramLabel = "DIR",
        description = "platform runtimes folder to add to the built-ins")
    Path runtimes;

    @Option(names = "--all", description = "every version, not just the newest")
    boolean all;

    @Override
    public Integer call() {
      Optional<RuntimeCatalog> catalog = load(spec, runtimes);
      if (catalog.isEmpty()) {
        return 1;
      }
      PrintWriter out = spec.commandLine().getOut();
      List<RuntimeDefinition> rows = all ? catalog.get().all() : catalog.get().newest();
      out.printf("%-12s %-10s %-10s %s%n", "NAME", "VERSION", "FRAMEWORK", "DESCRIPTION");
      rows.forEach(
          r ->
              out.printf(
                  "%-12s %-10s %-10s %s%n",
                  r.name(), r.version(), r.framework().id(), r.description()));
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "show",
      description = "Show one runtime: image, packages, defaults, MPI settings, versions.",
      mixinStandardHelpOptions = true,
      footer = {
        "",
        "Exit codes: 0 ok, 1 no such runtime, or a runtime definition under --runtimes",
        "has errors, 2 usage, 4 internal error."
      })
  static final class ShowCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        index = "0",
        paramLabel = "NAME[@VERSION]",
        description = "a runtime name (newest version) or name@version")
    String ref;

    @Option(
        names = "--runtimes",
        paramLabel = "DIR",
        description = "platform runtimes folder to add to the built-ins")
    Path runtimes;

    @Override
    public Integer call() {
      Optional<RuntimeCatalog> catalog = load(spec, runtimes);
      if (catalog.isEmpty()) {
        return 1;
      }
      Optional<RuntimeDefinition> found = catalog.get().find(ref);
      if (found.isEmpty()) {
        spec.commandLine()
            .getErr()
            .println(
                "trainyard: runtime \""
                    + ref
                    + "\" is not installed; installed: "
                    + String.join(", ", catalog.get().names()));
        return 1;
      }
      print(
          spec.commandLine().getOut(),
          found.get(),
          catalog.get().versionsOf(found.get().name()),
          catalog.get().sameImage(found.get()));
      return 0;
    }

    private static void print(
        PrintWriter out,
        RuntimeDefinition r,
        List<String> versions,
        List<RuntimeDefinition> sameImage) {
      out.println("name:        " + r.name());
      out.println(
          "version:     " + r.version() + "   (installed: " + String.join(", ", versions) + ")");
      out.println("framework:   " + r.framework().id());
      out.println("description: " + r.description());
      out.println("image:       " + r.image());
      out.println(
          "definition:  "
              + r.digest()
              + "  (digest of this runtime.yaml, stamped as trainyard.dev/runtime-digest)");
      out.println("origin:      " + r.origin());
      out.println("python:      " + python(r, sameImage));
      out.println("cuda:        " + cuda(r, sameImage));
      out.println("user:        uid " + r.user().uid() + ", home " + r.user().home() + home(r));
      out.println("security:    " + security(r, sameImage));
      out.println(
          "resources:   gpus "
              + r.resources().gpus()
              + ", cpu "
              + r.resources().cpu()
              + ", memory "
              + r.resources().memory());
      r.mpi()
          .ifPresent(
              m ->
                  out.println(
                      "mpi:         "
                          + m.implementation().id()
                          + ", sshd port "
                          + m.sshPort()
                          + (m.launcherAsNode()
                              ? ", launcher also trains"
                              : ", separate launcher")));
      if (!r.setup().isEmpty()) {
        out.println("setup:       " + r.setup() + "   (runs on every node before the job's setup)");
      }
      out.println("packages:");
      r.packages().forEach(p -> out.println("  - " + p));
      out.flush();
    }

    /**
     * The image's Python as {@code r} states it, else as a version with the same image states it,
     * else "none".
     */
    static String python(RuntimeDefinition r, List<RuntimeDefinition> sameImage) {
      if (!r.contents().python().isEmpty()) {
        return r.contents().python();
      }
      return sameImage.stream()
          .filter(o -> !o.contents().python().isEmpty())
          .findFirst()
          .map(
              o ->
                  "not stated by this version; "
                      + o.ref()
                      + " (the same image) states "
                      + o.contents().python())
          .orElse("none");
    }

    /**
     * The image's CUDA as {@code r} states it; when {@code r} states none but a version with the
     * same image does, that one's (this version's GPU pods then check no driver version); else a
     * CPU image (the runtime schema: {@code cuda:} is omitted for CPU-only images).
     */
    static String cuda(RuntimeDefinition r, List<RuntimeDefinition> sameImage) {
      RuntimeDefinition.ImageContents c = r.contents();
      if (c.cudaVersion().isEmpty()) {
        return sameImage.stream()
            .filter(o -> !o.contents().cudaVersion().isEmpty())
            .findFirst()
            .map(
                o ->
                    "not stated by this version; "
                        + o.ref()
                        + " (the same image) states "
                        + o.contents().cudaVersion()
                        + " (GPU pods of this version check their GPUs but not the NVIDIA driver version)")
            .orElse("none (CPU image)");
      }
      return c.cudaVersion()
          + (c.driverFloor() > 0
              ? ", needs NVIDIA driver >= " + c.driverFloor() + " (GPU pods check it at start)"
              : "");
    }

    static String home(RuntimeDefinition r) {
      return r.user().imageOwnsHome()
          ? " (the image's: nothing is mounted over it; scratch at " + r.user().home() + "/.cache)"
          : " (a writable emptyDir)";
    }

    /**
     * The Pod Security level {@code r}'s pods meet. A root image needs more than restricted; a
     * non-root one that does not declare {@code podSecurity: restricted} (the built-in -1 versions
     * predate the field) gets no restricted securityContext, and the version with the same image
     * that declares it is named.
     */
    static String security(RuntimeDefinition r, List<RuntimeDefinition> sameImage) {
      RuntimeDefinition.PodSecurity s = r.security();
      if (s.restricted()) {
        return "Pod Security restricted"
            + (s.addCapabilities().isEmpty()
                ? ""
                : " (keeps " + String.join(", ", s.addCapabilities()) + ")");
      }
      if (r.user().isRoot()) {
        return "Pod Security baseline, needs more than restricted: runs as root (uid 0); a namespace enforcing restricted rejects its pods";
      }
      return "Pod Security baseline: this version does not declare `podSecurity: restricted`, so its pods get no restricted"
          + " securityContext and a namespace enforcing restricted rejects them"
          + sameImage.stream()
              .filter(o -> o.security().restricted())
              .findFirst()
              .map(o -> "; " + o.ref() + " (the same image) declares it")
              .orElse("");
    }
  }

  static Optional<RuntimeCatalog> load(CommandSpec spec, Path runtimes) {
    StageResult<RuntimeCatalog> result =
        RuntimeCatalogLoader.standard().load(Optional.ofNullable(runtimes));
    DiagnosticPrinter.printText(result.diagnostics(), spec.commandLine().getErr());
    return result.failed() ? Optional.empty() : result.value();
  }
}
