package dev.trainyard.compiler.render;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import io.pebbletemplates.pebble.PebbleEngine;
import io.pebbletemplates.pebble.error.PebbleException;
import io.pebbletemplates.pebble.loader.StringLoader;
import io.pebbletemplates.pebble.template.PebbleTemplate;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fills Pebble expressions in the <em>string values</em> of a runtime's JobSet skeleton. The
 * skeleton is parsed YAML first, so a template can never produce YAML structure (no indentation
 * bugs, no injection of keys by a user value). Strict mode, as Helm's {@code --strict}: an unknown
 * variable is an error, never an empty string. Autoescaping is off: values go into YAML scalars,
 * which the serializer quotes.
 *
 * <p>Variables: {@code job.name}, {@code job.runName}, {@code job.namespace}, {@code job.nodes},
 * {@code job.procsPerNode}, {@code job.gpus}, {@code runtime.name}, {@code runtime.version}, {@code
 * image}. The only class that imports Pebble.
 */
public final class TemplateRenderer {
  /**
   * Built on the first value that holds an expression (holder idiom): the built-in skeletons hold
   * none, and building the engine loads about 150 Pebble classes, a sizeable part of a cold {@code
   * trainyard compile}.
   */
  private static final class Engine {
    static final PebbleEngine INSTANCE =
        new PebbleEngine.Builder()
            .loader(new StringLoader())
            .strictVariables(true)
            .autoEscaping(false)
            .newLineTrimming(false)
            .cacheActive(false)
            .build();
  }

  /**
   * @param tree the skeleton; rendered in place
   * @param context variables visible to expressions
   * @param origin the runtime file, for diagnostics
   * @return TEMPLATE_ERROR diagnostics, empty when every value rendered
   */
  public List<Diagnostic> renderInPlace(JsonNode tree, Map<String, Object> context, String origin) {
    List<Diagnostic> problems = new ArrayList<>();
    walk(tree, "/jobset", context, origin, problems);
    return problems;
  }

  private void walk(
      JsonNode node, String pointer, Map<String, Object> ctx, String origin, List<Diagnostic> out) {
    if (node instanceof ObjectNode obj) {
      for (Iterator<Map.Entry<String, JsonNode>> it = obj.properties().iterator(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String child = pointer + "/" + e.getKey().replace("~", "~0").replace("/", "~1");
        if (e.getValue().isTextual()) {
          e.setValue(new TextNode(render(e.getValue().asText(), child, ctx, origin, out)));
        } else {
          walk(e.getValue(), child, ctx, origin, out);
        }
      }
    } else if (node instanceof ArrayNode arr) {
      for (int i = 0; i < arr.size(); i++) {
        if (arr.get(i).isTextual()) {
          arr.set(
              i, new TextNode(render(arr.get(i).asText(), pointer + "/" + i, ctx, origin, out)));
        } else {
          walk(arr.get(i), pointer + "/" + i, ctx, origin, out);
        }
      }
    }
  }

  private static final Pattern NO_ATTRIBUTE =
      Pattern.compile("Attribute \\[(.*?)\\] of \\[.*?\\] does not exist.*", Pattern.DOTALL);
  private static final Pattern NO_VARIABLE =
      Pattern.compile("Root attribute \\[(.*?)\\] does not exist.*", Pattern.DOTALL);

  /**
   * Pebble's message without Java class names ("Attribute [nope] of
   * [java.util.ImmutableCollections$MapN] does not exist …" → "it has no field `nope`").
   */
  static String inWords(String pebbleMessage) {
    String said = String.valueOf(pebbleMessage);
    Matcher attribute = NO_ATTRIBUTE.matcher(said);
    if (attribute.matches()) {
      return "a variable it reads has no field `" + attribute.group(1) + "`";
    }
    Matcher variable = NO_VARIABLE.matcher(said);
    if (variable.matches()) {
      return "there is no variable `" + variable.group(1) + "`";
    }
    return said;
  }

  private String render(
      String text, String pointer, Map<String, Object> ctx, String origin, List<Diagnostic> out) {
    if (!text.contains("{{") && !text.contains("{%")) {
      return text;
    }
    try {
      PebbleTemplate template = Engine.INSTANCE.getTemplate(text);
      StringWriter writer = new StringWriter();
      template.evaluate(writer, ctx);
      return writer.toString();
    } catch (PebbleException e) {
      out.add(
          Diagnostic.error(
                  DiagnosticCode.TEMPLATE_ERROR,
                  SourceLocation.ofFile(origin),
                  pointer,
                  "runtime template at " + pointer + " failed: " + inWords(e.getPebbleMessage()))
              .withHint(
                  "this is a problem of the runtime definition; tell the platform team (variables: job.*, runtime.*, image)"));
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
