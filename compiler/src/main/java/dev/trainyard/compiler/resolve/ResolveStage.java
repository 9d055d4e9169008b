package dev.trainyard.compiler.resolve;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.platform.Platform;
import dev.trainyard.compiler.resolve.ResolvedJob.Command;
import dev.trainyard.compiler.resolve.ResolvedJob.Naming;
import dev.trainyard.compiler.resolve.ResolvedJob.NodeResources;
import dev.trainyard.compiler.resolve.ResolvedJob.Target;
import dev.trainyard.compiler.resolve.ResolvedJob.Topology;
import dev.trainyard.compiler.runtime.Framework;
import dev.trainyard.compiler.runtime.RuntimeDefinition;
import dev.trainyard.compiler.spec.ResourceRequest;
import dev.trainyard.compiler.spec.TrainSpec;
import dev.trainyard.compiler.units.Durations;
import dev.trainyard.compiler.units.Quantities;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Stage 3: fills every default from the runtime and the platform (Helm's order: merge defaults,
 * then validate in the policy stage). Reports unknown runtimes, clusters, namespaces and queues,
 * and bad durations, all at once.
 */
public final class ResolveStage {
  /**
   * Where the code-sync init container clones into (an emptyDir shared with the training
   * container).
   */
  public static final String WORKSPACE = "/workspace";

  /** The clone itself (git-sync's {@code --link=src}); the working directory lies below it. */
  public static final String SOURCE_ROOT = WORKSPACE + "/src";

  private static final int RUN_ID_LENGTH = 6;
  private static final long DEFAULT_TIMEOUT_SECONDS = 24 * 3600;
  private static final int DEFAULT_RETRIES = 3;

  /** Resolves {@code in}; the value is absent when a runtime, target or queue cannot be found. */
  public StageResult<ResolvedJob> resolve(ResolveInput in) {
    List<Diagnostic> problems = new ArrayList<>();
    TrainSpec spec = in.spec();
    Optional<RuntimeDefinition> runtime = RuntimeChoice.find(in, problems);
    Optional<Target> target = TargetChoice.choose(in, problems);
    long timeout = timeoutSeconds(spec, problems);
    if (runtime.isEmpty() || target.isEmpty()) {
      return StageResult.failed(problems);
    }
    RuntimeDefinition rt = runtime.get();
    // Any problem found so far (timeout, runtime not allowed, workdir) fails the stage below, after
    // the job is built.
    checkRuntimeAllowed(in, rt, target.get(), problems);
    NodeResources resources = resources(spec.resources(), rt);
    Topology topology =
        new Topology(spec.nodes().orElse(1), procsPerNode(spec, resources, rt.framework()));
    Naming naming = naming(in, JobLayout.of(rt, topology.nodes()));
    Optional<ResolvedCheckpoint> checkpoint =
        CheckpointChoice.choose(in, target.get(), naming, problems);
    ResolvedJob job =
        new ResolvedJob(
            spec,
            rt,
            in.platform(),
            target.get(),
            in.source(),
            naming,
            topology,
            resources,
            command(in, rt),
            spec.secrets(),
            spec.volumes(),
            spec.retries().orElse(DEFAULT_RETRIES),
            timeout,
            in.stamp(),
            checkpoint);
    // A warning (W318) alone does not stop the pipeline.
    return problems.stream().anyMatch(Diagnostic::isError)
        ? StageResult.failed(problems)
        : StageResult.of(job, problems);
  }

  private static NodeResources resources(ResourceRequest user, RuntimeDefinition rt) {
    String memory = user.memory().orElse(rt.resources().memory());
    return new NodeResources(
        user.gpus().orElse(rt.resources().gpus()),
        user.gpuType().orElse(""),
        user.cpu().orElse(rt.resources().cpu()),
        memory,
        user.shm().orElse(Quantities.half(memory)));
  }

  /**
   * Processes per node from the merged resources (trainer#3974): an explicit count wins; otherwise
   * one per GPU, or the whole CPUs on CPU-only nodes, never {@code auto} without GPUs
   * (trainer#2407). JAX and plain runtimes start one process per node.
   */
  static int procsPerNode(TrainSpec spec, NodeResources resources, Framework framework) {
    if (spec.procsPerNode().isPresent() && !spec.procsPerNode().get().auto()) {
      return spec.procsPerNode().get().count();
    }
    if (framework == Framework.JAX || framework == Framework.PLAIN) {
      return 1;
    }
    return resources.gpus() > 0 ? resources.gpus() : Quantities.wholeCpus(resources.cpu());
  }

