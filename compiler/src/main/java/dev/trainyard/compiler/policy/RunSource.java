package dev.trainyard.compiler.policy;

import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.source.ParsedDocument;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds where a piece of the {@code run} value stands in train.yaml, so a lint points at the
 * offending flag ({@code train.yaml:3:23}) rather than at the start of {@code run}. The value as
 * parsed differs from the text as written (quotes, escapes, folded lines), so a piece is found by
 * searching the written text of the scalar for the same text, the same number of times; when it
 * cannot be found (an escape inside it), the start of the value is the answer.
 *
 * <pre>
 * RunSource src = new RunSource(doc, "/run", runText);
 * src.at(runText.indexOf("--nnodes"), "--nnodes".length())   // train.yaml:2:15
 * </pre>
 */
final class RunSource {
  /** A line break followed by a character that is not a blank: the line starts at column 1. */
  private static final Pattern NEXT_TOP_LEVEL_LINE = Pattern.compile("\n[^ \t\r\n]");

  private final ParsedDocument doc;
  private final String pointer;
  private final String value;

  /** A script's file name for its locations, or null for a train.yaml scalar. */
  private final String scriptFile;

  /**
   * @param doc the parsed train.yaml
   * @param pointer the scalar's JSON pointer ({@code /run})
   * @param value the scalar's value as parsed
   */
  RunSource(ParsedDocument doc, String pointer, String value) {
    this.doc = doc;
    this.pointer = pointer;
    this.value = value;
    this.scriptFile = null;
  }

  private RunSource(String scriptFile, String text) {
    this.doc = null;
    this.pointer = "";
    this.value = text;
    this.scriptFile = scriptFile;
  }

  /**
   * The words of a script file ({@link WrapperScript}): an offset is its own line and column in
   * {@code file}.
   */
  static RunSource script(String file, String text) {
    return new RunSource(file, text);
  }

  /** The start of the value. */
  SourceLocation start() {
    return scriptFile != null ? new SourceLocation(scriptFile, 1, 1) : doc.map().at(pointer);
  }

  /** The JSON pointer diagnostics at these words carry: {@code /run}, or "" in a script. */
  String pointer() {
    return pointer;
  }

  /**
   * Where {@code value[index, index + length)} is written; the value's start when it is not found.
   *
   * @param index offset in the parsed value
   * @param length number of characters, at least 1 to search
   */
  SourceLocation at(int index, int length) {
    SourceLocation start = start();
    if (length <= 0 || index < 0 || index + length > value.length()) {
      return start;
    }
    if (scriptFile != null) {
      return location(value, index, scriptFile);
    }
    String needle = value.substring(index, index + length);
    int nth = occurrences(value, needle, index);
    String text = doc.source().text();
    int from = offset(text, start.line(), start.column());
    int to = scalarEnd(text, from);
    if (from < text.length() && (text.charAt(from) == '"' || text.charAt(from) == '\'')) {
      // A quoted scalar: its opening quote is YAML's, never part of the value.
      from++;
    }
    int found = from - 1;
    for (int i = 0; i <= nth; i++) {
      found = text.indexOf(needle, found + 1);
      if (found == -1 || found + length > to) {
        return start;
      }
    }
    return location(text, found, start.file());
  }

  /** How often {@code needle} starts in {@code s} before index {@code before}. */
  private static int occurrences(String s, String needle, int before) {
    int count = 0;
    for (int i = s.indexOf(needle); i != -1 && i < before; i = s.indexOf(needle, i + 1)) {
      count++;
    }
    return count;
  }

  /**
   * The offset of 1-based line:column in {@code text}, which has that line (the parser read it
   * there).
   */
  private static int offset(String text, int line, int column) {
    int at = 0;
    for (int l = 1; l < line; l++) {
      at = text.indexOf('\n', at) + 1;
    }
    return at + column - 1;
  }

  /**
   * A top-level scalar ends before the next line that starts at column 1 (a key, a comment, the
   * document end).
   */
  private static int scalarEnd(String text, int from) {
    Matcher next = NEXT_TOP_LEVEL_LINE.matcher(text);
    return next.find(from) ? next.start() + 1 : text.length();
  }

  private static SourceLocation location(String text, int offset, String file) {
    int lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    int line = 1 + (int) text.chars().limit(lineStart).filter(c -> c == '\n').count();
    return new SourceLocation(file, line, offset - lineStart + 1);
  }
}
