package dev.trainyard.compiler.source;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactoryBuilder;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.diagnostic.DiagnosticCode;
import dev.trainyard.compiler.diagnostic.SourceLocation;
import dev.trainyard.compiler.diagnostic.StageResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.DocumentStartEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.NodeEvent;
import org.yaml.snakeyaml.reader.ReaderException;
import org.yaml.snakeyaml.reader.StreamReader;

/**
 * The load stage: reads a user-owned YAML file into a Jackson tree plus a {@link SourceMap}. The
 * compiler's only class that imports jackson-dataformat-yaml and SnakeYAML (the leak check's {@code
 * ManifestLines} reads SnakeYAML's node marks too).
 *
 * <pre>
 * StageResult&lt;SourceFile&gt; file = YamlDocumentLoader.readFile(path, "train.yaml");
 * StageResult&lt;ParsedDocument&gt; doc = new YamlDocumentLoader().load(file.value().orElseThrow());
 * </pre>
 *
 * <p>Every bad input is a {@link Diagnostic} with line, column and hint, never an exception: syntax
 * errors ({@code E101}), tabs in indentation ({@code E102}, every line at once), duplicate keys
 * ({@code E103}), anchors and aliases ({@code E104}; refused outright, which also defeats "billion
 * laughs" alias bombs), an empty or comments-only file ({@code E106}), a top level that is not a
 * mapping ({@code E107}) and more than one document ({@code E110}). Scalars keep Jackson's YAML
 * typing: {@code 4} is an int, {@code 1.0} a double, {@code true} — and YAML 1.1's {@code
 * yes}/{@code on}/{@code no}/{@code off} — a boolean, {@code ~} null; quoted scalars are strings.
 * Safety limits stay on: SnakeYAML's code point limit and Jackson's nesting depth. Thread-safe;
 * keep one instance.
 */
public final class YamlDocumentLoader {
  /**
   * Largest file accepted by {@link #readFile}, in bytes (1 MiB): a train.yaml is a few hundred
   * bytes.
   */
  public static final long MAX_FILE_BYTES = 1024 * 1024;

  /**
   * Longest line accepted (the longest in a real file, a SealedSecret's ciphertext, is about
   * 1,100).
   */
  public static final int MAX_LINE_CHARS = 16_384;

  /** Deepest nesting accepted; a JobSet skeleton needs about 20 levels. */
  static final int MAX_NESTING_DEPTH = 100;

  private static final Pattern NON_CONTENT =
      Pattern.compile("\\s*(#.*)?|(---|\\.\\.\\.)\\s*(#.*)?");

  private final WatchingFactory factory = new WatchingFactory(factoryBuilder());

  /**
   * Reads {@code path} as UTF-8 text, refusing files over {@link #MAX_FILE_BYTES} ({@code E105}),
   * invalid UTF-8 ({@code E109}) and unreadable paths ({@code E108}).
   *
   * @param displayPath the path to print in diagnostics, e.g. {@code examples/ddp/train.yaml}
   */
  public static StageResult<SourceFile> readFile(Path path, String displayPath) {
    SourceLocation at = SourceLocation.ofFile(displayPath);
    if (isSpecial(path)) {
      // A FIFO or device would block or never end; only plain files are read.
      return StageResult.failed(
          List.of(
              Diagnostic.error(
                      DiagnosticCode.FILE_UNREADABLE,
                      at,
                      "",
                      displayPath + " is not a regular file")
                  .withHint("pass the path of a YAML file")));
    }
    try {
      byte[] bytes;
      try (InputStream in = Files.newInputStream(path)) {
        // One byte over the limit tells a file that is too large without reading all of it (nor
        // racing its size).
        bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
      }
      if (bytes.length > MAX_FILE_BYTES) {
        return StageResult.failed(List.of(tooLarge(at, Files.size(path))));
      }
      // new String replaces each malformed sequence with U+FFFD: without one the bytes were valid
      // UTF-8, and the strict decode that finds the bad byte runs only for a text with one.
      String text = new String(bytes, StandardCharsets.UTF_8);
      var bad =
          text.indexOf('\uFFFD') < 0
              ? Optional.<Utf8Text.BadByte>empty()
              : Utf8Text.firstBadByte(bytes);
      if (bad.isPresent()) {
        return StageResult.failed(List.of(notUtf8(displayPath, bad.get())));
      }
      return StageResult.of(new SourceFile(displayPath, text), List.of());
    } catch (IOException e) {
      return StageResult.failed(List.of(unreadable(at, path, e)));
    }
  }

