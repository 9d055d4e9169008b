package dev.trainyard.gitops.preview;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Field-by-field object diffs and their masks. */
class ObjectDiffTest {
  private final ObjectDiff diff = new ObjectDiff(new YamlTrees());

  private ObjectChange changed(String before, String after) {
    return diff.diff("x.yaml", Optional.of(before), Optional.of(after));
  }

  private static List<String> paths(ObjectChange c) {
    return c.fields().stream().map(FieldChange::path).toList();
  }

  @Test
  @DisplayName("key order and YAML style do not count: only values do")
  void yamlAware() {
    ObjectChange c = changed("kind: ConfigMap\nmetadata: {name: a, namespace: n}\ndata: {k: v, j: w}\n",
        "kind: ConfigMap\ndata:\n  j: w\n  k: v\nmetadata:\n  namespace: n\n  name: a\n");
    assertEquals(ObjectChange.Status.UNCHANGED, c.status());
  }

  @Test
  @DisplayName("list items with names are keyed by name, so an inserted env var does not shift the others; keys with dots are quoted")
  void namedItems() {
    ObjectChange c = changed("kind: Pod\nmetadata: {labels: {a.io/b: x}}\nenv: [{name: A, value: '1'}, {name: B, value: '2'}]\n",
        "kind: Pod\nmetadata: {labels: {a.io/b: y}}\nenv: [{name: Z, value: '0'}, {name: A, value: '1'}, {name: B, value: '3'}]\n");
    assertEquals(List.of("metadata.labels[\"a.io/b\"]", "env[Z].name", "env[Z].value", "env[B].value"), paths(c));
    FieldChange b = c.fields().get(3);
    assertEquals(Optional.of("2"), b.before());
    assertEquals(Optional.of("3"), b.after());
    assertFalse(b.secret());
  }

  @Test
  @DisplayName("lists without unique names are keyed by index")
  void indexedItems() {
    ObjectChange c = changed("kind: X\nargs: [a, b]\n", "kind: X\nargs: [a, c]\n");
    assertEquals(List.of("args[1]"), paths(c));
  }

  @Test
  @DisplayName("a changed Secret value shows *** (before) / *** (after); data, stringData and last-applied are masked")
  void secretMasked() {
    ObjectChange c = changed("kind: Secret\nmetadata: {name: s, annotations: {kubectl.kubernetes.io/last-applied-configuration: 'old'}}\ndata: {k: c2VjcmV0MQ==}\nstringData: {p: one}\n",
        "kind: Secret\nmetadata: {name: s, annotations: {kubectl.kubernetes.io/last-applied-configuration: 'new'}}\ndata: {k: c2VjcmV0Mg==}\nstringData: {p: two, q: three}\n");
    assertEquals(ObjectChange.SecretForm.PLAIN, c.secret());
    for (FieldChange f : c.fields()) {
      assertTrue(f.secret(), f.path());
      assertTrue(f.before().orElse("***").startsWith("***") && f.after().orElse("***").startsWith("***"), f.toString());
    }
    assertEquals(Optional.of("*** (before)"), c.fields().get(1).before());
    assertEquals(Optional.of("***"), c.fields().get(3).after(), "an added value is just ***");
    assertFalse(c.toString().contains("c2VjcmV0") || c.toString().contains("two") || c.toString().contains("new"), c.toString());
  }

  @Test
  @DisplayName("SealedSecret encryptedData and template data, SOPS ENC values and the sops block are masked; other fields are not")
  void encryptedMasked() {
    ObjectChange sealed = changed("kind: SealedSecret\nmetadata: {name: s}\nspec: {encryptedData: {k: AgAAold}, template: {type: t1, data: {x: tmplold}}}\n",
        "kind: SealedSecret\nmetadata: {name: s}\nspec: {encryptedData: {k: AgAAnew}, template: {type: t2, data: {x: tmplnew}}}\n");
    assertEquals(ObjectChange.SecretForm.SEALED, sealed.secret());
    assertEquals(List.of(true, false, true), sealed.fields().stream().map(FieldChange::secret).toList());
    assertEquals(Optional.of("t2"), sealed.fields().get(1).after());
    ObjectChange sops = changed("kind: Secret\ndata: {k: 'ENC[AES256_GCM,data:AAA,iv:x,tag:y,type:str]'}\nsops: {mac: 'ENC[old]', lastmodified: a}\n",
        "kind: Secret\ndata: {k: 'ENC[AES256_GCM,data:BBB,iv:x,tag:y,type:str]'}\nsops: {mac: 'ENC[new]', lastmodified: b}\n");
    assertEquals(ObjectChange.SecretForm.SOPS, sops.secret());
    assertEquals(List.of("data.k", "sops"), paths(sops));
    assertFalse(sops.toString().contains("AAA") || sops.toString().contains("BBB") || sops.toString().contains("ENC["), sops.toString());
    ObjectChange configMap = changed("kind: ConfigMap\ndata: {token: 'ENC[AES256_GCM,data:AAA]', plain: a}\n", "kind: ConfigMap\ndata: {token: 'ENC[AES256_GCM,data:BBB]', plain: b}\n");
    assertEquals(List.of(true, false), configMap.fields().stream().map(FieldChange::secret).toList());
  }

