package dev.trainyard.compiler.source;

import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import java.util.List;
import java.util.Locale;

/**
 * Turns SnakeYAML's problem descriptions into a short message and a hint a user can act on.
 *
 * <p>SnakeYAML reports syntax errors only as English text ({@code
 * MarkedYAMLException.getProblem()}), so this table matches on that text; it is the single place
 * that does, and anything it does not know falls back to the problem text itself, minus SnakeYAML's
 * decorations. Phrases are those of SnakeYAML 2.x ({@code org.yaml.snakeyaml.scanner.ScannerImpl},
 * {@code parser.ParserImpl}).
 */
final class YamlSyntaxMessages {
  /**
   * What to print for one syntax problem.
   *
   * @param atOpening report at the opening bracket or quote (SnakeYAML's context mark, when it
   *     gives one) rather than where the parser gave up, which for an unclosed one is the end of
   *     the file
   */
  record Translation(DiagnosticCode code, String message, String hint, boolean atOpening) {}

  private record Rule(String phrase, DiagnosticCode code, String message, String hint) {}

  private static final String INDENT_HINT =
      "keys of one mapping must start in the same column; indent nested fields by 2 spaces more than their parent";

  private static final List<Rule> RULES =
      List.of(
          new Rule(
              "'\\t(TAB)'",
              DiagnosticCode.TAB_INDENTATION,
              "tab character in indentation",
              "YAML indents with spaces only: replace the tab with spaces (2 per level)"),
          new Rule(
              "mapping values are not allowed here",
              DiagnosticCode.YAML_SYNTAX,
              "unexpected `:` inside a value",
              "quote a value that contains `: ` (`run: \"echo a: b\"`), or put a nested mapping on its own,"
                  + " more indented line"),
          new Rule(
              "could not find expected ':'",
              DiagnosticCode.YAML_SYNTAX,
              "expected `key: value` here",
              INDENT_HINT),
          new Rule(
              "expected <block end>",
              DiagnosticCode.YAML_SYNTAX,
              "this line's indentation does not match the lines above it",
              INDENT_HINT),
          new Rule(
              "did not find expected key",
              DiagnosticCode.YAML_SYNTAX,
              "this line's indentation does not match the lines above it",
              INDENT_HINT),
          new Rule(
              "did not find expected '-' indicator",
              DiagnosticCode.YAML_SYNTAX,
              "list items must all start with `- ` in the same column",
              INDENT_HINT),
          new Rule(
              "expected ',' or ']'",
              DiagnosticCode.YAML_SYNTAX,
              "list opened with `[` is not closed",
              "close the list with `]`, and separate items with `,`"),
          new Rule(
              "expected ',' or '}'",
              DiagnosticCode.YAML_SYNTAX,
              "mapping opened with `{` is not closed",
              "close the mapping with `}`, and separate fields with `,`"),
          new Rule(
              "found unknown escape character",
              DiagnosticCode.YAML_SYNTAX,
              "unknown escape sequence in a double-quoted string",
              "use single quotes for text with backslashes (`'C:\\dir'`), or write `\\\\` for one backslash"),
          new Rule(
              "found unexpected end of stream",
              DiagnosticCode.YAML_SYNTAX,
              "quoted string is not closed",
              "add the closing quote"),
          new Rule(
              "exceeds the limit",
              DiagnosticCode.YAML_SYNTAX,
              "document is too large to parse",
              "split the file, or remove generated content from it"),
          new Rule(
              "that cannot start any token",
              DiagnosticCode.YAML_SYNTAX,
              "this character cannot start a YAML value",
              "quote the value: `key: \"@value\"`; `@` and `` ` `` are reserved in YAML"));

  private YamlSyntaxMessages() {}

  /**
   * @param problem SnakeYAML's problem text, e.g. {@code mapping values are not allowed here}
   */
  static Translation translate(String problem) {
    String text = problem == null ? "" : problem;
    for (Rule rule : RULES) {
      if (text.contains(rule.phrase())) {
        return new Translation(
            rule.code(), rule.message(), rule.hint(), rule.message().contains("not closed"));
      }
    }
    return new Translation(
        DiagnosticCode.YAML_SYNTAX,
        "invalid YAML: " + clean(text),
        "check the YAML syntax at this position (indentation, quotes, `:` after keys)",
        false);
  }

  /**
   * {@link #translate}, knowing whether the problem's line has text before it: a tab SnakeYAML
   * rejects after other text on its line ({@code run:<TAB>torchrun …}) is not indentation, and is
   * named as what it is.
   */
  static Translation translate(String problem, boolean afterText) {
    Translation t = translate(problem);
    if (t.code() == DiagnosticCode.TAB_INDENTATION && afterText) {
      return new Translation(
          DiagnosticCode.TAB_INDENTATION,
          "tab character where YAML expects a space",
          "YAML separates `key:` or `-` from what follows with spaces, not tabs: replace the tab"
              + " with a space",
          false);
    }
    return t;
  }

  /** Jackson's own parse errors (not SnakeYAML's), e.g. a list used as a mapping key. */
  static Translation translateJackson(String originalMessage) {
    String text = originalMessage == null ? "" : originalMessage;
    if (text.startsWith("Expected a field name")) {
      return new Translation(
          DiagnosticCode.YAML_SYNTAX,
          "a key must be plain text, not a list or mapping",
          "write keys as `name:`; `? ` complex keys are not supported",
          false);
    }
    return new Translation(
        DiagnosticCode.YAML_SYNTAX,
        "invalid YAML: " + clean(text),
        "check the YAML syntax at this position",
        false);
  }

  private static String clean(String text) {
    // SnakeYAML decorates a problem with " (…)" details; the first line before them is the problem
    // itself.
    String core = text.lines().findFirst().orElse("").strip().split(" \\(", 2)[0];
    return core.isEmpty()
        ? "unreadable content"
        : core.substring(0, 1).toLowerCase(Locale.ROOT) + core.substring(1);
  }
}