  /**
   * Whether {@code path} exists and is neither a folder nor a regular file (a FIFO, a device), from
   * one {@code stat} (a missing path is not special: reading it reports it).
   */
  private static boolean isSpecial(Path path) {
    try {
      BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
      return !a.isDirectory() && !a.isRegularFile();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Parses one YAML document whose top level is a mapping.
   *
   * @return the document, or every load problem found (all tab lines, all duplicate keys, anchors,
   *     …)
   */
  public StageResult<ParsedDocument> load(SourceFile file) {
    if (file.text().lines().allMatch(line -> NON_CONTENT.matcher(line).matches())) {
      return StageResult.failed(List.of(empty(file)));
    }
    Optional<Diagnostic> longLine = longLine(file);
    if (longLine.isPresent()) {
      return StageResult.failed(List.of(longLine.get()));
    }
    List<Diagnostic> tabs = TabIndentation.find(file);
    if (!tabs.isEmpty()) {
      return StageResult.failed(tabs);
    }
    WatchingParser parser = parserOver(file.text());
    try (parser) {
      return parse(parser, file);
    } catch (IOException e) {
      return StageResult.failed(List.of(located(syntaxError(file, e), parser)));
    }
  }

  private WatchingParser parserOver(String text) {
    try {
      return factory.createParser(new StringReader(text));
    } catch (IOException e) {
      // Opening a parser over a String reads nothing yet, so it has nothing to fail on.
      throw new UncheckedIOException("opening a YAML parser over in-memory text failed", e);
    }
  }

  /**
   * The first line over {@link #MAX_LINE_CHARS}. SnakeYAML's reader copies its whole window for
   * every 1,024 characters of a token it has not finished, so unbroken text costs memory quadratic
   * in its length (found by fuzzing: one 530,000-character value allocated 820 MiB); lines are
   * where such text ends.
   */
  private static Optional<Diagnostic> longLine(SourceFile file) {
    String[] lines = file.text().split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      int length = lines[i].length();
      if (length > MAX_LINE_CHARS) {
        return Optional.of(
            Diagnostic.error(
                    DiagnosticCode.LINE_TOO_LONG,
                    new SourceLocation(file.displayPath(), i + 1, 1),
                    "",
                    String.format(
                        Locale.ROOT,
                        "line %d is %,d characters long; the limit is %,d",
                        i + 1,
                        length,
                        MAX_LINE_CHARS))
                .withHint(
                    "split the value over several lines (a `|` block scalar keeps the line breaks), or keep large data out of this file"));
      }
    }
    return Optional.empty();
  }

  private StageResult<ParsedDocument> parse(WatchingParser parser, SourceFile file)
      throws IOException {
    TreeBuilder tree = new TreeBuilder(parser, file.displayPath());
    if (parser.nextToken() == null) {
      // Only directives or document markers (`%YAML 1.2`, `---`): no value at all, like an empty
      // file
      // (found by TrainYamlFuzzTest: `%d` reached TreeBuilder without a token).
      return StageResult.failed(
          List.of(
              Diagnostic.error(
                      DiagnosticCode.EMPTY_FILE,
                      SourceLocation.ofFile(file.displayPath()),
                      "",
                      "the file holds no value, only YAML directives or document markers")
                  .withHint(
                      "a train.yaml needs at least the command to run, e.g. `run: python train.py`")));
    }
    JsonNode root = tree.readValue("");
    JsonToken afterFirst = parser.nextToken();
    List<Diagnostic> problems = new ArrayList<>(tree.diagnostics());
    problems.addAll(anchorsAndAliases(parser.notable, file.displayPath()));
    if (afterFirst != null) {
      problems.add(secondDocument(parser.notable, file.displayPath()));
    }
    if (!root.isObject()) {
      problems.add(notAMapping(file.displayPath(), root, tree.sourceMap()));
    }
    problems.sort(Diagnostic.ORDER);
    return problems.isEmpty()
        ? StageResult.of(new ParsedDocument(file, root, tree.sourceMap()), List.of())
        : StageResult.failed(problems);
  }

  private static List<Diagnostic> anchorsAndAliases(List<Event> events, String file) {
    List<Event> found = events.stream().filter(e -> !(e instanceof DocumentStartEvent)).toList();
    if (found.isEmpty()) {
      return List.of();
    }
    Event first = found.get(0);
    String what =
        first instanceof AliasEvent alias
            ? "alias `*" + alias.getAnchor() + "`"
            : "anchor `&" + ((NodeEvent) first).getAnchor() + "`";
    String more =
        found.size() > 1 ? " (and " + (found.size() - 1) + " more anchors or aliases)" : "";
    return List.of(
        Diagnostic.error(
                DiagnosticCode.ANCHOR_OR_ALIAS,
                at(file, first.getStartMark()),
                "",
                "YAML anchors and aliases are not supported: found " + what + more)
            .withHint(
                "train.yaml and the other Trainyard files do not support anchors (`&name`) or aliases"
                    + " (`*name`), which also shuts out alias bombs; write each value out in full"));
  }

  private static Diagnostic secondDocument(List<Event> events, String file) {
    List<Event> starts = events.stream().filter(e -> e instanceof DocumentStartEvent).toList();
    Event second = starts.get(starts.size() - 1);
    return Diagnostic.error(
            DiagnosticCode.MULTIPLE_DOCUMENTS,
            at(file, second.getStartMark()),
            "",
            "the file holds more than one YAML document (a second one starts here)")
        .withHint(
            "a Trainyard file is a single document: remove this `---` line and merge or delete what follows");
  }

  private static Diagnostic notAMapping(String file, JsonNode root, SourceMap map) {
    String got =
        root.isArray()
            ? "a list"
            : root.isNull() ? "null" : "the plain value `" + root.asText() + "`";
    return Diagnostic.error(
            DiagnosticCode.NOT_A_MAPPING,
            map.at(""),
            "",
            "the top level must be a mapping of fields (`key: value` lines), got " + got)
        .withHint(
            "start each field at column 1, e.g. `run: python train.py`; a leading `- ` makes the file a list");
  }

  private static Diagnostic empty(SourceFile file) {
    boolean blank = file.text().isBlank();
    return Diagnostic.error(
            DiagnosticCode.EMPTY_FILE,
            SourceLocation.ofFile(file.displayPath()),
            "",
            blank ? "the file is empty" : "the file holds only comments")
        .withHint("a train.yaml needs at least the command to run, e.g. `run: python train.py`");
  }

  /**
   * A syntax error SnakeYAML gave no position for (its nesting limit) is placed where the parser
   * stopped.
   */
  private static Diagnostic located(Diagnostic d, WatchingParser parser) {
    var stopped = parser.currentLocation();
    // Jackson counts lines from 1 wherever the parser stands, so the stop is always a position.
    if (d.location().line() > 0 || stopped == null) {
      return d;
    }
    return new Diagnostic(
        d.severity(),
        d.code(),
        d.message(),
        new SourceLocation(
            d.location().file(), stopped.getLineNr(), Math.max(0, stopped.getColumnNr())),
        d.pointer(),
        d.hint());
  }

  /** Whether the line holding {@code mark} has text other than blanks before it. */
  private static boolean afterText(Mark mark) {
    if (mark == null) {
      return false;
    }
    int[] buffer = mark.getBuffer();
    for (int i = Math.min(mark.getPointer(), buffer.length) - 1; i >= 0; i--) {
      int c = buffer[i];
      if (c == '\n' || c == '\r') {
        return false;
      }
      if (c != ' ' && c != '\t') {
        return true;
      }
    }
    return false;
  }

  private static Diagnostic syntaxError(SourceFile source, IOException e) {
    String file = source.displayPath();
    if (e.getCause() instanceof ReaderException) {
      Optional<Diagnostic> found = unprintable(source);
      if (found.isPresent()) {
        return found.get();
      }
    }
    if (e.getCause() instanceof MarkedYAMLException marked) {
      var t = YamlSyntaxMessages.translate(marked.getProblem(), afterText(marked.getProblemMark()));
      // SnakeYAML names the opening bracket or quote as context ("while parsing a flow sequence").
      Mark where =
          t.atOpening()
              ? Objects.requireNonNullElse(marked.getContextMark(), marked.getProblemMark())
              : marked.getProblemMark();
      return Diagnostic.error(t.code(), at(file, where), "", t.message()).withHint(t.hint());
    }
    if (e.getCause() instanceof YAMLException plain) {
      var t = YamlSyntaxMessages.translate(plain.getMessage());
      return Diagnostic.error(t.code(), SourceLocation.ofFile(file), "", t.message())
          .withHint(t.hint());
    }
    if (e instanceof StreamConstraintsException) {
      // Jackson's nesting limit carries no location; located() places it where the parser stopped.
      return Diagnostic.error(
              DiagnosticCode.YAML_SYNTAX,
              SourceLocation.ofFile(file),
              "",
              "the document nests deeper than " + MAX_NESTING_DEPTH + " levels")
          .withHint("flatten the structure; a train.yaml needs at most 3 levels");
    }
    return jacksonError(file, e);
  }

  /**
   * SnakeYAML's reader refuses a character YAML 1.1 does not allow in a stream (a control character
   * such as NUL, U+FFFE, a lone surrogate), with a position inside its read buffer, not the file:
   * the first such character is found in the text with SnakeYAML's own rule ({@link
   * StreamReader#isPrintable(int)}) and named where it is; empty when the text holds none.
   */
  static Optional<Diagnostic> unprintable(SourceFile source) {
    // Counted as SnakeYAML's reader counts the marks of every other syntax error: a BOM takes no
    // column, and NEL, U+2028, U+2029 and a CR without LF end a line (YAML 1.1).
    String text = source.text();
    int line = 1;
    int column = 1;
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      if (!StreamReader.isPrintable(c)) {
        return Optional.of(
            Diagnostic.error(
                    DiagnosticCode.YAML_SYNTAX,
                    new SourceLocation(source.displayPath(), line, column),
                    "",
                    String.format(Locale.ROOT, "character U+%04X is not allowed in a YAML file", c))
                .withHint(
                    "remove it; inside a double-quoted string, write it as an escape (`\\x00`,"
                        + " `\\uFFFE`)"));
      }
      i += Character.charCount(c);
      if (lineBreak(c, i < text.length() ? text.charAt(i) : -1)) {
        line++;
        column = 1;
      } else if (c != BOM) {
        column++;
      }
    }
    return Optional.empty();
  }

