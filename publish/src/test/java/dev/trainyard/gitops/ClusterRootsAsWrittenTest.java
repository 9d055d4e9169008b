package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.EmitStage;
import dev.trainyard.compiler.source.SourceFile;
import dev.trainyard.compiler.source.YamlDocumentLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterRoots#asWritten} reads a root kustomization without a YAML parser only when the
 * parser would read the same tree (issue #24: a 10,000-run namespace root on every submit).
 */
class ClusterRootsAsWrittenTest {
  private static final String K =
      "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n";

  private static JsonNode parsed(String text) {
    return new YamlDocumentLoader().load(new SourceFile("k", text)).value().orElseThrow().root();
  }

  @Test
  @DisplayName(
      "roots as Trainyard writes them (runs, _queues, _cluster, checkpoint folders) are read as the YAML parser reads them")
  void writtenRoots() {
    String text =
        EmitStage.kustomization(
            List.of("_queues", "demo-3fa2c1", "_checkpoint-demo-1a2b", "j001-00ab12", "a/b-c.d"));
    assertEquals(parsed(text), ClusterRoots.asWritten(text).orElseThrow());
  }

  @Test
  @DisplayName(
      "anything else is left to the parser: typed-looking or quoted names, a name without - or _, comments, CRLF, no final newline, more keys, an empty list")
  void othersParsed() {
    for (String text :
        List.of(
            K + "- true\n",
            K + "- 1-2\n",
            K + "- default\n",
            K + "- \"a-b\"\n",
            K + "- a-b # note\n",
            K + "- a-b\r\n",
            K + "- a-b",
            K + "- a-b\nnamespace: x\n",
            K + "-  a-b\n",
            K + "- .a-b\n",
            K + "- ä-b\n",
            K,
            "kind: Kustomization\nresources:\n- a-b\n")) {
      assertTrue(ClusterRoots.asWritten(text).isEmpty(), text);
    }
  }

  @Test
  @DisplayName(
      "5,000 random lists of names: whenever read without the parser, the parser reads the same")
  void randomAsParser() {
    Random random = new Random(24);
    String safe = "abZ09_-./";
    String hostile = " :#'\"yn~";
    int read = 0;
    for (int i = 0; i < 5_000; i++) {
      List<String> names = new ArrayList<>();
      int n = 1 + random.nextInt(4);
      for (int j = 0; j < n; j++) {
        StringBuilder s = new StringBuilder();
        int len = 1 + random.nextInt(8);
        for (int c = 0; c < len; c++) {
          String from = random.nextInt(40) == 0 ? hostile : safe;
          s.append(from.charAt(random.nextInt(from.length())));
        }
        names.add(s.toString());
      }
      StringBuilder text = new StringBuilder(K);
      names.forEach(name -> text.append("- ").append(name).append('\n'));
      Optional<com.fasterxml.jackson.databind.node.ObjectNode> fast =
          ClusterRoots.asWritten(text.toString());
      if (fast.isPresent()) {
        assertEquals(parsed(text.toString()), fast.get(), text.toString());
        read++;
      }
    }
    assertTrue(read > 300, "read without the parser only " + read + " times");
  }
}
