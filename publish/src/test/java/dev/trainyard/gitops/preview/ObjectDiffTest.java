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
    ObjectChange c =
        changed(
            "kind: ConfigMap\nmetadata: {name: a, namespace: n}\ndata: {k: v, j: w}\n",
            "kind: ConfigMap\ndata:\n  j: w\n  k: v\nmetadata:\n  namespace: n\n  name: a\n");
    assertEquals(ObjectChange.Status.UNCHANGED, c.status());
  }

  @Test
  @DisplayName(
      "list items with names are keyed by name, so an inserted env var does not shift the others; keys with dots are quoted")
  void namedItems() {
    ObjectChange c =
        changed(
            "kind: Pod\nmetadata: {labels: {a.io/b: x}}\nenv: [{name: A, value: '1'}, {name: B, value: '2'}]\n",
            "kind: Pod\nmetadata: {labels: {a.io/b: y}}\nenv: [{name: Z, value: '0'}, {name: A, value: '1'}, {name: B, value: '3'}]\n");
    assertEquals(
        List.of("metadata.labels[\"a.io/b\"]", "env[Z].name", "env[Z].value", "env[B].value"),
        paths(c));
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
  @DisplayName(
      "a changed Secret value shows *** (before) / *** (after); data, stringData and last-applied are masked")
  void secretMasked() {
    ObjectChange c =
        changed(
            "kind: Secret\nmetadata: {name: s, annotations: {kubectl.kubernetes.io/last-applied-configuration: 'old'}}\ndata: {k: c2VjcmV0MQ==}\nstringData: {p: one}\n",
            "kind: Secret\nmetadata: {name: s, annotations: {kubectl.kubernetes.io/last-applied-configuration: 'new'}}\ndata: {k: c2VjcmV0Mg==}\nstringData: {p: two, q: three}\n");
    assertEquals(ObjectChange.SecretForm.PLAIN, c.secret());
    for (FieldChange f : c.fields()) {
      assertTrue(f.secret(), f.path());
      assertTrue(
          f.before().orElse("***").startsWith("***") && f.after().orElse("***").startsWith("***"),
          f.toString());
    }
    assertEquals(Optional.of("*** (before)"), c.fields().get(1).before());
    assertEquals(Optional.of("***"), c.fields().get(3).after(), "an added value is just ***");
    assertFalse(
        c.toString().contains("c2VjcmV0")
            || c.toString().contains("two")
            || c.toString().contains("new"),
        c.toString());
  }

  @Test
  @DisplayName(
      "SealedSecret encryptedData and template data, SOPS ENC values and the sops block are masked; other fields are not")
  void encryptedMasked() {
    ObjectChange sealed =
        changed(
            "kind: SealedSecret\nmetadata: {name: s}\nspec: {encryptedData: {k: AgAAold}, template: {type: t1, data: {x: tmplold}}}\n",
            "kind: SealedSecret\nmetadata: {name: s}\nspec: {encryptedData: {k: AgAAnew}, template: {type: t2, data: {x: tmplnew}}}\n");
    assertEquals(ObjectChange.SecretForm.SEALED, sealed.secret());
    assertEquals(
        List.of(true, false, true), sealed.fields().stream().map(FieldChange::secret).toList());
    assertEquals(Optional.of("t2"), sealed.fields().get(1).after());
    ObjectChange sops =
        changed(
            "kind: Secret\ndata: {k: 'ENC[AES256_GCM,data:AAA,iv:x,tag:y,type:str]'}\nsops: {mac: 'ENC[old]', lastmodified: a}\n",
            "kind: Secret\ndata: {k: 'ENC[AES256_GCM,data:BBB,iv:x,tag:y,type:str]'}\nsops: {mac: 'ENC[new]', lastmodified: b}\n");
    assertEquals(ObjectChange.SecretForm.SOPS, sops.secret());
    assertEquals(List.of("data.k", "sops"), paths(sops));
    assertFalse(
        sops.toString().contains("AAA")
            || sops.toString().contains("BBB")
            || sops.toString().contains("ENC["),
        sops.toString());
    ObjectChange configMap =
        changed(
            "kind: ConfigMap\ndata: {token: 'ENC[AES256_GCM,data:AAA]', plain: a}\n",
            "kind: ConfigMap\ndata: {token: 'ENC[AES256_GCM,data:BBB]', plain: b}\n");
    assertEquals(
        List.of(true, false), configMap.fields().stream().map(FieldChange::secret).toList());
  }

  @Test
  @DisplayName("an added Secret is shown as YAML with every value masked")
  void addedSecretYaml() {
    ObjectChange c =
        diff.diff(
            "s.yaml",
            Optional.empty(),
            Optional.of(
                "kind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/ssh-auth\ndata: {ssh-privatekey: UFJJVkFURQ==}\n"));
    assertEquals(ObjectChange.Status.ADDED, c.status());
    String yaml = c.yaml().orElseThrow();
    assertTrue(
        yaml.contains("ssh-privatekey: '***'") || yaml.contains("ssh-privatekey: \"***\""), yaml);
    assertTrue(yaml.contains("type: kubernetes.io/ssh-auth"), yaml);
    assertFalse(yaml.contains("UFJJVkFURQ"), yaml);
  }

  @Test
  @DisplayName("a file that is not a YAML object is never shown, as it may be a broken Secret")
  void unreadable() {
    ObjectChange c =
        changed("kind: Secret\ndata: {k: djE=}\n", "kind: Secret\ndata: {k: [djI=\n  oops: : :\n");
    assertTrue(c.unreadable());
    assertEquals(ObjectChange.SecretForm.UNKNOWN, c.secret());
    assertEquals(List.of(), c.fields());
    assertEquals(Optional.empty(), c.yaml());
    assertFalse(c.toString().contains("dj"), c.toString());
  }

  @Test
  @DisplayName(
      "a removed object lists no fields; an object without metadata.name is named by its file")
  void removed() {
    ObjectChange c =
        diff.diff(
            "kustomization.yaml",
            Optional.of("kind: Kustomization\nresources: [a.yaml]\n"),
            Optional.empty());
    assertEquals(ObjectChange.Status.REMOVED, c.status());
    assertEquals(List.of(), c.fields());
    assertEquals("Kustomization kustomization.yaml", c.title());
  }

  @Test
  @DisplayName(
      "empty maps and lists and nulls are values of their own: {} → [] → null is a change each time")
  void emptyContainers() {
    ObjectChange c =
        changed(
            "kind: X\na: {}\nb: []\nc: null\nd: {k: v}\n",
            "kind: X\na: []\nb: null\nc: {}\nd: {}\n");
    assertEquals(
        List.of(
            new FieldChange("a", Optional.of("{}"), Optional.of("[]"), false),
            new FieldChange("b", Optional.of("[]"), Optional.of("null"), false),
            new FieldChange("c", Optional.of("null"), Optional.of("{}"), false),
            new FieldChange("d", Optional.empty(), Optional.of("{}"), false),
            new FieldChange("d.k", Optional.of("v"), Optional.empty(), false)),
        c.fields());
  }

  @Test
  @DisplayName(
      "list items are keyed by name only when every item is an object with a distinct string name")
  void namesMustBeUniqueStrings() {
    assertEquals(
        List.of("l[1].v"),
        paths(
            changed(
                "kind: X\nl: [{name: 1, v: a}, {name: 2, v: b}]\n",
                "kind: X\nl: [{name: 1, v: a}, {name: 2, v: c}]\n")));
    assertEquals(
        List.of("l[1].v"),
        paths(
            changed(
                "kind: X\nl: [{name: a, v: a}, {name: a, v: b}]\n",
                "kind: X\nl: [{name: a, v: a}, {name: a, v: c}]\n")));
    assertEquals(
        List.of("l[1].v"),
        paths(
            changed(
                "kind: X\nl: [{name: a, v: a}, {v: b}]\n",
                "kind: X\nl: [{name: a, v: a}, {v: c}]\n")));
    assertEquals(
        List.of("l[b].v"),
        paths(
            changed(
                "kind: X\nl: [{name: a, v: a}, {name: b, v: b}]\n",
                "kind: X\nl: [{name: a, v: a}, {name: b, v: c}]\n")));
  }

  @Test
  @DisplayName(
      "a file that turns unreadable, or readable, is one unreadable change; its status follows the texts")
  void unreadableEitherSide() {
    String ok = "kind: ConfigMap\nmetadata: {name: c}\n";
    String broken = "kind: [\n";
    List<ObjectChange> turned = diff.diffAll("f.yaml", Optional.of(ok), Optional.of(broken));
    assertEquals(1, turned.size());
    assertTrue(turned.get(0).unreadable());
    assertEquals(ObjectChange.Status.CHANGED, turned.get(0).status());
    assertEquals(
        ObjectChange.Status.CHANGED,
        diff.diffAll("f.yaml", Optional.of(broken), Optional.of(ok)).get(0).status());
    assertEquals(
        ObjectChange.Status.ADDED,
        diff.diffAll("f.yaml", Optional.empty(), Optional.of(broken)).get(0).status());
    assertEquals(
        ObjectChange.Status.REMOVED,
        diff.diffAll("f.yaml", Optional.of(broken), Optional.empty()).get(0).status());
    assertEquals(
        ObjectChange.Status.UNCHANGED,
        diff.diffAll("f.yaml", Optional.of(broken), Optional.of(broken)).get(0).status());
    assertEquals(
        ObjectChange.SecretForm.UNKNOWN,
        turned.get(0).secret(),
        "never shown: it may be a broken Secret");
  }

  @Test
  @DisplayName(
      "a file of empty documents holds no object to show (unreadable); an object added to an empty file is added")
  void emptyDocuments() {
    List<ObjectChange> empty = diff.diffAll("f.yaml", Optional.of(""), Optional.of("---\n"));
    assertEquals(1, empty.size());
    assertTrue(empty.get(0).unreadable());
    List<ObjectChange> added =
        diff.diffAll(
            "f.yaml", Optional.of(""), Optional.of("kind: ConfigMap\nmetadata: {name: c}\n"));
    assertEquals(
        List.of(ObjectChange.Status.ADDED), added.stream().map(ObjectChange::status).toList());
    assertEquals("ConfigMap c", added.get(0).title());
  }

  @Test
  @DisplayName(
      "two objects of the same kind and name in one file are both shown, paired by position")
  void sameIdentityTwice() {
    String two =
        "kind: ConfigMap\nmetadata: {name: c}\ndata: {k: '1'}\n---\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: '2'}\n";
    List<ObjectChange> changes =
        diff.diffAll("f.yaml", Optional.of(two), Optional.of(two.replace("'2'", "'3'")));
    assertEquals(
        List.of("f.yaml (object 1 of 2)", "f.yaml (object 2 of 2)"),
        changes.stream().map(ObjectChange::file).toList());
    assertEquals(
        List.of(ObjectChange.Status.UNCHANGED, ObjectChange.Status.CHANGED),
        changes.stream().map(ObjectChange::status).toList());
  }

  @Test
  @DisplayName(
      "a List whose Secret became a ConfigMap still counts as holding Secret data: the old value and the plain one beside it are masked")
  void secretTurnedConfigMap() {
    ObjectChange c =
        changed(
            "kind: List\nitems:\n- {kind: Secret, metadata: {name: s}, data: {k: c2VjcmV0}}\n",
            "kind: List\nitems:\n- {kind: ConfigMap, metadata: {name: s}, data: {k: plain}}\n");
    assertEquals(ObjectChange.SecretForm.PLAIN, c.secret());
    assertEquals(
        List.of(
            new FieldChange(
                "items[0].kind", Optional.of("Secret"), Optional.of("ConfigMap"), false),
            new FieldChange(
                "items[0].data.k", Optional.of("*** (before)"), Optional.of("*** (after)"), true)),
        c.fields());
  }
}
