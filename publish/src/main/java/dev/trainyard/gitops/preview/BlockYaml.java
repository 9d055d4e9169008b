package dev.trainyard.gitops.preview;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Reads the block YAML Trainyard writes into GitOps trees (the compiler's {@code YamlWriter}) into
 * the JSON tree Jackson's YAML mapper reads from it, several times faster, and declines everything
 * else: {@link #read} is then empty and {@link YamlTrees} parses the text with Jackson. Parsing
 * every JobSet of a preview through SnakeYAML's scanner was ~30 % of a preview of 500 runs (issue
 * #24).
 *
 * <p>What it reads: one document of printable ASCII and line feeds whose root is a block mapping;
 * block mappings and sequences (compact {@code - key: v} items and sequences at their key's
 * indentation included); keys plain or double-quoted on one line; values plain (folded over
 * continuation lines), single- or double-quoted (escapes {@code \" \\ \n}, an escaped space, and
 * escaped line breaks), literal blocks ({@code |} with an indentation digit and chomping), {@code
 * {}} and {@code []}. A plain value is typed by SnakeYAML's own {@link Resolver}, as Jackson's
 * {@code YAMLParser} types it: a string, a decimal int ({@code IntNode}, {@code LongNode} past
 * {@code int}), {@code true}, {@code false} or {@code null}; any other type (floats, octal, {@code
 * yes}, timestamps) is declined. Declined too: comments, document markers, directives, anchors,
 * aliases, tags, flow collections with content, folded blocks, complex keys, duplicate keys, tabs,
 * carriage returns and any other character. {@code BlockYamlTest} compares it with Jackson on every
 * golden file and on random trees. Thread-safe (a reader per call; the resolver is only read).
 */
final class BlockYaml {
  /** SnakeYAML's YAML 1.1 implicit types, as Jackson's {@code YAMLParser} builds one. */
  private static final Resolver RESOLVER = new Resolver();

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /**
   * SnakeYAML's limits as Jackson's YAML factory sets them: a document of at most 3 MiB code points
   * ({@code LoaderOptions.codePointLimit}), a simple key of at most 1,024 characters from its first
   * character to its colon ({@code ScannerImpl}); past them Jackson fails, so this reader declines.
   */
  private static final int MAX_LENGTH = 3 * 1024 * 1024;

  private static final int MAX_KEY = 1024;

  /** Characters that start something other than a plain scalar or a plain key. */
  private static final String INDICATORS = "-?:,[]{}#&*!|>'\"%@`";

  /** Thrown inside the walk when the text is outside what this reader reads. */
  private static final class Declined extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Declined() {
      super(null, null, false, false);
    }
  }

  private static final Declined DECLINED = new Declined();

  private final String text;

  /** Start offset of each line. */
  private final int[] starts;

  /** End offset of each line (its line feed, or the text's end). */
  private final int[] ends;

  /** Leading spaces of each line; -1 for a blank line (spaces only). */
  private final int[] indents;

  /** The current line. */
  private int line;

  /** Collections open around the current one. */
  private int depth;

  /**
   * Deeper nesting is declined: compiled manifests nest ~15 deep, and this keeps a hostile file
   * from overflowing the stack (Jackson's own limit, {@code StreamReadConstraints}, is 1,000).
   */
  private static final int MAX_DEPTH = 64;

  private BlockYaml(String text, int[] starts, int[] ends, int[] indents) {
    this.text = text;
    this.starts = starts;
    this.ends = ends;
    this.indents = indents;
  }

  /**
   * The object {@code text} holds, as Jackson's {@code ObjectMapper.readTree} over its YAML factory
   * reads it; empty when the text is outside what this reader reads (not an error: the caller
   * parses it with Jackson).
   */
  static Optional<JsonNode> read(String text) {
    if (text.length() > MAX_LENGTH) {
      return Optional.empty();
    }
    int lines = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        lines++;
      } else if (c < 0x20 || c > 0x7E) {
        return Optional.empty();
      }
    }
    if (!text.isEmpty() && !text.endsWith("\n")) {
      lines++; // a last line without its line feed (after a final one there is no line)
    }
    int[] starts = new int[lines];
    int[] ends = new int[lines];
    int[] indents = new int[lines];
    int at = 0;
    for (int l = 0; l < lines; l++) {
      int end = text.indexOf('\n', at);
      end = end < 0 ? text.length() : end;
      starts[l] = at;
      ends[l] = end;
      int i = at;
      while (i < end && text.charAt(i) == ' ') {
        i++;
      }
      indents[l] = i == end ? -1 : i - at;
      if (i == at && marker(text, at, end)) {
        return Optional.empty(); // a document marker: SnakeYAML ends or starts a document there
      }
      at = end + 1;
    }
    try {
      return Optional.of(new BlockYaml(text, starts, ends, indents).document());
    } catch (Declined e) {
      return Optional.empty();
    }
  }

  private JsonNode document() {
    skipBlank();
    if (line >= starts.length || indents[line] != 0 || dashAt(0)) {
      throw DECLINED; // empty, a sequence or a scalar at the root, or an indented root
    }
    return mapping(0, 0); // ends only at the text's end: no line is indented less than column 0
  }

  // ---- structure

  /**
   * A block mapping whose keys are at column {@code column}; its first key starts at that column of
   * the current line (after a sequence's dash for a compact mapping).
   */
  private ObjectNode mapping(int column, int first) {
    open();
    ObjectNode out = NODES.objectNode();
    int col = first;
    while (true) {
      int pos = starts[line] + col;
      int colon;
      String key;
      if (charAt(pos) == '"' || charAt(pos) == '\'') {
        boolean single = charAt(pos) == '\'';
        int close = single ? closingSingleQuote(pos) : closingQuoteOrEnd(pos);
        if (close < 0) {
          throw DECLINED;
        }
        key =
            single
                ? text.substring(pos + 1, close).replace("''", "'")
                : unescapeOneLine(pos + 1, close);
        colon = close + 1;
        if (charAt(colon) != ':') {
          throw DECLINED;
        }
      } else {
        colon = keyColon(pos);
        key = text.substring(pos, colon);
        plainKey(key);
      }
      if (colon - pos > MAX_KEY) {
        throw DECLINED;
      }
      int after = colon + 1;
      JsonNode value;
      if (after == ends[line]) {
        line++;
        value = blockValue(column);
      } else {
        if (charAt(after) != ' ') {
          throw DECLINED;
        }
        int v = after;
        while (charAt(v) == ' ') {
          v++;
        }
        value = inlineValue(column, v);
      }
      if (out.has(key)) {
        throw DECLINED; // Jackson keeps the last, kubectl refuses: leave it to the full parser
      }
      out.set(key, value);
      skipBlank();
      if (line >= starts.length || indents[line] < column) {
        depth--;
        return out;
      }
      if (indents[line] > column || dashAt(column)) {
        throw DECLINED;
      }
      col = column;
    }
  }

  /** A sequence whose dashes are at column {@code column}, the first on the current line. */
  private ArrayNode sequence(int column) {
    open();
    ArrayNode out = NODES.arrayNode();
    while (true) {
      int dash = starts[line] + column;
      JsonNode item;
      if (dash + 1 == ends[line]) {
        line++;
        skipBlank();
        if (line >= starts.length || indents[line] <= column) {
          throw DECLINED; // an empty item is null
        }
        item = node(indents[line]);
      } else {
        int v = dash + 1;
        while (charAt(v) == ' ') {
          v++;
        }
        item = compact(column, v - starts[line]);
      }
      out.add(item);
      skipBlank();
      if (line >= starts.length || indents[line] < column) {
        depth--;
        return out;
      }
      if (indents[line] > column) {
        throw DECLINED;
      }
      if (!dashAt(column)) {
        depth--;
        return out; // the next key of the mapping this sequence is the value of
      }
    }
  }

  private void open() {
    if (++depth > MAX_DEPTH) {
      throw DECLINED;
    }
  }

  /** The block node starting the current line at {@code column}: a sequence or a mapping. */
  private JsonNode node(int column) {
    return dashAt(column) ? sequence(column) : mapping(column, column);
  }

  /** A sequence item that starts on its dash's line, at column {@code col}. */
  private JsonNode compact(int column, int col) {
    int pos = starts[line] + col;
    char c = charAt(pos);
    if (c == '-' && (pos + 1 == ends[line] || charAt(pos + 1) == ' ')) {
      return sequence(col);
    }
    if (c == '"' || c == '\'') {
      int close = c == '"' ? closingQuoteOrEnd(pos) : closingSingleQuote(pos);
      if (close >= 0 && charAt(close + 1) == ':') {
        return mapping(col, col); // a quoted key
      }
    } else if (keyColonOrEnd(pos) >= 0) {
      return mapping(col, col);
    }
    return inlineValue(column, pos);
  }

  /** The value of a key that ends its line: a block node below it, or a sequence at its column. */
  private JsonNode blockValue(int column) {
    skipBlank();
    if (line >= starts.length) {
      throw DECLINED; // an empty value is null
    }
    if (indents[line] > column) {
      return node(indents[line]);
    }
    if (indents[line] == column && dashAt(column)) {
      return sequence(column);
    }
    throw DECLINED;
  }

  // ---- scalars

  /**
   * The value starting at offset {@code pos} of the current line, in a collection at column {@code
   * column}; leaves the current line at its last line.
   */
  private JsonNode inlineValue(int column, int pos) {
    char c = charAt(pos);
    switch (c) {
      case '"' -> {
        return TextNode.valueOf(doubleQuoted(column, pos));
      }
      case '\'' -> {
        return TextNode.valueOf(singleQuoted(column, pos));
      }
      case '|' -> {
        return TextNode.valueOf(literal(column, pos));
      }
      case '{', '[' -> {
        if (pos + 2 != ends[line] || charAt(pos + 1) != (c == '{' ? '}' : ']')) {
          throw DECLINED; // a flow collection with content
        }
        line++;
        return c == '{' ? NODES.objectNode() : NODES.arrayNode();
      }
      default -> {
        if (INDICATORS.indexOf(c) >= 0 && !plainStart(c, charAt(pos + 1))) {
          throw DECLINED;
        }
        return plain(column, pos);
      }
    }
  }

  /** A plain scalar from {@code pos}, folded over lines indented past {@code column}, typed. */
  private JsonNode plain(int column, int pos) {
    StringBuilder value = new StringBuilder();
    plainLine(pos, ends[line]);
    value.append(text, pos, ends[line]);
    line++;
    while (line < starts.length && indents[line] > column) {
      int from = starts[line] + indents[line];
      char c = charAt(from);
      if (c == '#' || (c == '-' && (from + 1 == ends[line] || charAt(from + 1) == ' '))) {
        throw DECLINED;
      }
      plainLine(from, ends[line]);
      value.append(' ').append(text, from, ends[line]);
      line++;
    }
    // A blank line and then a deeper one (a line feed inside the scalar) is declined by the caller:
    // its collection finds a line indented past its column.
    return typed(value.toString());
  }

  /** One line of a plain scalar: no comment, no key separator, no trailing space. */
  private void plainLine(int from, int to) {
    if (text.charAt(to - 1) == ' ' || text.charAt(to - 1) == ':') {
      throw DECLINED;
    }
    for (int i = from; i < to - 1; i++) {
      char c = text.charAt(i);
      char next = text.charAt(i + 1);
      if ((c == ':' && next == ' ') || (c == ' ' && next == '#')) {
        throw DECLINED;
      }
    }
  }

  /** The value of a plain scalar as Jackson's {@code YAMLParser} reads it, or declined. */
  static JsonNode typed(String value) {
    Tag tag = RESOLVER.resolve(NodeId.scalar, value, true);
    if (tag.equals(Tag.STR)) {
      return TextNode.valueOf(value);
    }
    if (tag.equals(Tag.INT) && decimal(value)) {
      long n;
      try {
        n = Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw DECLINED; // past a long: Jackson's BigInteger
      }
      return n == (int) n ? IntNode.valueOf((int) n) : LongNode.valueOf(n);
    }
    if (tag.equals(Tag.BOOL) && (value.equals("true") || value.equals("false"))) {
      return BooleanNode.valueOf(value.equals("true"));
    }
    if (tag.equals(Tag.NULL) && value.equals("null")) {
      return NullNode.getInstance();
    }
    throw DECLINED;
  }

  /** {@code -?(0|[1-9][0-9]*)} with at most 19 digits (a long's). */
  private static boolean decimal(String s) {
    int i = s.startsWith("-") ? 1 : 0;
    int digits = s.length() - i;
    if (digits < 1 || digits > 19 || (s.charAt(i) == '0' && digits > 1)) {
      return false;
    }
    for (; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * A double-quoted scalar starting at {@code pos}; may continue over escaped line breaks on lines
   * indented past {@code column}.
   */
  private String doubleQuoted(int column, int pos) {
    StringBuilder out = new StringBuilder();
    int i = pos + 1;
    while (true) {
      if (i >= ends[line]) {
        throw DECLINED; // an unescaped line break folds: not written here
      }
      char c = text.charAt(i);
      if (c == '"') {
        endOfLine(i + 1);
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        i++;
        continue;
      }
      if (i + 1 == ends[line]) { // an escaped line break: the next line's indentation is dropped
        nextContinuation(column);
        i = starts[line] + indents[line];
        continue;
      }
      out.append(escape(text.charAt(i + 1)));
      i += 2;
    }
  }

  /**
   * A single-quoted scalar starting at {@code pos}; a line break before a line indented past {@code
   * column} folds to a space.
   */
  private String singleQuoted(int column, int pos) {
    StringBuilder out = new StringBuilder();
    int i = pos + 1;
    while (true) {
      if (i >= ends[line]) {
        if (text.charAt(i - 1) == ' ') {
          throw DECLINED;
        }
        nextContinuation(column);
        out.append(' ');
        i = starts[line] + indents[line];
        continue;
      }
      char c = text.charAt(i);
      if (c == '\'') {
        if (charAt(i + 1) == '\'') {
          out.append('\'');
          i += 2;
          continue;
        }
        endOfLine(i + 1);
        return out.toString();
      }
      out.append(c);
      i++;
    }
  }

  /**
   * A literal block scalar whose header ({@code |}, indentation digit, chomping) is at {@code pos},
   * in a collection at column {@code column}; its content follows on the next lines.
   */
  private String literal(int column, int pos) {
    int digit = 0;
    char chomp = ' ';
    for (int i = pos + 1; i < ends[line]; i++) {
      char c = text.charAt(i);
      if (c >= '1' && c <= '9' && digit == 0) {
        digit = c - '0';
      } else if ((c == '-' || c == '+') && chomp == ' ') {
        chomp = c;
      } else {
        throw DECLINED; // a comment or anything else after the header
      }
    }
    line++;
    int indent;
    if (digit > 0) {
      indent = column + digit;
    } else {
      if (line >= starts.length || indents[line] <= column) {
        throw DECLINED; // auto-detection over leading blank lines or an empty block
      }
      indent = indents[line];
    }
    List<String> lines = new ArrayList<>();
    while (line < starts.length) {
      int length = ends[line] - starts[line];
      if (indents[line] < 0 && length <= indent) {
        lines.add("");
      } else if (indents[line] >= 0 && indents[line] < indent) {
        break;
      } else {
        lines.add(text.substring(starts[line] + indent, ends[line]));
      }
      line++;
    }
    if (line >= starts.length && !text.endsWith("\n")) {
      throw DECLINED; // the block's last line has no line break: SnakeYAML adds none
    }
    int content = lines.size();
    while (content > 0 && lines.get(content - 1).isEmpty()) {
      content--;
    }
    // The trailing blank lines belong to the block (for chomping) only up to where it ends.
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < content; i++) {
      out.append(lines.get(i)).append('\n');
    }
    int trailing = lines.size() - content;
    if (chomp == '-') {
      return content == 0 ? "" : out.substring(0, out.length() - 1);
    }
    if (chomp == '+') {
      return out + "\n".repeat(trailing);
    }
    return out.toString();
  }

  /**
   * Moves to the next line of a quoted scalar: it must be indented past the collection's column (a
   * blank line, or one at the column, a document marker among them, is declined).
   */
  private void nextContinuation(int column) {
    line++;
    if (line >= starts.length || indents[line] <= column) {
      throw DECLINED;
    }
  }

  private static char escape(char c) {
    return switch (c) {
      case '"' -> '"';
      case '\\' -> '\\';
      case 'n' -> '\n';
      case ' ' -> ' ';
      default -> throw DECLINED; // \t, \x41, \u00e9 and the rest stay with SnakeYAML
    };
  }

  // ---- keys and lines

  /** Where the plain key starting at {@code pos} ends (its colon), or declined. */
  private int keyColon(int pos) {
    int colon = keyColonOrEnd(pos);
    if (colon < 0) {
      throw DECLINED;
    }
    return colon;
  }

  /** The first colon followed by a space or the line's end, from {@code pos}; -1 when none. */
  private int keyColonOrEnd(int pos) {
    for (int i = pos; i < ends[line]; i++) {
      if (text.charAt(i) == ':' && (i + 1 == ends[line] || text.charAt(i + 1) == ' ')) {
        return i;
      }
    }
    return -1;
  }

  private static void plainKey(String key) {
    if (key.isEmpty()
        || (INDICATORS.indexOf(key.charAt(0)) >= 0
            && !plainStart(key.charAt(0), key.length() > 1 ? key.charAt(1) : 0))
        || key.endsWith(" ")
        || key.contains(" #")) {
      throw DECLINED;
    }
  }

  /**
   * Whether an indicator {@code c} followed by {@code next} (0 at the line's end) still starts a
   * plain scalar: {@code - ? :} before a non-space (SnakeYAML's {@code checkPlain}).
   */
  private static boolean plainStart(char c, char next) {
    return (c == '-' || c == '?' || c == ':') && next != ' ' && next != 0;
  }

  /** The closing quote of the single-quoted text at {@code pos} on its line; -1 when none. */
  private int closingSingleQuote(int pos) {
    for (int i = pos + 1; i < ends[line]; i++) {
      if (text.charAt(i) == '\'') {
        if (charAt(i + 1) != '\'') {
          return i;
        }
        i++;
      }
    }
    return -1;
  }

  /** The closing quote of the double-quoted text at {@code pos} on its line; -1 when none. */
  private int closingQuoteOrEnd(int pos) {
    for (int i = pos + 1; i < ends[line]; i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '"') {
        return i;
      }
    }
    return -1;
  }

  private String unescapeOneLine(int from, int to) {
    StringBuilder out = new StringBuilder(to - from);
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        out.append(escape(text.charAt(++i)));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** After a closed scalar at {@code pos}: nothing may follow on its line; moves to the next. */
  private void endOfLine(int pos) {
    if (pos != ends[line]) {
      throw DECLINED;
    }
    line++;
  }

  /** Whether the line from {@code start} to {@code end} starts with {@code ---} or {@code ...}. */
  private static boolean marker(String text, int start, int end) {
    return end - start >= 3
        && (text.startsWith("---", start) || text.startsWith("...", start))
        && (end - start == 3 || text.charAt(start + 3) == ' ');
  }

  /** Whether the current line has a sequence dash at {@code column}. */
  private boolean dashAt(int column) {
    int pos = starts[line] + column;
    return charAt(pos) == '-' && (pos + 1 == ends[line] || charAt(pos + 1) == ' ');
  }

  private void skipBlank() {
    while (line < starts.length && indents[line] < 0) {
      line++;
    }
  }

  /** The character at {@code pos}, or 0 past the current line. */
  private char charAt(int pos) {
    return pos < ends[line] ? text.charAt(pos) : 0;
  }
}
