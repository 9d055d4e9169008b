package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.Severity;
import dev.trainyard.compiler.manifest.CanonicalJson;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;

/**
 * The preview as one JSON document for bots ({@code --output json}); the same model as the
 * Markdown, so the same masks: Secret values are {@code "***"}, {@code "*** (before)"} or {@code
 * "*** (after)"}. Diagnostics have the shape of every other command's {@code --output json} ({@code
 * diagnostics}, {@code errors}, {@code warnings}).
 */
public final class JsonPreview {
  private JsonPreview() {}

  /** The document, pretty-printed, ending in a newline. */
  public static String render(Preview p) {
    ObjectNode root = CanonicalJson.mapper().createObjectNode();
    root.put("mode", p.mode().name().toLowerCase(Locale.ROOT))
        .put("base", p.base())
        .put("head", p.head())
        .put("refused", p.refused());
    root.putObject("summary")
        .put("added", p.runs(RunChange.Status.ADDED).size())
        .put("changed", p.runs(RunChange.Status.CHANGED).size())
        .put("removed", p.runs(RunChange.Status.REMOVED).size());
    root.put("note", p.note());
    ArrayNode runs = root.putArray("runs");
    p.runs().forEach(r -> run(runs.addObject(), r));
    ArrayNode queues = root.putArray("queues");
    p.queues().forEach(q -> queue(queues.addObject(), q));
    ArrayNode callOuts = root.putArray("callOuts");
    p.callOuts()
        .forEach(
            c ->
                callOuts
                    .addObject()
                    .put("severity", c.severity().label())
                    .put("code", c.code())
                    .put("run", c.run())
                    .put("message", c.message()));
    diagnostics(root, p);
    p.platform()
        .ifPresentOrElse(
            c -> platform(root.putObject("platform"), c), () -> root.putNull("platform"));
    ArrayNode other = root.putArray("otherFiles");
    p.otherFiles().forEach(other::add);
    ArrayNode otherObjects = root.putArray("otherObjects");
    p.otherObjects().forEach(c -> object(otherObjects.addObject(), c));
    return root.toPrettyString() + "\n";
  }

  private static void run(ObjectNode o, RunChange r) {
    RunFacts f = r.shown();
    o.put("status", r.status().name().toLowerCase(Locale.ROOT))
        .put("run", f.folder().run())
        .put("cluster", f.folder().cluster())
        .put("namespace", f.folder().namespace())
        .put("path", f.folder().path())
        .put("trainYaml", f.sourcePath())
        .put("sourceCommit", f.sourceCommit())
        .put("runtime", f.runtime())
        .put("image", f.image())
        .put("runtimeDigest", f.runtimeDigest())
        .put("queue", f.queue())
        .put("nodes", f.nodes())
        .put("procsPerNode", f.procsPerNode())
        .put("gpusPerNode", f.gpusPerNode())
        .put("gpuType", f.gpuType())
        .put("gpus", f.nodes() * f.gpusPerNode());
    if (!f.checkpoint().isEmpty()) {
      o.putObject("checkpoint").put("claim", f.checkpoint()).put("resume", f.checkpointResume());
    }
    ObjectNode requests = o.putObject("requests");
    for (Map.Entry<String, BigDecimal> e : f.requestsView().entrySet()) {
      requests.put(e.getKey(), Quantity.plain(e.getValue()));
    }
    r.comparedWith()
        .filter(x -> r.status() == RunChange.Status.ADDED)
        .ifPresentOrElse(
            prev -> o.put("previous", prev.folder().run()), () -> o.putNull("previous"));
    o.put("sinceLastRun", SummaryTables.since(r));
    ArrayNode objects = o.putArray("objects");
    r.objects().forEach(c -> object(objects.addObject(), c));
  }

  private static void object(ObjectNode o, ObjectChange c) {
    o.put("file", c.file())
        .put("kind", c.kind())
        .put("name", c.name())
        .put("status", c.status().name().toLowerCase(Locale.ROOT))
        .put("secret", c.secret().name().toLowerCase(Locale.ROOT))
        .put("immutable", c.immutable())
        .put("unreadable", c.unreadable());
    ArrayNode fields = o.putArray("fields");
    for (FieldChange f : c.fields()) {
      ObjectNode field = fields.addObject().put("path", f.path());
      f.before().ifPresentOrElse(v -> field.put("before", v), () -> field.putNull("before"));
      f.after().ifPresentOrElse(v -> field.put("after", v), () -> field.putNull("after"));
      field.put("secret", f.secret());
    }
    c.yaml().ifPresentOrElse(y -> o.put("yaml", y), () -> o.putNull("yaml"));
  }

  private static void platform(ObjectNode o, PlatformChange c) {
    o.put("runs", c.runs());
    ArrayNode quotas = o.putArray("quotas");
    for (QuotaChange q : c.quotas()) {
      ObjectNode row =
          quotas.addObject().put("clusterQueue", q.clusterQueue()).put("resource", q.resource());
      q.before()
          .ifPresentOrElse(v -> row.put("before", Quantity.plain(v)), () -> row.putNull("before"));
      q.after()
          .ifPresentOrElse(v -> row.put("after", Quantity.plain(v)), () -> row.putNull("after"));
      q.cohort().ifPresentOrElse(v -> row.put("cohort", v), () -> row.putNull("cohort"));
      row.put("runs", q.runs());
      q.neverAdmitted().forEach(row.putArray("neverAdmitted")::add);
      q.borrowing().forEach(row.putArray("borrowing")::add);
    }
  }

  private static void queue(ObjectNode o, QueueTotal q) {
    o.put("namespace", q.namespace()).put("queue", q.queue());
    q.clusterQueue()
        .ifPresentOrElse(c -> o.put("clusterQueue", c), () -> o.putNull("clusterQueue"));
    o.put("runs", q.runs()).put("gpus", Quantity.plain(q.gpus()));
    q.quota()
        .ifPresentOrElse(
            v -> o.put("nominalGpus", Quantity.plain(v)), () -> o.putNull("nominalGpus"));
    q.cohort().ifPresentOrElse(c -> o.put("cohort", c), () -> o.putNull("cohort"));
    o.put("over", q.over());
  }

  private static void diagnostics(ObjectNode root, Preview p) {
    ArrayNode list = root.putArray("diagnostics");
    for (Diagnostic d : p.diagnostics()) {
      list.addObject()
          .put("severity", d.severity().label())
          .put("code", d.code().id())
          .put("message", d.message())
          .put("file", d.location().file())
          .put("line", d.location().line())
          .put("column", d.location().column())
          .put("pointer", d.pointer())
          .put("hint", d.hint());
    }
    root.put("errors", p.diagnostics().stream().filter(Diagnostic::isError).count());
    root.put(
        "warnings", p.diagnostics().stream().filter(d -> d.severity() == Severity.WARNING).count());
  }
}
