package dev.trainyard.gitops.leaks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.composer.Composer;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.DocumentEndEvent;
import org.yaml.snakeyaml.events.DocumentStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Which Kubernetes object, and which of its top-level fields, each line of a manifest file belongs
 * to: the leak check allows a key only in the {@code data} or {@code stringData} of a Secret. An
 * object is a YAML document ({@code ---} starts one, {@code ...} ends one), or an item of a {@code
 * kind: List} document's {@code items} (kubectl, kustomize and Argo CD apply each item as an object
 * of its own). Read from SnakeYAML's node tree and its start and end marks, so block and flow
 * style, quoted keys and block scalars are told apart as YAML defines them: a field runs from its
 * key's line to the line before the next key of its object (or the object's end); a comment line
 * outside a scalar belongs to no field; a line two fields share (flow style, {@code {kind: Secret,
 * data: {...}}}) belongs to none; {@code ---} and {@code ...} lines belong to no object. Text that
 * is not YAML, from the first document SnakeYAML refuses on, belongs to no object, so a key in it
 * is reported rather than allowed.
 *
 * <pre>
 * kind: List          line 1: the List, field kind
 * items:
 * - kind: Secret      line 3: item 1, a Secret, field kind
 *   data:
 *     key: LS0t...    line 5: item 1, a Secret, field data   (the only kind of line that may hold a key)
 * </pre>
 *
 * <p>Lines are counted at {@code \n} as {@link KeyScanner} counts them; marks are mapped to them by
 * their code point index, since SnakeYAML also breaks lines at a lone {@code \r}, NEL and U+2028.
 */
final class ManifestLines {
  /** A kind as a Kubernetes kind is spelled; anything else is no kind for a diagnostic. */
  private static final Pattern KIND = Pattern.compile("[A-Za-z0-9]+");

  /** A field name fit to print in a diagnostic. */
  private static final Pattern FIELD = Pattern.compile("[A-Za-z0-9_.\\-/]{1,100}");

  /**
   * Where one line sits.
   *
   * @param kind the object's {@code kind}, or "" when it has none
   * @param item 1-based index of the List item, or 0 for a document
   * @param field the object's top-level field the line belongs to, or "" (a comment, a document
   *     marker)
   */
  record Place(String kind, int item, String field) {
    static final Place NOWHERE = new Place("", 0, "");

    /** Whether the line holds a Secret's data, where a plain Secret keeps its key. */
    boolean inSecretData() {
      return kind.equals("Secret") && (field.equals("data") || field.equals("stringData"));
    }

    /** The words for a diagnostic, e.g. {@code the metadata of a Secret (item 2 of a List)}. */
    String describe() {
      String object =
          kind.isEmpty()
              ? "an object without a kind"
              : (kind.matches("[AEIOU].*") ? "an " : "a ") + kind;
      String where =
          field.isEmpty() ? "a comment or no field of " + object : "the " + field + " of " + object;
      return item == 0 ? where : where + " (item " + item + " of a List)";
    }
  }

  private final String[] lines;
  private final int[] codePoints;

  /** Code point index of each {@code \n}, ascending. */
  private final int[] breaks;

  private final Place[] places;

  /** Lines after the first of a multi-line scalar: a {@code #} there is text, not a comment. */
  private final BitSet inScalar = new BitSet();

  private ManifestLines(String text) {
    lines = text.split("\r?\n", -1);
    codePoints = text.codePoints().toArray();
    breaks = IntStream.range(0, codePoints.length).filter(i -> codePoints[i] == '\n').toArray();
    places = new Place[lines.length + 1];
    Arrays.fill(places, Place.NOWHERE);
  }

  /**
   * {@code places[n]} is where 1-based line {@code n} of {@code text} sits ({@code places[0]} is
   * unused).
   */
  static Place[] of(String text) {
    ManifestLines m = new ManifestLines(text);
    m.read(text);
    return m.places;
  }

