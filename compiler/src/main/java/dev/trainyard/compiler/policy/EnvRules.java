package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.resolve.ResolvedJob;
import dev.trainyard.compiler.source.SourceMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * User env must not set what Trainyard, Kubernetes or the launcher sets for this runtime ({@link
 * TrainyardEnv}: exact names per framework, as Kubeflow Trainer rejects its own PET_* and OMPI
 * names, trainer commit 85bbe58d0), and must not set one name twice: a name in {@code env} and in
 * {@code secrets}, or in two {@code secrets}, would leave one value silently unused, so both places
 * are reported.
 */
final class EnvRules {
  private EnvRules() {}

  static List<Diagnostic> check(ResolvedJob job) {
    List<Diagnostic> out = new ArrayList<>();
    Map<String, List<String>> places = new LinkedHashMap<>();
    collect(job, places);
    places.forEach(
        (name, pointers) -> {
          if (TrainyardEnv.isReserved(job, name)) {
            pointers.forEach(p -> out.add(reserved(job, p, name)));
          } else if (pointers.size() > 1) {
            pointers.forEach(p -> out.add(twice(job, p, name, pointers)));
          }
        });
    return out;
  }

  /**
   * Name → the pointers that set it, in file order of the fields ({@code env} first, then {@code
   * secrets}).
   */
  private static void collect(ResolvedJob job, Map<String, List<String>> places) {
    for (String name : job.command().env().keySet()) {
      places.computeIfAbsent(name, n -> new ArrayList<>()).add(SourceMap.child("/env", name));
    }
    for (int i = 0; i < job.secrets().size(); i++) {
      String pointer = "/secrets/" + i + "/env";
      job.secrets()
          .get(i)
          .env()
          .ifPresent(name -> places.computeIfAbsent(name, n -> new ArrayList<>()).add(pointer));
    }
  }

  private static Diagnostic reserved(ResolvedJob job, String pointer, String name) {
    return Diagnostic.error(
            DiagnosticCode.RESERVED_ENV,
            job.spec().document().map().keyAt(pointer),
            pointer,
            "environment variable `" + name + "` is reserved: Trainyard or the launcher sets it")
        .withHint(
            "runtime "
                + job.runtime().name()
                + " sets "
                + String.join(", ", TrainyardEnv.names(job))
                + ", and every name starting with "
                + TrainyardEnv.OWN_PREFIX
                + "; pick another name, or read the value Trainyard sets");
  }

  private static Diagnostic twice(
      ResolvedJob job, String pointer, String name, List<String> pointers) {
    List<String> others = new ArrayList<>();
    for (String other : pointers) {
      if (!other.equals(pointer)) {
        SourceLocation at = job.spec().document().map().keyAt(other);
        others.add(other + " (line " + at.line() + ")");
      }
    }
    return Diagnostic.error(
            DiagnosticCode.ENV_SET_TWICE,
            job.spec().document().map().keyAt(pointer),
            pointer,
            "environment variable `"
                + name
                + "` is set twice: here and at "
                + String.join(", ", others)
                + "; only one value would reach the pods")
        .withHint("keep one of them: a plain value in `env`, or one Secret key in `secrets`");
  }
}
