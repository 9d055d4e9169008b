package dev.trainyard.compiler.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.StageResult;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.runtime.MpiSettings.MpiImplementation;
import dev.trainyard.compiler.source.ParsedDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Builds a {@link RuntimeDefinition} from a {@code runtime.yaml} that already passed {@code
 * schemas/runtime.v1.schema.json}; checks the rules a schema cannot say (MPI settings present
 * exactly for MPI frameworks; the skeleton's replicated jobs are the framework's, {@link
 * SkeletonRules}; {@code podSecurity: restricted} only for a non-root uid, Pod Security Standards
 * "restricted": {@code runAsNonRoot}).
 */
public final class RuntimeBinder {

  private RuntimeBinder() {}

  /**
   * @param doc the parsed, schema-valid runtime.yaml
   * @param origin where it came from, for {@code trainyard runtimes show}
   * @return the definition, or INVALID_RUNTIME diagnostics located in the runtime file
   */
  public static StageResult<RuntimeDefinition> bind(ParsedDocument doc, String origin) {
    JsonNode root = doc.root();
    List<Diagnostic> problems = new ArrayList<>();
    Framework framework = Framework.parse(root.path("framework").asText()).orElseThrow();
    Optional<MpiSettings> mpi = mpiSettings(root.path("mpi"));
    if (framework.usesMpi() && mpi.isEmpty()) {
      problems.add(
          invalid(doc, "/framework", "framework `" + framework.id() + "` needs an `mpi:` section"));
    }
    if (!framework.usesMpi() && mpi.isPresent()) {
      problems.add(
          invalid(doc, "/mpi", "`mpi:` is only for the mpi, deepspeed and mlx frameworks"));
    }
    problems.addAll(SkeletonRules.check(doc, framework));
    if (root.path("podSecurity").asText().equals("restricted")
        && root.path("user").path("uid").asLong(0) == 0) {
      problems.add(
          invalid(
              doc,
              "/podSecurity",
              "`podSecurity: restricted` needs a non-root `user.uid`; uid 0 meets only baseline"));
    }
    if (!problems.isEmpty()) {
      return StageResult.failed(problems);
    }
    return StageResult.of(definition(root, framework, mpi, origin), List.of());
  }

  private static RuntimeDefinition definition(
      JsonNode root, Framework framework, Optional<MpiSettings> mpi, String origin) {
    JsonNode res = root.path("resources");
    RuntimeResources resources =
        new RuntimeResources(
            res.path("gpus").asInt(0),
            res.path("cpu").asText("2"),
            res.path("memory").asText("8Gi"),
            res.path("launcherCpu").asText("1"),
            res.path("launcherMemory").asText("2Gi"));
    JsonNode user = root.path("user");
    List<String> packages = new ArrayList<>();
    root.path("packages").forEach(p -> packages.add(p.asText()));
    List<String> capabilities = new ArrayList<>();
    root.path("addCapabilities").forEach(c -> capabilities.add(c.asText()));
    ObjectNode skeleton =
        root.path("jobset").isObject()
            ? (ObjectNode) root.get("jobset")
            : CanonicalJson.mapper().createObjectNode();
    return new RuntimeDefinition(
        root.path("name").asText(),
        root.path("version").asText(),
        root.path("description").asText(""),
        framework,
        root.path("image").asText(),
        packages,
        new RuntimeDefinition.ImageContents(
            root.path("python").asText(""),
            root.path("cuda").path("version").asText(""),
            root.path("cuda").path("driverFloor").asInt(0)),
        resources,
        new RuntimeDefinition.RuntimeUser(
            user.path("uid").asLong(0),
            user.path("home").asText("/root"),
            user.path("imageOwnsHome").asBoolean(false)),
        new RuntimeDefinition.PodSecurity(
            root.path("podSecurity").asText("baseline").equals("restricted"), capabilities),
        root.path("setup").asText(""),
        mpi,
        skeleton,
        CanonicalJson.sha256(root),
        origin);
  }

  private static Optional<MpiSettings> mpiSettings(JsonNode mpi) {
    if (!mpi.isObject()) {
      return Optional.empty();
    }
    MpiImplementation impl =
        MpiImplementation.parse(mpi.path("implementation").asText("OpenMPI"))
            .orElse(MpiImplementation.OPEN_MPI);
    return Optional.of(
        new MpiSettings(
            impl, mpi.path("sshPort").asInt(2222), mpi.path("launcherAsNode").asBoolean(false)));
  }

  private static Diagnostic invalid(ParsedDocument doc, String pointer, String message) {
    return Diagnostic.error(
        DiagnosticCode.INVALID_RUNTIME, doc.map().at(pointer), pointer, message);
  }
}