  private static final int BOM = 0xFEFF;

  /**
   * Whether {@code c}, followed by {@code next} (-1 at the end), ends a line for SnakeYAML's reader
   * (its {@code StreamReader.forward}).
   */
  static boolean lineBreak(int c, int next) {
    return c == '\n' || c == 0x85 || c == 0x2028 || c == 0x2029 || (c == '\r' && next != '\n');
  }

  private static Diagnostic jacksonError(String file, IOException e) {
    if (e instanceof StreamReadException read) {
      var t = YamlSyntaxMessages.translateJackson(read.getOriginalMessage());
      // A parser's read exception carries the parser's location, never none.
      var loc = read.getLocation();
      SourceLocation at =
          new SourceLocation(file, Math.max(0, loc.getLineNr()), Math.max(0, loc.getColumnNr()));
      return Diagnostic.error(t.code(), at, "", t.message()).withHint(t.hint());
    }
    throw new UncheckedIOException("reading in-memory YAML failed", e);
  }

  private static SourceLocation at(String file, Mark mark) {
    return mark == null
        ? SourceLocation.ofFile(file)
        : new SourceLocation(file, mark.getLine() + 1, mark.getColumn() + 1);
  }

  private static Diagnostic tooLarge(SourceLocation at, long size) {
    String mib = String.format(Locale.ROOT, "%.1f MiB", size / (1024.0 * 1024.0));
    return Diagnostic.error(
            DiagnosticCode.FILE_TOO_LARGE,
            at,
            "",
            "the file is "
                + mib
                + " ("
                + size
                + " bytes); the limit is 1 MiB ("
                + MAX_FILE_BYTES
                + " bytes)")
        .withHint(
            "a train.yaml holds a few fields; keep data and generated content in other files");
  }