  private void read(String text) {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(Math.max(options.getCodePointLimit(), codePoints.length + 1));
    Markers markers = new Markers(new ParserImpl(new StreamReader(text), options));
    Composer composer = new Composer(markers, new Resolver(), options);
    int first = 1;
    try {
      while (composer.checkNode()) {
        Node root = composer.getNode();
        first = document(root, markers, first) + 1;
      }
    } catch (YAMLException e) {
      // Not YAML from here on: these lines stay NOWHERE, so a key in them is reported.
    }
  }

  /**
   * One document, from line {@code first} to its end; returns its last line ({@code ...} when it
   * has one).
   */
  private int document(Node root, Markers markers, int first) {
    DocumentEndEvent end = markers.end;
    int endLine = line(end.getStartMark());
    // An implicit end is marked where the next token starts: the next `---`, or the end of text.
    boolean atEndOfText = end.getStartMark().getIndex() >= codePoints.length;
    int last = !end.getExplicit() && atEndOfText ? endLine : endLine - 1;
    collectScalarLines(root, Collections.newSetFromMap(new IdentityHashMap<>()));
    if (root instanceof MappingNode object) {
      object(object, 0, first, last);
    }
    int startLine = line(markers.start.getStartMark());
    if (markers.start.getExplicit() && startLine != line(root.getStartMark())) {
      places[startLine] = Place.NOWHERE;
    }
    return end.getExplicit() ? endLine : last;
  }

  /** The lines {@code [from, to]} of one object: each to its top-level field, or none. */
  private void object(MappingNode object, int item, int from, int to) {
    String kind = kind(object);
    List<NodeTuple> entries = object.getValue();
    List<int[]> spans = new ArrayList<>();
    for (NodeTuple t : entries) {
      spans.add(new int[] {line(t.getKeyNode().getStartMark()), lastLine(t.getValueNode())});
    }
    int[] owner = owners(spans, from, to);
    for (int n = from; n <= to; n++) {
      String field = owner[n] < 0 ? "" : field(entries.get(owner[n]).getKeyNode());
      places[n] = comment(n) ? new Place(kind, item, "") : new Place(kind, item, field);
    }
    if (!kind.equals("List")) {
      return;
    }
    for (int j = 0; j < entries.size(); j++) {
      if (entries.get(j).getValueNode() instanceof SequenceNode items
          && field(entries.get(j).getKeyNode()).equals("items")) {
        items(items, range(owner, j, from, to));
      }
    }
  }

  /** A List's items, within the lines {@code span} of its {@code items} field. */
  private void items(SequenceNode items, int[] span) {
    if (span.length == 0) {
      return;
    }
    List<Node> value = items.getValue();
    List<int[]> spans = new ArrayList<>();
    for (Node item : value) {
      spans.add(new int[] {line(item.getStartMark()), lastLine(item)});
    }
    int[] owner = owners(spans, span[0], span[1]);
    for (int k = 0; k < value.size(); k++) {
      int[] own = range(owner, k, span[0], span[1]);
      if (own.length == 0) {
        continue;
      }
      if (value.get(k) instanceof MappingNode object) {
        object(object, k + 1, own[0], own[1]);
      } else {
        for (int n = own[0]; n <= own[1]; n++) {
          places[n] = new Place("", k + 1, "");
        }
      }
    }
  }

  /**
   * For each line of {@code [from, to]} ({@code owner[line]}), the index of the span ({@code {first
   * line, last line}} of a field or an item, in order) that holds it: from its first line to the
   * line before the next one's first (the last one: to {@code to}), and on to its own last line; -1
   * before the first span, or where two spans meet on a line.
   */
  private int[] owners(List<int[]> spans, int from, int to) {
    int[] owner = new int[places.length];
    Arrays.fill(owner, -1);
    BitSet shared = new BitSet();
    for (int j = 0; j < spans.size(); j++) {
      int stop = j + 1 < spans.size() ? Math.max(spans.get(j + 1)[0] - 1, spans.get(j)[1]) : to;
      for (int n = Math.max(from, spans.get(j)[0]); n <= Math.min(stop, to); n++) {
        shared.set(n, owner[n] >= 0);
        owner[n] = j;
      }
    }
    shared.stream().forEach(n -> owner[n] = -1);
    return owner;
  }

