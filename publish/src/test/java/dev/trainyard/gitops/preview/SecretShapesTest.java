package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Secret data in the less common shapes a hand-edited GitOps repo holds: kustomize patches of every
 * kind, Secret data that is not a mapping, SealedSecrets with last-applied annotations, Lists
 * mixing forms. What an added object shows is its masked YAML; none of it may hold the value.
 */
class SecretShapesTest {
  private static final String VALUE = "s3cr3t-value-that-must-not-show";
  private final ObjectDiff diff = new ObjectDiff(new YamlTrees());

  private String shown(String yaml) {
    ObjectChange c = diff.diff("x.yaml", Optional.empty(), Optional.of(yaml));
    String text = c.yaml().orElseThrow();
    assertFalse(text.contains(VALUE) || text.contains(VALUE.substring(0, 16)), text);
    return text;
  }

  @Test
  @DisplayName(
      "patches of a Secret target: a merge patch without kind shows its keys, a JSON 6902 op that is no object and a scalar patch show ***")
  void patchesOfASecretTarget() {
    String k =
        "kind: Kustomization\npatches:\n- target: {kind: Secret, name: s}\n  patch: 'stringData: {token: "
            + VALUE
            + "}'\n"
            + "- target: {kind: Secret, name: s}\n  patch: '[\""
            + VALUE
            + "\", {op: remove, path: /data/x}]'\n"
            + "- target: {kind: Secret, name: s}\n  patch: '"
            + VALUE
            + "'\n"
            + "- target: {kind: ConfigMap, name: c}\n  patch: 'data: {plain: visible}'\n- path: patch-file.yaml\n";
    String text = shown(k);
    assertTrue(text.contains("stringData:\n      token: '***'"), text);
    assertTrue(text.contains("- value: '***'\n    - op: remove\n      path: /data/x"), text);
    assertTrue(text.contains("- patch: |\n    '***'\n"), text);
    assertTrue(
        text.contains("data: {plain: visible}") && text.contains("path: patch-file.yaml"),
        "a ConfigMap patch and a patch file stay as they are: " + text);
  }

  @Test
  @DisplayName(
      "patchesStrategicMerge: a text of several documents masks the Secret among them; broken YAML over several lines is ***, a file name stays")
  void strategicMerge() {
    String k =
        "kind: Kustomization\npatchesStrategicMerge:\n- |\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {k: shown}\n  ---\n"
            + "  kind: Secret\n  metadata: {name: s}\n  stringData: {p: "
            + VALUE
            + "}\n- |\n  kind: Secret\n  data: {p: ["
            + VALUE
            + "\n  more: ]]\n- secret-patch.yaml\n";
    String text = shown(k);
    assertTrue(
        text.contains("k: shown") && text.contains("---\n") && text.contains("p: '***'"), text);
    assertTrue(text.contains("- '***'"), "the broken entry is masked whole: " + text);
    assertTrue(text.contains("- secret-patch.yaml"), text);
  }

  @Test
  @DisplayName(
      "secretGenerator literals: KEY=*** for text, *** for a literal without a key or that is no text; an empty generator list holds no Secret")
  void literals() {
    String text =
        shown(
            "kind: Kustomization\nsecretGenerator:\n- name: g\n  literals: [\"A="
                + VALUE
                + "\", \"="
                + VALUE
                + "\", {x: "
                + VALUE
                + "}]\n- name: files-only\n");
    assertTrue(text.contains("  - A=***\n  - '***'\n  - '***'\n"), text);
    assertTrue(text.contains("name: files-only"), text);
    assertEquals(
        ObjectChange.SecretForm.PLAIN,
        diff.diff(
                "k.yaml",
                Optional.empty(),
                Optional.of("kind: Kustomization\nsecretGenerator: [{name: g}]\n"))
            .secret());
    assertEquals(
        ObjectChange.SecretForm.NONE,
        diff.diff(
                "k.yaml",
                Optional.empty(),
                Optional.of("kind: Kustomization\nsecretGenerator: []\n"))
            .secret());
  }