  private static Diagnostic notUtf8(String file, Utf8Text.BadByte bad) {
    return Diagnostic.error(
            DiagnosticCode.NOT_UTF8,
            new SourceLocation(file, bad.line(), bad.column()),
            "",
            String.format(
                Locale.ROOT,
                "the file is not valid UTF-8: byte 0x%02X at offset %d",
                bad.value(),
                bad.offset()))
        .withHint("save the file as UTF-8 (most editors: \"Save with encoding\" → UTF-8)");
  }

  private static Diagnostic unreadable(SourceLocation at, Path path, IOException e) {
    String why =
        e instanceof NoSuchFileException
            ? "no such file"
            : e instanceof AccessDeniedException
                ? "permission denied"
                : Files.isDirectory(path)
                    ? "it is a directory"
                    // The operating system's words, e.g. "not a directory" for a path that goes
                    // through a file.
                    : e instanceof FileSystemException fs
                        ? String.valueOf(fs.getReason()).toLowerCase(Locale.ROOT)
                        : e.getClass().getSimpleName();
    return Diagnostic.error(DiagnosticCode.FILE_UNREADABLE, at, "", "cannot read the file: " + why)
        .withHint("check the path and its permissions");
  }

  private static YAMLFactoryBuilder factoryBuilder() {
    LoaderOptions options = new LoaderOptions();
    // Jackson drives SnakeYAML's event parser only, not its composer, so the composer's options
    // (nesting depth,
    // aliases per collection, duplicate keys) do nothing here: Jackson's own nesting limit and
    // TreeBuilder's
    // duplicate check stand in for them, and aliases are refused outright.
    options.setCodePointLimit((int) (2 * MAX_FILE_BYTES));
    return YAMLFactory.builder()
        .loaderOptions(options)
        // YAML reads `key:` with nothing after it as null; Jackson 2.x would say "" unless told.
        .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
        .streamReadConstraints(
            StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build());
  }