  /**
   * {@code [first, last]} of the lines of {@code [from, to]} that {@code owner} gives to {@code
   * index}, or empty if none.
   */
  private static int[] range(int[] owner, int index, int from, int to) {
    int first = -1;
    int last = -1;
    for (int n = from; n <= to; n++) {
      if (owner[n] == index) {
        first = first < 0 ? n : first;
        last = n;
      }
    }
    return first < 0 ? new int[0] : new int[] {first, last};
  }

  /**
   * The line of the last character before {@code node}'s end mark that is not white space. For a
   * scalar or a flow collection that is its own last character; SnakeYAML ends a block scalar and a
   * block collection at the next token instead, past line breaks and, for a collection, comments,
   * so theirs may be a comment line after them, but never past the line before the next token.
   */
  private int lastLine(Node node) {
    int i = Math.min(node.getEndMark().getIndex(), codePoints.length) - 1;
    while (i > node.getStartMark().getIndex() && Character.isWhitespace(codePoints[i])) {
      i--;
    }
    return lineAt(Math.max(i, node.getStartMark().getIndex()));
  }

  /** Marks the lines after the first of every multi-line scalar under {@code node}. */
  private void collectScalarLines(Node node, Set<Node> seen) {
    if (!seen.add(node)) {
      return;
    }
    if (node instanceof ScalarNode) {
      // lastLine is never before the start line: set(first + 1, first + 1) sets nothing.
      inScalar.set(line(node.getStartMark()) + 1, lastLine(node) + 1);
    } else if (node instanceof MappingNode m) {
      for (NodeTuple t : m.getValue()) {
        collectScalarLines(t.getKeyNode(), seen);
        collectScalarLines(t.getValueNode(), seen);
      }
    } else if (node instanceof SequenceNode s) {
      s.getValue().forEach(n -> collectScalarLines(n, seen));
    }
  }

  private boolean comment(int line) {
    return !inScalar.get(line) && lines[line - 1].strip().startsWith("#");
  }

  /** The object's {@code kind} scalar when it is spelled as a kind, else "". */
  private static String kind(MappingNode object) {
    for (NodeTuple t : object.getValue()) {
      if (t.getKeyNode() instanceof ScalarNode key
          && key.getValue().equals("kind")
          && t.getValueNode() instanceof ScalarNode value
          && KIND.matcher(value.getValue()).matches()) {
        return value.getValue();
      }
    }
    return "";
  }

  /** A plain or quoted key's text when it can be printed, else "". */
  private static String field(Node key) {
    return key instanceof ScalarNode s && FIELD.matcher(s.getValue()).matches() ? s.getValue() : "";
  }

  /** 1-based line ({@code \n}-counted) of a mark. */
  private int line(Mark mark) {
    return lineAt(Math.min(mark.getIndex(), codePoints.length));
  }

  /** 1-based line of code point {@code index}. */
  private int lineAt(int index) {
    int at = Arrays.binarySearch(breaks, index);
    return (at >= 0 ? at : -at - 1) + 1;
  }

  /**
   * The parser the composer reads, remembering the markers of the document it composed last: its
   * start ({@code ---} when explicit) and end ({@code ...} when explicit).
   */
  private static final class Markers implements Parser {
    private final Parser parser;
    DocumentStartEvent start;
    DocumentEndEvent end;

    Markers(Parser parser) {
      this.parser = parser;
    }

    @Override
    public boolean checkEvent(Event.ID choice) {
      return parser.checkEvent(choice);
    }

    @Override
    public Event peekEvent() {
      return parser.peekEvent();
    }

    @Override
    public Event getEvent() {
      Event e = parser.getEvent();
      if (e instanceof DocumentStartEvent s) {
        start = s;
      } else if (e instanceof DocumentEndEvent d) {
        end = d;
      }
      return e;
    }
  }
}
