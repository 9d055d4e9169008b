package dev.trainyard.compiler.platform;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.source.ParsedDocument;
import java.util.ArrayList;
import java.util.List;

/**
 * ResourceFlavor taints and tolerations: the rules Kueue's CRD states in CEL (kueue {@code
 * apis/kueue/v1beta2/resourceflavor_types.go}), checked here so a mistake is a located diagnostic,
 * not a rejected apply; and one Trainyard rule: Trainyard's pods carry no tolerations of their own,
 * so a NoSchedule/NoExecute taint the flavor does not tolerate itself would keep every run off that
 * flavor (Kueue: NoMatchingFlavor).
 */
final class FlavorRules {
  private FlavorRules() {}

  static List<Diagnostic> check(Platform p, ParsedDocument doc) {
    List<Diagnostic> out = new ArrayList<>();
    List<Platform.ResourceFlavor> flavors = p.queues().resourceFlavors();
    for (int f = 0; f < flavors.size(); f++) {
      Platform.ResourceFlavor flavor = flavors.get(f);
      String base = "/queues/resourceFlavors/" + f;
      for (int t = 0; t < flavor.tolerations().size(); t++) {
        checkToleration(flavor.tolerations().get(t), base + "/tolerations/" + t, doc, out);
      }
      for (int t = 0; t < flavor.nodeTaints().size(); t++) {
        Platform.Taint taint = flavor.nodeTaints().get(t);
        boolean evaluated = !taint.effect().equals("PreferNoSchedule");
        if (evaluated && flavor.tolerations().stream().noneMatch(tol -> tol.tolerates(taint))) {
          out.add(
              PlatformBinder.invalid(
                      doc,
                      base + "/nodeTaints/" + t,
                      "flavor `"
                          + flavor.name()
                          + "` has node taint "
                          + taint.key()
                          + (taint.value().isEmpty() ? "" : "=" + taint.value())
                          + ":"
                          + taint.effect()
                          + " but no toleration for it; Kueue would never admit a run on this flavor")
                  .withHint(
                      "add `tolerations: [{key: "
                          + taint.key()
                          + ", operator: Exists, effect: "
                          + taint.effect()
                          + "}]` to the flavor; Kueue puts the flavor's tolerations on the pods it admits"));
        }
      }
    }
    return out;
  }

  private static void checkToleration(
      Platform.Toleration t, String pointer, ParsedDocument doc, List<Diagnostic> out) {
    if (t.key().isEmpty() && !t.operator().equals("Exists")) {
      out.add(
          PlatformBinder.invalid(
                  doc,
                  pointer,
                  "a toleration without `key` must have `operator: Exists` (it matches every taint)")
              .withHint(
                  "name the taint's `key`, or write `operator: Exists` to tolerate every taint"));
    }
    if (t.operator().equals("Exists") && !t.value().isEmpty()) {
      out.add(
          PlatformBinder.invalid(
                  doc, pointer + "/value", "a toleration with `operator: Exists` takes no `value`")
              .withHint("drop `value`, or use `operator: Equal` to match that value only"));
    }
    if (t.tolerationSeconds().isPresent() && !t.effect().equals("NoExecute")) {
      out.add(
          PlatformBinder.invalid(
                  doc,
                  pointer + "/tolerationSeconds",
                  "`tolerationSeconds` needs `effect: NoExecute`")
              .withHint(
                  "set `effect: NoExecute`, or drop `tolerationSeconds` (it bounds how long a pod stays on a NoExecute-tainted node)"));
    }
  }
}
