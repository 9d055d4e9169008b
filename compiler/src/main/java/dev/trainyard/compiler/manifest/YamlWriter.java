package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Writes Kubernetes objects as YAML, deterministically: keys sorted at every level, LF line
 * endings, no document marker, strings that YAML 1.1 or 1.2 would read as another type quoted
 * ({@code "29500"}, {@code "true"}, {@code "1e-4"}, {@code "0x1F"}, {@code "1:30"}; see {@link
 * TypedScalarQuoting}), multi-line strings as literal blocks. The only class that writes YAML.
 */
public final class YamlWriter {
  /** The mapper behind {@link #write}; package-private so that {@code YamlWriterTest} compares. */
  static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
              .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
              .stringQuotingChecker(new TypedScalarQuoting())
              .build());

  /** The same quoting rules for {@link AsciiYamlEmitter} (stateless, so one serves every call). */
  private static final AsciiYamlEmitter.Quoting QUOTING = quoting(new TypedScalarQuoting());

  /** The emitter's view of {@code checker}, each verdict remembered ({@link Verdicts}). */
  static AsciiYamlEmitter.Quoting quoting(TypedScalarQuoting checker) {
    return new AsciiYamlEmitter.Quoting(
        new Verdicts(checker::needToQuoteValue), new Verdicts(checker::needToQuoteName));
  }

  /**
   * A quoting verdict per string, remembered. A compile writes the keys and most of the values
   * (container names, flags, label keys, quantities, the commit) that the compile before it wrote,
   * and asking Jackson's checker and the {@link TypedScalarQuoting#TYPED} regex again was a fifth
   * of the emitter's time (issue #24). A verdict is a function of the string alone, so a remembered
   * one is never stale. Strings of up to {@link #MAX_LENGTH} characters are kept, at most {@link
   * #MAX} of them; then it starts over. Safe for concurrent use.
   */
  static final class Verdicts implements Predicate<String> {
    static final int MAX = 8192;
    static final int MAX_LENGTH = 256;
    private final Predicate<String> checker;
    private final Map<String, Boolean> known = new ConcurrentHashMap<>();

    Verdicts(Predicate<String> checker) {
      this.checker = checker;
    }

    @Override
    public boolean test(String text) {
      if (text.length() > MAX_LENGTH) {
        return checker.test(text);
      }
      Boolean verdict = known.get(text);
      if (verdict == null) {
        verdict = checker.test(text);
        if (known.size() >= MAX) {
          known.clear();
        }
        known.put(text, verdict);
      }
      return verdict;
    }

    /** How many verdicts are kept (for tests). */
    int size() {
      return known.size();
    }
  }

  private YamlWriter() {}

  /**
   * Also quotes every string that a YAML 1.1 or 1.2 reader would take for another type, as keys and
   * as values. Go's YAML decoders under kubectl, Flux and sops (yaml.v2, sigs.k8s.io/yaml) resolve
   * YAML 1.1 types: timestamps ({@code 2026-01-01T00:00:00Z}; sops then rejects its own {@code
   * lastmodified}), ints in base 2, 8, 16 and 60 with underscores ({@code 0b101}, {@code 0x_1F},
   * {@code 1_000}, {@code 1:30}), floats with exponents or underscores ({@code 1e4}, {@code
   * 685_230.15}), {@code .inf}/{@code .nan} in any case, and the merge key {@code <<}; YAML 1.2's
   * core schema adds {@code 0o17}. Sources: yaml.org/type/{int,float,
   * bool,null,timestamp,merge}.html and YAML 1.2.2 §10.3.2. Jackson's default already quotes
   * booleans (yes/no/on/off in every case), null, ~ and plain decimals.
   */
  static final class TypedScalarQuoting extends StringQuotingChecker.Default {
    private static final long serialVersionUID = 1L;
    static final Pattern TYPED =
        Pattern.compile(
            String.join(
                "|",
                "\\d{4}-\\d{1,2}-\\d{1,2}([Tt ].*)?",
                "[-+]?0b[0-1_]+",
                "[-+]?0o?[0-7_]+",
                "[-+]?0x[0-9a-fA-F_]+",
                "[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\\.[0-9_]*)?",
                "[-+]?(\\.[0-9][0-9_]*|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?",
                "[-+]?\\.(inf|Inf|INF)",
                "\\.(nan|NaN|NAN)",
                "<<|="));

    /**
     * The characters a {@link #TYPED} match can start with: every alternative begins with a digit,
     * a sign, a dot, {@code <} or {@code =}. Checking it first skips the regex for nearly every key
     * and value (the regex was ~9 % of a warm compile).
     */
    private static final String FIRST = "0123456789+-.<=";

    @Override
    public boolean needToQuoteValue(String value) {
      return super.needToQuoteValue(value) || typed(value);
    }

    @Override
    public boolean needToQuoteName(String name) {
      return super.needToQuoteName(name) || typed(name);
    }

    static boolean typed(String text) {
      return mayBeTyped(text) && TYPED.matcher(text).matches();
    }

    /**
     * Whether {@code text} starts as a {@link #TYPED} match can: with a character of {@link
     * #FIRST}, and after a sign with a digit or a dot (every alternative that admits a sign goes on
     * with one). Command-line flags ({@code --nproc-per-node=2}, {@code -c}) start with a sign and
     * were most of what still reached the regex (5 % of a warm compile, issue #24).
     */
    static boolean mayBeTyped(String text) {
      if (text.isEmpty() || FIRST.indexOf(text.charAt(0)) < 0) {
        return false;
      }
      char first = text.charAt(0);
      if (first != '+' && first != '-') {
        return true;
      }
      if (text.length() < 2) {
        return false;
      }
      char next = text.charAt(1);
      return next == '.' || (next >= '0' && next <= '9');
    }
  }

  /**
   * The YAML text of {@code node} with sorted keys, ending in one newline.
   *
   * <p>Trees of printable ASCII (nearly every compile's) go through {@link AsciiYamlEmitter}, which
   * writes the same bytes without SnakeYAML's event machine; the others through Jackson's
   * generator. That path walks the tree itself, object keys in {@link String#compareTo} order, and
   * hands the generator the calls Jackson's own {@code ObjectNode}/{@code ArrayNode} serializers
   * make (so the bytes are those of {@code writeValueAsString(CanonicalJson.sorted(node))}, which
   * {@code YamlWriterTest} checks): no sorted copy of the tree and no serializer look-up per node.
   */
  public static String write(JsonNode node) {
    Optional<String> fast = AsciiYamlEmitter.write(node, QUOTING);
    if (fast.isPresent()) {
      return fast.get().endsWith("\n") ? fast.get() : fast.get() + "\n";
    }
    return viaJackson(node);
  }

  /** {@link #write} through Jackson's generator and SnakeYAML's emitter, for any tree. */
  static String viaJackson(JsonNode node) {
    StringWriter out = new StringWriter(1024);
    try (JsonGenerator generator = YAML.createGenerator(out)) {
      walk(node, generator);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a JSON tree as YAML", e);
    }
    String text = out.toString();
    return text.endsWith("\n") ? text : text + "\n";
  }

  private static void walk(JsonNode node, JsonGenerator generator) throws IOException {
    switch (node.getNodeType()) {
      case OBJECT -> {
        generator.writeStartObject(node);
        List<String> names = new ArrayList<>(node.size());
        node.fieldNames().forEachRemaining(names::add);
        names.sort(String::compareTo);
        for (String name : names) {
          generator.writeFieldName(name);
          walk(node.get(name), generator);
        }
        generator.writeEndObject();
      }
      case ARRAY -> {
        generator.writeStartArray(node, node.size());
        for (JsonNode item : node) {
          walk(item, generator);
        }
        generator.writeEndArray();
      }
      case STRING -> generator.writeString(node.textValue());
      case BOOLEAN -> generator.writeBoolean(node.booleanValue());
      case NULL -> generator.writeNull();
      default -> YAML.writeTree(generator, node); // numbers and the rare others: Jackson's own
    }
  }
}
