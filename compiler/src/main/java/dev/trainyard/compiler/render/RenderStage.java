package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.Manifest;
import dev.trainyard.compiler.manifest.ManifestSet;
import dev.trainyard.compiler.render.FrameworkPlugin.FrameworkOutput;
import dev.trainyard.compiler.resolve.JobLayout;
import dev.trainyard.compiler.resolve.ResolvedJob;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Stage 5: the runtime's JobSet skeleton (Pebble fills its string values) plus the framework
 * plugin's pods and objects, stamped with labels and provenance; and the Kueue objects of the
 * target.
 */
public final class RenderStage {
  private final TemplateRenderer templates = new TemplateRenderer();

  /** Renders {@code job}; {@code services} supplies the SSH Secret of MPI runs. */
  public StageResult<ManifestSet> render(ResolvedJob job, RenderServices services) {
    ObjectNode skeleton = job.runtime().skeleton();
    List<Diagnostic> problems =
        templates.renderInPlace(skeleton, templateContext(job), job.runtime().origin());
    if (!problems.isEmpty()) {
      return StageResult.failed(problems);
    }
    JobLayout layout = JobLayout.of(job.runtime(), job.topology().nodes());
    FrameworkOutput out = plugin(job).render(job, layout, services);
    Map<String, String> annotations = Provenance.annotations(job);
    Map<String, String> labels = Provenance.labels(job);
    List<Manifest> run = new ArrayList<>();
    Map<String, String> jsAnnotations = new TreeMap<>(annotations);
    skeleton
        .path("metadata")
        .path("annotations")
        .properties()
        .forEach(e -> jsAnnotations.putIfAbsent(e.getKey(), e.getValue().asText()));
    Map<String, String> jsLabels = new TreeMap<>(Provenance.jobSetLabels(job));
    skeleton
        .path("metadata")
        .path("labels")
        .properties()
        .forEach(e -> jsLabels.putIfAbsent(e.getKey(), e.getValue().asText()));
    run.add(JobSetBuilder.build(job, out, skeleton, jsLabels, jsAnnotations));
    out.extraObjects().forEach(m -> run.add(stamp(m, labels, annotations)));
    if (job.platform().networkPolicy().runs()) {
      run.add(stamp(RunNetworkPolicy.of(job), labels, annotations));
    }
    Map<String, String> queueAnnotations =
        QueueObjects.annotations(job.platform(), job.stamp().compilerVersion());
    return StageResult.of(
        new ManifestSet(
            job.target().cluster(),
            job.target().namespace(),
            job.naming().runName(),
            run,
            QueueObjects.clusterScoped(job.platform(), job.target().cluster(), queueAnnotations),
            QueueObjects.localQueues(job.platform(), job.target().namespace(), queueAnnotations),
            checkpointClaim(job)),
        List.of());
  }

  /** The job's own checkpoint claim, if it has one. */
  private static List<Manifest> checkpointClaim(ResolvedJob job) {
    return job.checkpoint()
        .filter(c -> c.ownClaim())
        .map(
            c -> {
              Map<String, String> a = new TreeMap<>();
              a.put(Provenance.SOURCE_REPO, job.source().repoUrl());
              a.put(Provenance.SOURCE_PATH, job.source().trainYamlPath());
              a.put(Provenance.COMPILER_VERSION, job.stamp().compilerVersion());
              a.put(Provenance.CLUSTER, job.target().cluster());
              return List.of(CheckpointParts.claim(job, c, a));
            })
        .orElse(List.of());
  }

  private static FrameworkPlugin plugin(ResolvedJob job) {
    return switch (job.runtime().framework()) {
      case TORCH -> new TorchPlugin();
      case JAX -> new JaxPlugin();
      case PLAIN -> new PlainPlugin();
      case MPI, DEEPSPEED, MLX -> new MpiPlugin();
    };
  }

  /**
   * Adds run labels and provenance to an object, keeping any the plugin set (a SealedSecret's own).
   */
  private static Manifest stamp(
      Manifest m, Map<String, String> labels, Map<String, String> annotations) {
    ObjectNode o = m.object();
    ObjectNode meta = (ObjectNode) o.get("metadata");
    labels.forEach(
        (k, v) -> {
          if (!meta.withObject("labels").has(k)) {
            meta.withObject("labels").put(k, v);
          }
        });
    annotations.forEach(
        (k, v) -> {
          if (!meta.withObject("annotations").has(k)) {
            meta.withObject("annotations").put(k, v);
          }
        });
    return Manifest.of(o);
  }

  private static Map<String, Object> templateContext(ResolvedJob job) {
    Map<String, Object> jobVars = new LinkedHashMap<>();
    jobVars.put("name", job.naming().jobName());
    jobVars.put("runName", job.naming().runName());
    jobVars.put("namespace", job.target().namespace());
    jobVars.put("nodes", job.topology().nodes());
    jobVars.put("procsPerNode", job.topology().procsPerNode());
    jobVars.put("gpus", job.resources().gpus());
    Map<String, Object> runtimeVars =
        Map.of("name", job.runtime().name(), "version", job.runtime().version());
    return Map.of("job", jobVars, "runtime", runtimeVars, "image", job.command().image());
  }
}
