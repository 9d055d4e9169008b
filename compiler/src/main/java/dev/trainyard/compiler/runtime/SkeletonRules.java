package dev.trainyard.compiler.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.source.ParsedDocument;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The replicated jobs of a runtime's JobSet skeleton must be ones its framework plugin renders:
 * {@code node} for torch, JAX and plain, {@code node} and {@code launcher} for the MPI family. The
 * plugin builds the JobSet from its own job list and merges each skeleton entry into the job of the
 * same name, so any other entry (an {@code evaluator}, a {@code worker}) would vanish from every
 * run without a word; it is refused at its line.
 */
final class SkeletonRules {
  private static final List<String> SINGLE = List.of("node");
  private static final List<String> MPI = List.of("node", "launcher");

  private SkeletonRules() {}

  /** The replicated job names the plugin of {@code framework} renders. */
  static List<String> rendered(Framework framework) {
    return framework.usesMpi() ? MPI : SINGLE;
  }

  static List<Diagnostic> check(ParsedDocument doc, Framework framework) {
    List<Diagnostic> problems = new ArrayList<>();
    JsonNode jobs = doc.root().path("jobset").path("spec").path("replicatedJobs");
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < jobs.size(); i++) {
      String pointer = "/jobset/spec/replicatedJobs/" + i;
      String name = jobs.get(i).path("name").asText("");
      if (!rendered(framework).contains(name)) {
        String got =
            name.isEmpty() ? "a replicated job without a `name`" : "replicated job `" + name + "`";
        problems.add(
            Diagnostic.error(
                    DiagnosticCode.INVALID_RUNTIME,
                    doc.map().at(pointer + "/name"),
                    pointer + "/name",
                    got
                        + " is not one the "
                        + framework.id()
                        + " framework renders ("
                        + String.join(", ", rendered(framework))
                        + "), so it would be dropped from every run")
                .withHint(
                    "name it "
                        + String.join(" or ", rendered(framework))
                        + " to adjust that job's pods (sidecar containers,"
                        + " volumes, annotations); a separate job needs a framework that renders it"));
      } else if (!seen.add(name)) {
        problems.add(
            Diagnostic.error(
                    DiagnosticCode.INVALID_RUNTIME,
                    doc.map().at(pointer + "/name"),
                    pointer + "/name",
                    "replicated job `"
                        + name
                        + "` appears twice in the skeleton; only the first would be used")
                .withHint("merge the two entries into one"));
      }
    }
    return problems;
  }
}
