package dev.trainyard.gitops.preview;

import dev.trainyard.gitops.RunFolder;
import dev.trainyard.gitops.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Call-outs for changed files under {@code clusters/} that Flux or Argo CD cannot parse: both read
 * every {@code .yaml}, {@code .yml} and {@code .json} file of a synced folder and fail the whole
 * sync on one they cannot decode (Flux kustomize-controller's generated kustomization; Argo CD
 * directory sources). The content stays hidden (a broken file may be a broken Secret); the call-out
 * names the file and, when the YAML parser gives one, the line and column. A run's unreadable
 * JobSet is refused (nothing about the run can be checked), any other file is a warning.
 */
final class FileProblems {
  private FileProblems() {}

  /**
   * One call-out per changed, present, unreadable manifest file under {@code clusters/}, in path
   * order.
   */
  static List<CallOut> of(List<String> changed, Snapshot head, YamlTrees yaml) {
    List<CallOut> out = new ArrayList<>();
    for (String path : changed.stream().sorted().toList()) {
      if (!path.startsWith("clusters/") || !manifest(path)) {
        continue;
      }
      Optional<String> text = head.read(path);
      if (text.isEmpty()) {
        continue;
      }
      YamlTrees.Documents d = yaml.documents(text.get());
      boolean jobSet =
          RunFolder.containing(path).map(r -> r.jobSetFile().equals(path)).orElse(false);
      if (!d.readable()) {
        out.add(callOut(path, d));
      } else if (jobSet
          && d.objects().stream().noneMatch(o -> o.path("kind").asText("").equals("JobSet"))) {
        out.add(callOut(path, new YamlTrees.Documents(List.of(), "without a kind: JobSet object")));
      }
    }
    return out;
  }

  /**
   * Whether Flux and Argo CD read {@code path} as a manifest: {@code .yaml}, {@code .yml} or {@code
   * .json}.
   */
  static boolean manifest(String path) {
    return path.endsWith(".yaml") || path.endsWith(".yml") || path.endsWith(".json");
  }

  private static CallOut callOut(String path, YamlTrees.Documents d) {
    Optional<RunFolder> run = RunFolder.containing(path);
    String where = "`" + path + (d.line() < 1 ? "" : ":" + d.line() + ":" + d.column()) + "`";
    if (d.problem().equals(YamlTrees.ALIASES)) {
      // Valid YAML that Flux and Argo CD apply: a warning that the preview cannot show it, not a
      // refusal.
      return new CallOut(
          CallOut.Severity.WARNING,
          "yaml-aliases",
          run.map(RunFolder::run).orElse(""),
          where
              + " is "
              + d.problem()
              + ": its objects are neither shown nor checked here; review the file itself");
    }
    if (run.isPresent() && run.get().jobSetFile().equals(path)) {
      return new CallOut(
          CallOut.Severity.REFUSED,
          "unreadable-jobset",
          run.get().run(),
          where
              + ": the run's JobSet is "
              + d.problem()
              + ", so Flux / Argo CD cannot apply it and the preview cannot read what it runs; its content is not shown (fix the file or re-run `trainyard submit`)");
    }
    return new CallOut(
        CallOut.Severity.WARNING,
        "unreadable-file",
        run.map(RunFolder::run).orElse(""),
        where
            + " is "
            + d.problem()
            + ": Flux and Argo CD fail to sync a folder holding it; its content is not shown (it may hold Secret data)");
  }
}