  private static long timeoutSeconds(TrainSpec spec, List<Diagnostic> problems) {
    if (spec.timeout().isEmpty()) {
      return DEFAULT_TIMEOUT_SECONDS;
    }
    var seconds = Durations.seconds(spec.timeout().get());
    if (seconds.isEmpty()) {
      problems.add(
          Diagnostic.error(
                  DiagnosticCode.INVALID_DURATION,
                  at(spec, "/timeout"),
                  "/timeout",
                  "`timeout` must be a duration such as 24h, 90m or 1h30m, got \""
                      + spec.timeout().get()
                      + "\"")
              .withHint(
                  "units are d, h, m and s, largest first, and the total must be more than 0 and at most 36500d, e.g. `timeout: 36h` or `timeout: 2d`"));
      return 0;
    }
    return seconds.getAsLong();
  }

  private static Naming naming(ResolveInput in, JobLayout layout) {
    int maxName = layout.maxJobSetNameLength() - RUN_ID_LENGTH - 1;
    boolean fromUser = in.spec().name().isPresent();
    String jobName =
        in.spec().name().orElseGet(() -> Names.sanitize(defaultName(in), Math.max(1, maxName)));
    String runId = runId(in);
    return new Naming(jobName, runId, jobName + "-" + runId, fromUser);
  }

  private static String defaultName(ResolveInput in) {
    String folder = in.source().trainYamlFolder();
    String base = folder.isEmpty() ? in.source().normalizedRepo() : folder;
    return base.substring(base.lastIndexOf('/') + 1);
  }

  /**
   * Six hex characters of SHA-256 over commit, train.yaml path and attempt: stable for a re-compile
   * of the same run, different for another train.yaml or a re-run.
   */
  static String runId(ResolveInput in) {
    String key = in.source().commit() + "\n" + in.source().trainYamlPath() + "\n" + in.attempt();
    return CanonicalJson.sha256Hex(key).substring(0, RUN_ID_LENGTH);
  }

  private static Command command(ResolveInput in, RuntimeDefinition rt) {
    TrainSpec spec = in.spec();
    String folder = in.source().trainYamlFolder();
    String relative = spec.workdir().map(w -> folder + "/" + w).orElse(folder);
    // The schema allows no `..` and no leading `/` in workdir, so the path stays inside the
    // repository.
    Path normalized = Path.of("/", relative).normalize();
    String workdir = (SOURCE_ROOT + normalized).replaceFirst("/$", "");
    String userSetup =
        spec.setup().orElse(in.requirementsTxt() ? "pip install -r requirements.txt" : "");
    // The runtime's own setup (what its image lacks, e.g. JAX's `kubernetes`) runs first, in the
    // same shell.
    String setup =
        rt.setup().isEmpty()
            ? userSetup
            : userSetup.isEmpty() ? rt.setup() : rt.setup() + "\n" + userSetup;
    boolean withoutPython = spec.image().isEmpty() && in.catalog().recordedPython(rt).isEmpty();
    return new Command(
        spec.image().orElse(rt.image()), workdir, setup, spec.run(), spec.env(), withoutPython);
  }

  /**
   * platform.yaml's {@code namespaces[].runtimes}: a team may be limited to the runtimes its
   * platform supports.
   */
  private static void checkRuntimeAllowed(
      ResolveInput in, RuntimeDefinition rt, Target target, List<Diagnostic> problems) {
    // TargetChoice picked the target from these namespaces, so it is there.
    Platform.NamespaceRule ns =
        in.platform().namespaces().stream()
            .filter(
                n -> n.cluster().equals(target.cluster()) && n.name().equals(target.namespace()))
            .findFirst()
            .orElseThrow();
    if (ns.allowsRuntime(rt.name())) {
      return;
    }
    boolean named = in.spec().runtime().isPresent();
    problems.add(
        Diagnostic.error(
                DiagnosticCode.RUNTIME_NOT_ALLOWED,
                named
                    ? at(in.spec(), "/runtime")
                    : SourceLocation.ofFile(in.spec().document().source().displayPath()),
                named ? "/runtime" : "",
                "runtime \""
                    + rt.name()
                    + "\" is not allowed in namespace `"
                    + target.namespace()
                    + "`")
            .withHint(
                "namespace `"
                    + target.namespace()
                    + "` allows the runtimes "
                    + String.join(", ", ns.runtimes())
                    + " ("
                    + in.platform().origin()
                    + ")"));
  }

  static SourceLocation at(TrainSpec spec, String pointer) {
    return spec.document().map().at(pointer);
  }
}
