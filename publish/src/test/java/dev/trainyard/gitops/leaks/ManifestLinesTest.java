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
      "flow style: each line has the field its key opens; a line two fields share has none; a quoted key is its text")
  void flowStyle() {
    String text =
        "{kind: Secret,\n data: {k: v},\n metadata: {name: x}}\n---\n{kind: Secret, data: {k: v}}\n---\n"
            + "apiVersion: v1\nkind: Secret\n\"stringData\":\n  k: v\ndata: {tls.key: x,\n  b: y}\n";
    assertEquals(
        List.of(
            "Secret/0/kind",
            "Secret/0/data",
            "Secret/0/metadata",
            "/0/",
            "Secret/0/",
            "/0/",
            "Secret/0/apiVersion",
            "Secret/0/kind",
            "Secret/0/stringData",
            "Secret/0/stringData",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data"),
        places(text));
    assertEquals(
        List.of("Secret/0/kind", "Secret/0/data", "/0/", "/0/", "/0/"),
        places("--- {kind: Secret,\n  data: {k: v}}\n--- |\n  kind: Secret\n"),
        "a flow document may start on its --- line; a block scalar document is no object");
  }

  @Test
  @DisplayName(
      "documents: comments before and after ---, a comment after the marker, ... ends one; a block scalar's kind:, # and data: lines are its text")
  void documentsAndBlockScalars() {
    String text =
        "# leading\nkind: ConfigMap\ndata:\n  script: |\n    kind: Secret\n    # not a comment\n    data:\n\n"
            + "  other: x\n# trailing of doc 1\n--- # marker comment\n# doc 2 comment\nkind: Secret\n"
            + "stringData:\n  key: |\n    -----BEGIN\n    # inside\n    -----END\n...\n# after the end\n---\n"
            + "kind: Secret\ndata:\n  k: v\n";
    assertEquals(
        List.of(
            "ConfigMap/0/",
            "ConfigMap/0/kind",
            "ConfigMap/0/data",
            "ConfigMap/0/data",
            "ConfigMap/0/data",
            "ConfigMap/0/data",
            "ConfigMap/0/data",
            "ConfigMap/0/data",
            "ConfigMap/0/data",
            "ConfigMap/0/",
            "/0/",
            "Secret/0/",
            "Secret/0/kind",
            "Secret/0/stringData",
            "Secret/0/stringData",
            "Secret/0/stringData",
            "Secret/0/stringData",
            "Secret/0/stringData",
            "/0/",
            "Secret/0/",
            "/0/",
            "Secret/0/kind",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data"),
        places(text));
    assertEquals(
        List.of("/0/", "/0/", "Secret/0/kind", "Secret/0/kind"),
        places("---\n---\nkind: Secret\n"),
        "an empty document is no object");
    assertEquals(List.of("/0/"), places(""));
  }

  @Test
  @DisplayName(
      "a quoted or flow value that goes on at column 1 stays in its field: `data: x` there is text of the metadata, not a Secret's data")
  void continuationAtColumnOne() {
    assertEquals(
        List.of("Secret/0/kind", "Secret/0/metadata", "Secret/0/metadata", "Secret/0/metadata"),
        places("kind: Secret\nmetadata: {annotations: {note: KEY,\ndata: x}}\n"));
    assertEquals(
        List.of(
            "Secret/0/kind",
            "Secret/0/metadata",
            "Secret/0/metadata",
            "Secret/0/metadata",
            "Secret/0/metadata",
            "Secret/0/metadata"),
        places("kind: Secret\nmetadata:\n  annotations:\n    note: \"KEY\ndata: x\"\n"));
  }

  @Test
  @DisplayName(
      "List items: fields indented past the dash, an item starting on the line after its dash, items that are no mapping")
  void listItemsAnyIndentation() {
    String text =
        "kind: List\nitems:\n-   kind: Secret\n    data:\n      k: v\n    metadata:\n      name: a\n-\n"
            + "  kind: ConfigMap\n  data:\n    k: v\n- [a, b]\n- plain\n";
    assertEquals(
        List.of(
            "List/0/kind",
            "List/0/items",
            "Secret/1/kind",
            "Secret/1/data",
            "Secret/1/data",
            "Secret/1/metadata",
            "Secret/1/metadata",
            "Secret/1/metadata",
            "ConfigMap/2/kind",
            "ConfigMap/2/data",
            "ConfigMap/2/data",
            "/3/",
            "/4/",
            "/4/"),
        places(text));
    assertEquals(
        List.of("List/0/", "Secret/2/kind", "Secret/2/kind", "Secret/2/kind"),
        places("{kind: List, items: [{kind: Secret, data: {k: v}},\n  {kind: Secret}]}\n\n"),
        "a line the List's own fields share with an item belongs to no item; the next item's line is its own");
  }

  @Test
  @DisplayName(
      "text that is not YAML belongs to no object from the document SnakeYAML refuses on: a PEM file, tab indentation, a broken second document")
  void notYaml() {
    assertEquals(
        List.of("/0/", "/0/", "/0/", "/0/"),
        places("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n"));
    assertEquals(List.of("/0/", "/0/", "/0/", "/0/"), places("kind: Secret\ndata:\n\tk: v\n"));
    assertEquals(
        List.of("Secret/0/kind", "Secret/0/data", "Secret/0/data", "/0/", "/0/", "/0/"),
        places("kind: Secret\ndata:\n  k: v\n---\nkind: [\n"));
    assertEquals(
        List.of(
            "Secret/0/kind",
            "Secret/0/loop",
            "Secret/0/loop",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/other",
            "Secret/0/other"),
        places("kind: Secret\nloop: &l\n- *l\ndata:\n  k: v\nother: &m [*m]\n"),
        "an alias that holds itself ends");
  }

  @Test
  @DisplayName(
      "lines are counted at \\n as the key scanner counts them: CRLF, a U+2028 or NEL in a scalar, characters outside the BMP")
  void lineBreaks() {
    assertEquals(
        List.of(
            "Secret/0/kind",
            "Secret/0/metadata",
            "Secret/0/metadata",
            "Secret/0/metadata",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data"),
        places(
            "kind: Secret\r\nmetadata:\r\n  name: \"x\u2028y\u0085z\"\r\n  x: \uD83D\uDE00\uD83D\uDE00\r\n"
                + "data:\r\n  k: v\r\n"));
    assertEquals(
        List.of("Secret/0/kind", "Secret/0/data", "Secret/0/data", "Secret/0/data"),
        places("\uFEFFkind: Secret\ndata:\n  k: v\n"),
        "a byte order mark is no character of line 1's field");
  }

  @Test
  @DisplayName(
      "a # line inside a block, quoted or key scalar (also in a list) is text of its field; one beside them is a comment")
  void hashLinesInScalars() {
    String text =
        "kind: Secret\ndata:\n  # comment\n  k: |\n    a\n    # text\n  ? |\n    key\n    # text\n  : v\n"
            + "  l:\n  - \"a\n    # text\"\n  # comment\n";
    assertEquals(
        List.of(
            "Secret/0/kind",
            "Secret/0/data",
            "Secret/0/",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/data",
            "Secret/0/",
            "Secret/0/data"),
        places(text));
  }

  @Test
  @DisplayName(
      "edges: a flow bracket closing on the next key's line, an empty last item, a one-line List, items of no List, a 3.5 MB document")
  void edges() {
    assertEquals(
        List.of("Secret/0/data", "Secret/0/", "Secret/0/kind"),
        places("{data: {k: v\n}, kind: Secret}\n"));
    assertEquals(
        List.of(
            "List/0/kind",
            "List/0/items",
            "Secret/1/kind",
            "Secret/1/data",
            "Secret/1/data",
            "/2/",
            "/2/"),
        places("kind: List\nitems:\n- kind: Secret\n  data:\n    k: v\n-\n"));
    assertEquals(List.of("List/0/"), places("{kind: List, items: [{kind: Secret}]}"));
    assertEquals(
        List.of(
            "Secret/0/kind",
            "Secret/0/items",
            "Secret/0/items",
            "Secret/0/items",
            "Secret/0/items",
            "Secret/0/items"),
        places("kind: Secret\nitems:\n- kind: Secret\n  data:\n    k: v\n"),
        "only a List's items are objects");
    StringBuilder big = new StringBuilder("kind: ConfigMap\ndata:\n");
    while (big.length() < 3_500_000) {
      big.append("  k").append(big.length()).append(": ").append("v".repeat(80)).append('\n');
    }
    List<String> bigPlaces = places(big + "---\nkind: Secret\ndata:\n  k: v\n");
    assertEquals(
        List.of("/0/", "Secret/0/kind", "Secret/0/data", "Secret/0/data", "Secret/0/data"),
        bigPlaces.subList(bigPlaces.size() - 5, bigPlaces.size()),
        "past SnakeYAML's 3 MB default limit a file is still read");
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
