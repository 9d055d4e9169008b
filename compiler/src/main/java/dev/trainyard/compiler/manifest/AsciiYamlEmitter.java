package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Writes a JSON tree as block YAML byte for byte as {@link YamlWriter#YAML} (Jackson's {@code
 * YAMLGenerator} over SnakeYAML's {@code Emitter}) writes it, about ten times faster, for the trees
 * a compile makes: every key and string printable ASCII (plus line feeds in values), keys shorter
 * than 128 characters, numbers that are ints or longs. Anything else is not written ({@link #write}
 * returns empty) and the caller uses Jackson's writer. Writing the output YAML through SnakeYAML's
 * event machine was ~40 % of a warm compile (issue #24).
 *
 * <p>The rules it follows are SnakeYAML 2.5's, as Jackson 2.21 configures it (indent 2, width 80,
 * split lines, indentless sequences in mappings, empty collections as {@code {}}/{@code []}, LF):
 * Jackson picks a requested style per scalar ({@code YAMLGenerator.writeString}: literal for text
 * with a line feed, double-quoted when {@code MINIMIZE_QUOTES}' checker or {@code PLAIN_NUMBER_P}
 * asks, else plain; keys plain unless {@code needToQuoteName}); SnakeYAML then analyses the text
 * ({@code Emitter.analyzeScalar}) and may fall back to single- or double-quoted ({@code
 * chooseScalarStyle}), and breaks plain and quoted scalars at a space past column 80 ({@code
 * writePlain}, {@code writeSingleQuoted}, {@code writeDoubleQuoted}). {@code AsciiYamlEmitterTest}
 * compares both writers on every golden file and on random trees.
 */
final class AsciiYamlEmitter {
  private static final int INDENT = 2;
  private static final int WIDTH = 80;
  private static final int MAX_SIMPLE_KEY = 128;

  private enum Style {
    PLAIN,
    SINGLE,
    DOUBLE,
    LITERAL
  }

  /** Thrown inside the walk when a node is outside what this writer reproduces. */
  private static final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unsupported() {
      super(null, null, false, false);
    }
  }

  private static final Unsupported UNSUPPORTED = new Unsupported();

  private final Quoting quoting;

  /**
   * One buffer per thread, kept between calls: growing a fresh builder to a JobSet's ~15 KB was
   * about a tenth of this writer's time.
   */
  private static final ThreadLocal<StringBuilder> BUFFER =
      ThreadLocal.withInitial(() -> new StringBuilder(32 * 1024));

  private final StringBuilder out;

  /**
   * SnakeYAML's indent stack ({@code Emitter.indents}), with {@link #NONE} for its {@code null} (no
   * indent yet); ints, as boxing one per scalar was 7 % of a warm compile (issue #24).
   */
  private int[] indents = new int[32];

  private int depth;
  private int indent = NONE;

  private static final int NONE = -1;
  private int column;
  private boolean whitespace = true;
  private boolean indention = true;

  /**
   * Which strings Jackson's {@code StringQuotingChecker} double-quotes, as values and as keys
   * ({@link YamlWriter}'s own checker: this class imports no Jackson YAML).
   */
  record Quoting(Predicate<String> value, Predicate<String> name) {}

  private AsciiYamlEmitter(Quoting quoting, StringBuilder out) {
    this.quoting = quoting;
    this.out = out;
  }

  /**
   * The YAML text of {@code node} with its keys sorted ({@link String#compareTo}) as Jackson writes
   * the sorted tree with {@code quoting}, or empty when the tree holds something this writer does
   * not reproduce (then nothing was written anywhere).
   */
  static Optional<String> write(JsonNode node, Quoting quoting) {
    if (node.isTextual() && node.textValue().isEmpty()) {
      return Optional.empty(); // SnakeYAML starts an empty document with "---"
    }
    StringBuilder buffer = BUFFER.get();
    buffer.setLength(0);
    AsciiYamlEmitter emitter = new AsciiYamlEmitter(quoting, buffer);
    try {
      emitter.node(node, false, false);
    } catch (Unsupported e) {
      return Optional.empty();
    }
    emitter.writeIndent(); // SnakeYAML's document end
    String text = buffer.toString();
    if (buffer.capacity() > 1 << 20) {
      BUFFER.remove(); // keep no megabyte buffer for the rest of the process
    }
    return Optional.of(text);
  }

  private void node(JsonNode node, boolean mapping, boolean simpleKey) {
    switch (node.getNodeType()) {
      case OBJECT -> mappingNode(node);
      case ARRAY -> sequence(node, mapping);
      case STRING -> scalar(node.textValue(), requested(node.textValue()), simpleKey);
      case BOOLEAN -> scalar(node.booleanValue() ? "true" : "false", Style.PLAIN, simpleKey);
      case NULL -> scalar("null", Style.PLAIN, simpleKey);
      case NUMBER -> {
        if (!node.isInt() && !node.isLong()) {
          throw UNSUPPORTED;
        }
        scalar(String.valueOf(node.longValue()), Style.PLAIN, simpleKey);
      }
      default -> throw UNSUPPORTED;
    }
  }

  /** The style Jackson's {@code writeString} asks for. */
  private Style requested(String text) {
    if (text.isEmpty()) {
      return Style.DOUBLE;
    }
    if (text.indexOf('\n') >= 0) {
      return Style.LITERAL;
    }
    return quoting.value().test(text) || plainNumber(text) ? Style.DOUBLE : Style.PLAIN;
  }

  /** Jackson's {@code YAMLGenerator.PLAIN_NUMBER_P}, {@code [+-]?[0-9]*(\\.[0-9]*)?}, by hand. */
  static boolean plainNumber(String text) {
    int i = text.isEmpty() || (text.charAt(0) != '+' && text.charAt(0) != '-') ? 0 : 1;
    boolean dot = false;
    for (; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '.' && !dot) {
        dot = true;
      } else if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private void mappingNode(JsonNode node) {
    if (node.isEmpty()) {
      writeIndicator("{", true, true, false);
      writeIndicator("}", false, false, false);
      return;
    }
    increaseIndent(false, false);
    List<String> names = new ArrayList<>(node.size());
    node.fieldNames().forEachRemaining(names::add);
    names.sort(String::compareTo);
    for (String name : names) {
      writeIndent();
      if (name.isEmpty() || name.length() >= MAX_SIMPLE_KEY || name.indexOf('\n') >= 0) {
        throw UNSUPPORTED; // SnakeYAML writes a complex key ("? ...")
      }
      scalar(name, quoting.name().test(name) ? Style.DOUBLE : Style.PLAIN, true);
      writeIndicator(":", false, false, false);
      node(node.get(name), true, false);
    }
    popIndent();
  }

  private void sequence(JsonNode node, boolean mapping) {
    if (node.isEmpty()) {
      writeIndicator("[", true, true, false);
      writeIndicator("]", false, false, false);
      return;
    }
    increaseIndent(false, mapping && !indention);
    for (JsonNode item : node) {
      writeIndent();
      writeIndicator("-", true, false, true);
      node(item, false, false);
    }
    popIndent();
  }

  /**
   * One scalar in the style SnakeYAML's {@code chooseScalarStyle} picks in block context. A plain
   * or double-quoted request never holds a line break here (values with one are asked as literal
   * blocks; keys with one are declined), so the analysis is that of one line.
   */
  private void scalar(String text, Style requested, boolean simpleKey) {
    Style style;
    if (requested == Style.LITERAL) {
      style = literalOrDouble(text);
    } else {
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c < 0x20 || c > 0x7E) {
          throw UNSUPPORTED; // escapes, unicode, tabs and breaks stay with SnakeYAML
        }
      }
      style = requested == Style.DOUBLE || plainAllowed(text) ? requested : Style.SINGLE;
    }
    increaseIndent(true, false);
    boolean split = !simpleKey;
    switch (style) {
      case PLAIN -> writePlain(text, split);
      case SINGLE -> writeSingleQuoted(text, split);
      case DOUBLE -> writeDoubleQuoted(text, split);
      case LITERAL -> writeLiteral(text);
    }
    popIndent();
  }

  /**
   * A multi-line value: SnakeYAML allows a literal block unless a line ends in a space (a space
   * before a break, or at the end) or a character is special; then the text is double-quoted (it
   * was not asked plain or single-quoted).
   */
  private static Style literalOrDouble(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\n' && (c < 0x20 || c > 0x7E)) {
        throw UNSUPPORTED;
      }
    }
    boolean block = text.charAt(text.length() - 1) != ' ' && text.indexOf(" \n") < 0;
    return block ? Style.LITERAL : Style.DOUBLE;
  }

  /**
   * SnakeYAML's {@code analyzeScalar} verdict {@code allowBlockPlain} for one non-empty line of
   * printable ASCII: no leading or trailing space, no {@code 0[0-9_]+}, no document marker, no
   * indicator that would start another node ({@code #,[]{}&*!|>'"%@`} first, {@code ? : -} first
   * before a space, {@code :} before a space, {@code #} after one). Otherwise it is single-quoted.
   */
  static boolean plainAllowed(String s) {
    int n = s.length();
    if (n == 0 || s.charAt(0) == ' ' || s.charAt(n - 1) == ' ' || leadingZero(s)) {
      return false;
    }
    if (s.startsWith("---") || s.startsWith("...")) {
      return false;
    }
    char first = s.charAt(0);
    boolean followedBySpace = n == 1 || s.charAt(1) == ' ';
    if ("#,[]{}&*!|>'\"%@`".indexOf(first) >= 0
        || ((first == '?' || first == ':' || first == '-') && followedBySpace)) {
      return false;
    }
    for (int i = 1; i < n; i++) {
      char c = s.charAt(i);
      // SnakeYAML's "followed by whitespace" for the character at i looks at i + 1 (the end
      // counts as whitespace); "preceded" at i - 1.
      boolean followed = i + 1 >= n || s.charAt(i + 1) == ' ';
      if ((c == ':' && followed) || (c == '#' && s.charAt(i - 1) == ' ')) {
        return false;
      }
    }
    return true;
  }

  /** SnakeYAML's {@code hasLeadingZero}: {@code 0[0-9_]+}. */
  private static boolean leadingZero(String s) {
    if (s.length() < 2 || s.charAt(0) != '0') {
      return false;
    }
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c >= '0' && c <= '9') && c != '_') {
        return false;
      }
    }
    return true;
  }

  private void increaseIndent(boolean flow, boolean indentless) {
    if (depth == indents.length) {
      indents = Arrays.copyOf(indents, depth * 2);
    }
    indents[depth++] = indent;
    if (indent == NONE) {
      indent = flow ? INDENT : 0;
    } else if (!indentless) {
      indent += INDENT;
    }
  }

  private void popIndent() {
    indent = indents[--depth];
  }

  private void writeIndicator(
      String indicator, boolean needWhitespace, boolean whitespaceAfter, boolean indentation) {
    if (!whitespace && needWhitespace) {
      column++;
      out.append(' ');
    }
    whitespace = whitespaceAfter;
    indention = indention && indentation;
    column += indicator.length();
    out.append(indicator);
  }

  private void writeIndent() {
    int at = indent == NONE ? 0 : indent;
    if (!indention || column > at || (column == at && !whitespace)) {
      writeLineBreak();
    }
    if (at > column) {
      whitespace = true;
      for (; column < at; column++) {
        out.append(' ');
      }
    }
  }

  private void writeLineBreak() {
    whitespace = true;
    indention = true;
    column = 0;
    out.append('\n');
  }

  private void write(String text, int start, int end) {
    column += end - start;
    append(text, start, end);
  }

  /**
   * {@code text[start, end)} onto the buffer. Java 17's {@code StringBuilder.append(CharSequence,
   * int, int)} copies a String char by char; {@code append(String)} copies its bytes at once, so a
   * part goes through a substring ({@code substring} of the whole text is the text itself): the
   * literal blocks (run scripts) were a third of this writer's time (issue #24).
   */
  private void append(String text, int start, int end) {
    out.append(text.substring(start, end));
  }

  /**
   * SnakeYAML's {@code writePlain} for text without line breaks (a plain scalar never has one here:
   * values with a break are asked as literal blocks, keys with one are declined).
   */
  private void writePlain(String text, boolean split) {
    if (!whitespace) {
      column++;
      out.append(' ');
    }
    whitespace = false;
    indention = false;
    if (column + text.length() <= WIDTH || text.indexOf(' ') < 0) {
      write(text, 0, text.length()); // no break can fall in it: SnakeYAML breaks at spaces past 80
      return;
    }
    boolean spaces = false;
    int start = 0;
    for (int end = 0; end <= text.length(); end++) {
      char ch = end < text.length() ? text.charAt(end) : 0;
      if (spaces) {
        if (ch != ' ') {
          if (start + 1 == end && column > WIDTH && split) {
            writeIndent();
            whitespace = false;
            indention = false;
          } else {
            write(text, start, end);
          }
          start = end;
        }
      } else if (ch == 0 || ch == ' ') {
        write(text, start, end);
        start = end;
      }
      spaces = ch == ' ';
    }
  }

  /**
   * SnakeYAML's {@code writeSingleQuoted} for text without line breaks (see {@link #writePlain}).
   */
  private void writeSingleQuoted(String text, boolean split) {
    writeIndicator("'", true, false, false);
    boolean spaces = false;
    int start = 0;
    for (int end = 0; end <= text.length(); end++) {
      char ch = end < text.length() ? text.charAt(end) : 0;
      if (spaces) {
        if (ch != ' ') {
          if (start + 1 == end && column > WIDTH && split && start != 0 && end != text.length()) {
            writeIndent();
          } else {
            write(text, start, end);
          }
          start = end;
        }
      } else if ((ch == 0 || ch == ' ' || ch == '\'') && start < end) {
        write(text, start, end);
        start = end;
      }
      if (ch == '\'') {
        column += 2;
        out.append("''");
        start = end + 1;
      }
      spaces = ch == ' ';
    }
    writeIndicator("'", false, false, false);
  }

  private void writeDoubleQuoted(String text, boolean split) {
    writeIndicator("\"", true, false, false);
    int n = text.length();
    int start = 0;
    for (int end = 0; end <= n; end++) {
      boolean atEnd = end == n;
      char ch = atEnd ? 0 : text.charAt(end);
      if (atEnd || ch == '"' || ch == '\\' || ch == '\n') {
        if (start < end) {
          write(text, start, end);
          start = end;
        }
        if (!atEnd) {
          String escaped = ch == '\n' ? "\\n" : "\\" + ch;
          column += escaped.length();
          out.append(escaped);
          start = end + 1;
        }
      }
      if (0 < end
          && end < n - 1
          && (ch == ' ' || start >= end)
          && column + (end - start) > WIDTH
          && split) {
        if (start < end) {
          write(text, start, end);
          start = end;
        }
        column++;
        out.append('\\');
        writeIndent();
        whitespace = false;
        indention = false;
        if (text.charAt(start) == ' ') {
          column++;
          out.append('\\');
        }
      }
    }
    writeIndicator("\"", false, false, false);
  }

  private void writeLiteral(String text) {
    String indentation = text.charAt(0) == ' ' || text.charAt(0) == '\n' ? "" + INDENT : "";
    char last = text.charAt(text.length() - 1);
    String chomping;
    if (last != '\n') {
      chomping = "-";
    } else if (text.length() == 1 || text.charAt(text.length() - 2) == '\n') {
      chomping = "+";
    } else {
      chomping = "";
    }
    writeIndicator("|" + indentation + chomping, true, false, false);
    writeLineBreak();
    // SnakeYAML's writeLiteral, line by line: each non-empty line indented, each break written,
    // and a final break when the text has none. scalar() raised the indent before: never NONE here.
    int at = indent;
    int start = 0;
    while (start < text.length()) {
      int end = text.indexOf('\n', start);
      int stop = end < 0 ? text.length() : end;
      if (stop > start) {
        for (int i = 0; i < at; i++) {
          out.append(' ');
        }
        append(text, start, stop);
      }
      out.append('\n');
      start = stop + 1;
    }
    whitespace = true;
    indention = true;
    column = 0;
  }
}