  @Test
  @DisplayName(
      "Secret data that is not a mapping is masked whole, and a change inside it still shows as changed")
  void dataNotAMapping() {
    assertTrue(
        shown("kind: Secret\nmetadata: {name: s}\ndata: [" + VALUE + "]\n")
            .contains("data: '***'"));
    ObjectChange c =
        diff.diff(
            "s.yaml",
            Optional.of("kind: Secret\nmetadata: {name: s}\ndata: [" + VALUE + "]\n"),
            Optional.of("kind: Secret\nmetadata: {name: s}\ndata: [other-" + VALUE + "]\n"));
    assertEquals(
        List.of(
            new FieldChange(
                "data", Optional.of(SecretMask.BEFORE), Optional.of(SecretMask.AFTER), true)),
        c.fields());
  }

  @Test
  @DisplayName(
      "a SealedSecret: encryptedData and template data masked, its last-applied annotation masked, a spec that is no mapping kept")
  void sealedSecrets() {
    String text =
        shown(
            "kind: SealedSecret\nmetadata:\n  name: s\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"spec\": \""
                + VALUE
                + "\"}'\n    note: visible\nspec:\n  encryptedData: {k: "
                + VALUE
                + "}\n  template:\n    metadata: {name: s}\n    data: {t: "
                + VALUE
                + "}\n");
    assertTrue(
        text.contains("kubectl.kubernetes.io/last-applied-configuration: '***'")
            && text.contains("note: visible"),
        text);
    assertTrue(
        text.contains("k: '***'") && text.contains("t: '***'") && text.contains("name: s"), text);
    assertTrue(
        shown("kind: SealedSecret\nmetadata: {name: s}\nspec: later\n").contains("spec: later"));
  }

  @Test
  @DisplayName(
      "a List of a plain Secret and a SealedSecret holds sealed data (the strongest form counts); SOPS wins over both")
  void strongestForm() {
    String list =
        "kind: List\nitems:\n- {kind: Secret, metadata: {name: a}, data: {k: eA==}}\n- {kind: SealedSecret, metadata: {name: b}, spec: {encryptedData: {k: eA==}}}\n";
    assertEquals(
        ObjectChange.SecretForm.SEALED,
        diff.diff("l.yaml", Optional.empty(), Optional.of(list)).secret());
    assertEquals(
        ObjectChange.SecretForm.SOPS,
        diff.diff(
                "l.yaml",
                Optional.empty(),
                Optional.of(list + "- {kind: ConfigMap, sops: {mac: x}}\n"))
            .secret());
    assertEquals(
        ObjectChange.SecretForm.PLAIN,
        diff.diff(
                "l.yaml", Optional.empty(), Optional.of(list.replace("SealedSecret", "ConfigMap")))
            .secret());
  }

  @Test
  @DisplayName(
      "a JobSet container's plain env that looks like a credential (W432) is shown as ***; other env stays")
  void credentialEnv() {
    String token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh";
    String jobSet =
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: r}\nspec:\n"
            + "  replicatedJobs:\n  - name: node\n    template:\n      spec:\n        template:\n"
            + "          spec:\n            containers:\n            - name: node\n              env:\n"
            + "              - {name: HF_TOKEN, value: "
            + token
            + "}\n              - {name: WANDB_API_KEY, value: "
            + VALUE
            + "}\n              - {name: WANDB_PROJECT, value: llama}\n";
    ObjectChange c = diff.diff("x.yaml", Optional.empty(), Optional.of(jobSet));
    String text = c.yaml().orElseThrow();
    assertFalse(text.contains(token) || text.contains(VALUE), text);
    assertTrue(text.contains("name: HF_TOKEN\n") && text.contains("value: '***'"), text);
    assertTrue(text.contains("value: llama"), "an ordinary env value is shown: " + text);
  }

  @Test
  @DisplayName("a sealed value prints as what a preview may show, never as the value")
  void sealedPrintsMasked() {
    assertEquals("***", new SecretMask.Sealed("***", "hunter2").toString());
  }
}