  /**
   * Creates {@link WatchingParser}s, so the loader sees SnakeYAML's events, including scalar
   * anchors.
   */
  private static final class WatchingFactory extends YAMLFactory {
    WatchingFactory(YAMLFactoryBuilder builder) {
      super(builder);
    }

    @Override
    public WatchingParser createParser(Reader reader) throws IOException {
      return (WatchingParser) super.createParser(reader);
    }

    @Override
    protected YAMLParser _createParser(Reader reader, IOContext context) {
      return new WatchingParser(
          context, _parserFeatures, _yamlParserFeatures, _loaderOptions, _objectCodec, reader);
    }
  }

  /**
   * Jackson's YAML parser drops the anchor of a scalar ({@code a: &x 1}, seen with 2.21) and hides
   * document starts; watching the events it pulls recovers both.
   */
  private static final class WatchingParser extends YAMLParser {
    final List<Event> notable = new ArrayList<>();

    WatchingParser(
        IOContext context,
        int features,
        int yamlFeatures,
        LoaderOptions options,
        ObjectCodec codec,
        Reader reader) {
      super(context, features, yamlFeatures, options, codec, reader);
    }

    @Override
    protected Event getEvent() throws IOException {
      Event event = super.getEvent();
      boolean anchored = event instanceof NodeEvent node && node.getAnchor() != null;
      if (anchored || event instanceof DocumentStartEvent) {
        notable.add(event);
      }
      return event;
    }
  }
}
