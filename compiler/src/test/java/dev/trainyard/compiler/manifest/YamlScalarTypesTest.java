package dev.trainyard.compiler.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.yaml.snakeyaml.Yaml;

/**
 * Strings stay strings on the way to the cluster: everything {@link YamlWriter} emits is read back
 * by a YAML 1.1 reader (SnakeYAML, whose resolver is YAML 1.1's like Go's yaml.v2 under kubectl and
 * sigs.k8s.io/yaml) and a YAML 1.2 core-schema reader (snakeyaml-engine), and every string must
 * come back as the same string — never an int, float, bool, null or timestamp.
 */
class YamlScalarTypesTest {
  static final List<String> TRICKY =
      List.of(
          "1e-4",
          "2E5",
          "1e4",
          "1E+4",
          "6.8523015e+5",
          "685.230_15e+03",
          "685_230.15",
          "0x1F",
          "0X1F",
          "0o17",
          "0b101",
          "0b1010_0111",
          "0x_0A_74_AE",
          "1_000",
          "+1",
          "-1",
          "012",
          "0777",
          "08",
          "09.5",
          ".5",
          "+.5",
          "1.",
          "3.10",
          "-0",
          "0.0",
          ".inf",
          "-.inf",
          "+.Inf",
          ".INF",
          ".nan",
          ".NaN",
          ".NAN",
          "1:30",
          "190:20:30",
          "-1:30",
          "1:30.5",
          "~",
          "null",
          "Null",
          "NULL",
          "",
          "yes",
          "Yes",
          "YES",
          "no",
          "No",
          "NO",
          "on",
          "On",
          "ON",
          "off",
          "Off",
          "OFF",
          "y",
          "Y",
          "n",
          "N",
          "true",
          "True",
          "TRUE",
          "false",
          "False",
          "FALSE",
          "2026-01-01",
          "2001-12-14t21:59:43.10-05:00",
          "2001-12-14 21:59:43.10 -5",
          "<<",
          "=",
          "29500",
          "00",
          "1e",
          "e5",
          "0x",
          "1__0",
          "1.2.3",
          "2.13.0-1",
          "v1",
          "10Gi",
          "500m",
          "a: b",
          "- x",
          "#x",
          "x #y",
          "@x",
          "`x",
          "!x",
          "&x",
          "*x",
          "%x",
          "|",
          ">",
          "?",
          "-",
          ":",
          "'x'",
          "\"x\"",
          "[x]",
          "{x}",
          " lead",
          "trail ",
          "tab\tin",
          "multi\nline\n",
          "multi\nline",
          "ünï",
          "$$HOME");

  @Test
  @DisplayName(
      "every tricky string written by YamlWriter reads back as the same string in YAML 1.1 (SnakeYAML) and 1.2 (snakeyaml-engine)")
  void trickyStringsStayStrings() {
    List<String> wrong = new ArrayList<>();
    for (String value : TRICKY) {
      ObjectNode node = CanonicalJson.mapper().createObjectNode().put("v", value);
      node.putObject("data").put(value.isEmpty() ? "k" : value, value);
      String yaml = YamlWriter.write(node);
      try {
        assertStrings(node, yaml, value);
      } catch (AssertionError | RuntimeException e) {
        wrong.add(
            value
                + " → "
                + yaml.lines().findFirst().orElse("")
                + " ("
                + e.getMessage().lines().findFirst().orElse("")
                + ")");
      }
    }
    assertEquals(List.of(), wrong);
  }

  @Test
  @DisplayName(
      "every value of every golden tree reads back with the types Trainyard wrote, in YAML 1.1 and 1.2")
  void goldenTreesKeepTypes() throws IOException {
    Path golden = Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("golden");
    List<Path> files;
    try (Stream<Path> walk = Files.walk(golden)) {
      files =
          walk.filter(p -> p.toString().contains("/expected/") && p.toString().endsWith(".yaml"))
              .sorted()
              .toList();
    }
    assertTrue(files.size() > 100, "golden trees: " + files.size() + " files");
    for (Path file : files) {
      String yaml = Files.readString(file, StandardCharsets.UTF_8);
      JsonNode written = YAMLMapper.builder().build().readTree(yaml);
      assertStrings(written, yaml, file.toString());
    }
  }

  /**
   * SnakeYAML (1.1) and snakeyaml-engine (1.2) read {@code yaml} to the same tree, strings as
   * strings.
   */
  private static void assertStrings(JsonNode expected, String yaml, String what) {
    Object v11 = new Yaml().load(yaml);
    Object v12 = new Load(LoadSettings.builder().build()).loadFromString(yaml);
    assertEquals(plain(expected), v11, what + ": YAML 1.1 reads\n" + yaml);
    assertEquals(plain(expected), v12, what + ": YAML 1.2 reads\n" + yaml);
  }

  /**
   * The Java value a YAML reader should give for {@code node}: maps, lists, strings, Integer/Long,
   * Boolean.
   */
  private static Object plain(JsonNode node) {
    if (node.isObject()) {
      Map<String, Object> map = new LinkedHashMap<>();
      node.properties().forEach(e -> map.put(e.getKey(), plain(e.getValue())));
      return map;
    }
    if (node.isArray()) {
      List<Object> list = new ArrayList<>();
      node.forEach(n -> list.add(plain(n)));
      return list;
    }
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.isBoolean()) {
      return node.asBoolean();
    }
    if (node.isIntegralNumber()) {
      return node.canConvertToInt() ? (Object) node.asInt() : (Object) node.asLong();
    }
    return node.isNull() ? null : node.asDouble();
  }
}