  @Test
  @DisplayName("an added Secret is shown as YAML with every value masked")
  void addedSecretYaml() {
    ObjectChange c = diff.diff("s.yaml", Optional.empty(), Optional.of("kind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/ssh-auth\ndata: {ssh-privatekey: UFJJVkFURQ==}\n"));
    assertEquals(ObjectChange.Status.ADDED, c.status());
    String yaml = c.yaml().orElseThrow();
    assertTrue(yaml.contains("ssh-privatekey: '***'") || yaml.contains("ssh-privatekey: \"***\""), yaml);
    assertTrue(yaml.contains("type: kubernetes.io/ssh-auth"), yaml);
    assertFalse(yaml.contains("UFJJVkFURQ"), yaml);
  }

  @Test
  @DisplayName("a file that is not a YAML object is never shown, as it may be a broken Secret")
  void unreadable() {
    ObjectChange c = changed("kind: Secret\ndata: {k: djE=}\n", "kind: Secret\ndata: {k: [djI=\n  oops: : :\n");
    assertTrue(c.unreadable());
    assertEquals(ObjectChange.SecretForm.UNKNOWN, c.secret());
    assertEquals(List.of(), c.fields());
    assertEquals(Optional.empty(), c.yaml());
    assertFalse(c.toString().contains("dj"), c.toString());
  }

  @Test
  @DisplayName("a removed object lists no fields; an object without metadata.name is named by its file")
  void removed() {
    ObjectChange c = diff.diff("kustomization.yaml", Optional.of("kind: Kustomization\nresources: [a.yaml]\n"), Optional.empty());
    assertEquals(ObjectChange.Status.REMOVED, c.status());
    assertEquals(List.of(), c.fields());
    assertEquals("Kustomization kustomization.yaml", c.title());
  }

  @Test
  @DisplayName("empty maps and lists and nulls are values of their own: {} → [] → null is a change each time")
  void emptyContainers() {
    ObjectChange c = changed("kind: X\na: {}\nb: []\nc: null\nd: {k: v}\n", "kind: X\na: []\nb: null\nc: {}\nd: {}\n");
    assertEquals(List.of(new FieldChange("a", Optional.of("{}"), Optional.of("[]"), false), new FieldChange("b", Optional.of("[]"), Optional.of("null"), false),
        new FieldChange("c", Optional.of("null"), Optional.of("{}"), false), new FieldChange("d", Optional.empty(), Optional.of("{}"), false),
        new FieldChange("d.k", Optional.of("v"), Optional.empty(), false)), c.fields());
  }

  @Test
  @DisplayName("list items are keyed by name only when every item is an object with a distinct string name")
  void namesMustBeUniqueStrings() {
    assertEquals(List.of("l[1].v"), paths(changed("kind: X\nl: [{name: 1, v: a}, {name: 2, v: b}]\n", "kind: X\nl: [{name: 1, v: a}, {name: 2, v: c}]\n")));
    assertEquals(List.of("l[1].v"), paths(changed("kind: X\nl: [{name: a, v: a}, {name: a, v: b}]\n", "kind: X\nl: [{name: a, v: a}, {name: a, v: c}]\n")));
    assertEquals(List.of("l[1].v"), paths(changed("kind: X\nl: [{name: a, v: a}, {v: b}]\n", "kind: X\nl: [{name: a, v: a}, {v: c}]\n")));
    assertEquals(List.of("l[b].v"), paths(changed("kind: X\nl: [{name: a, v: a}, {name: b, v: b}]\n", "kind: X\nl: [{name: a, v: a}, {name: b, v: c}]\n")));
  }
}
