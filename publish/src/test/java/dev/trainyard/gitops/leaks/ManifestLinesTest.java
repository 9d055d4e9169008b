package dev.trainyard.gitops.leaks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Which object and field each line of a manifest belongs to: documents, kind: List items, comments.
 */
class ManifestLinesTest {
  private static List<String> places(String text) {
    return Arrays.stream(ManifestLines.of(text))
        .skip(1)
        .map(p -> p.kind() + "/" + p.item() + "/" + p.field())
        .toList();
  }

  @Test
  @DisplayName(
      "documents: each line has its document's kind and top-level field; --- and comments belong to no field")
  void documents() {
    String text =
        "kind: Secret\ndata:\n  k: v\n  # c\n---\napiVersion: v1\nkind: \"ConfigMap\" # x\nmetadata:\n  kind: Deployment\n...\n";
    assertEquals(
        List.of(
            "Secret/0/kind",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/",
            "/0/",
            "ConfigMap/0/apiVersion",
            "ConfigMap/0/kind",
            "ConfigMap/0/metadata",
            "ConfigMap/0/metadata",
            "/0/",
            "/0/"),
        places(text));
  }

  @Test
  @DisplayName(
      "kind: List: each item at the items' dash column is an object of its own; dashes inside an item are not items")
  void listItems() {
    String text =
        "apiVersion: v1\nitems:\n  - kind: Secret\n    data:\n      k: v\n    env:\n    - a\n    - b\n  # note\n  - apiVersion: v1\n"
            + "    kind: ConfigMap\nkind: List\nmetadata: {}\n";
    assertEquals(
        List.of(
            "List/0/apiVersion",
            "List/0/items",
            "Secret/1/kind",
            "Secret/1/data",
            "Secret/1/data",
            "Secret/1/env",
            "Secret/1/env",
            "Secret/1/env",
            "Secret/1/",
            "ConfigMap/2/apiVersion",
            "ConfigMap/2/kind",
            "List/0/kind",
            "List/0/metadata",
            "List/0/metadata"),
        places(text));
  }

  @Test
  @DisplayName(
      "only a Secret's data and stringData may hold a key; the words name field, kind and item")
  void placesDescribed() {
    assertTrue(new ManifestLines.Place("Secret", 0, "data").inSecretData());
    assertTrue(new ManifestLines.Place("Secret", 2, "stringData").inSecretData());
    assertFalse(new ManifestLines.Place("Secret", 0, "metadata").inSecretData());
    assertFalse(new ManifestLines.Place("ConfigMap", 0, "data").inSecretData());
    assertFalse(ManifestLines.Place.NOWHERE.inSecretData());
    assertEquals(
        "the data of a ConfigMap", new ManifestLines.Place("ConfigMap", 0, "data").describe());
    assertEquals(
        "the metadata of an Ingress (item 3 of a List)",
        new ManifestLines.Place("Ingress", 3, "metadata").describe());
    assertEquals(
        "a comment or no field of an object without a kind",
        ManifestLines.Place.NOWHERE.describe());
  }
}
