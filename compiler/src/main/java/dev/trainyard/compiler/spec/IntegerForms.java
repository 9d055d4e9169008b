package dev.trainyard.compiler.spec;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.source.ParsedDocument;
import dev.trainyard.compiler.source.SourceMap;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * E205 for an integer train.yaml writes in a form two YAML versions read differently: {@code nodes:
 * 010} is octal 8 to YAML 1.1 (Trainyard's loader, and Kubernetes' {@code sigs.k8s.io/yaml}) but
 * decimal 10 to YAML 1.2 (the editor schema named in train.yaml's first line); {@code 0b11}, {@code
 * 1_000} are integers only to YAML 1.1 and text to YAML 1.2 (YAML 1.2.2 §10.3.2, Core Schema tag
 * resolution; YAML 1.1 "int" type). Decimal, {@code 0x} hexadecimal, and a leading zero that does
 * not change the value ({@code 02}, {@code 00}) mean the same to both. Fields Trainyard takes as
 * written ({@link TrainSpecBinder#boundAsWritten}: {@code env} and {@code mpi.mca} values, {@code
 * resources.cpu}) keep their text and are not checked.
 */
final class IntegerForms {
  /** An integer YAML 1.1 and 1.2 both read, to the same value: decimal or 0x hexadecimal. */
  private static final Pattern SAME = Pattern.compile("[-+]?(0|[1-9][0-9]*|0x[0-9a-fA-F]+)");

  /** A leading-zero integer: octal to YAML 1.1, decimal to YAML 1.2. */
  private static final Pattern LEADING_ZERO = Pattern.compile("([-+]?)0+([0-9]+)");

  private IntegerForms() {}

  /** E205 at each integer of {@code doc} not written in plain decimal. */
  static List<Diagnostic> check(ParsedDocument doc) {
    List<Diagnostic> out = new ArrayList<>();
    walk(doc, doc.root(), "", out);
    return out;
  }

  private static void walk(
      ParsedDocument doc, JsonNode node, String pointer, List<Diagnostic> out) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        walk(doc, e.getValue(), SourceMap.child(pointer, e.getKey()), out);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        walk(doc, node.get(i), SourceMap.child(pointer, i), out);
      }
    } else if (node.isIntegralNumber() && !TrainSpecBinder.boundAsWritten(pointer)) {
      doc.map()
          .scalarText(pointer)
          .filter(text -> !SAME.matcher(text).matches() && !sameValue(text, node))
          .ifPresent(
              text ->
                  out.add(
                      Diagnostic.error(
                              DiagnosticCode.INVALID_VALUE,
                              doc.map().at(pointer),
                              pointer,
                              "`"
                                  + text
                                  + "` is "
                                  + node.asText()
                                  + " to YAML 1.1 (Trainyard, Kubernetes) but "
                                  + yaml12(text)
                                  + " to YAML 1.2 (editors using train.yaml's schema line)")
                          .withHint("write it in decimal: " + written(pointer, node.asText()))));
    }
  }

  /**
   * {@code decimal} as the line to write at {@code pointer}: {@code `nodes: 8`} for a field, the
   * bare number for a list item ({@code /checkpoint/recoverOnExitCodes/1}).
   */
  static String written(String pointer, String decimal) {
    String leaf = SourceMap.leaf(pointer);
    return leaf.matches("[0-9]+") ? decimal : "`" + leaf + ": " + decimal + "`";
  }

  /** What YAML 1.2's core schema makes of {@code text}, an integer to YAML 1.1 only. */
  static String yaml12(String text) {
    var zero = LEADING_ZERO.matcher(text);
    return zero.matches() ? zero.group(1) + zero.group(2) : "the text \"" + text + "\"";
  }

  /** Whether YAML 1.2 reads {@code text} as the same number YAML 1.1 made {@code node} of. */
  private static boolean sameValue(String text, JsonNode node) {
    var zero = LEADING_ZERO.matcher(text);
    return zero.matches()
        && new BigInteger(zero.group(1) + zero.group(2)).equals(node.bigIntegerValue());
  }
}
