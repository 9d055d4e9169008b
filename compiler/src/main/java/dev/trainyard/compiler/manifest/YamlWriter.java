package dev.trainyard.compiler.manifest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

/**
 * Writes Kubernetes objects as YAML, deterministically: keys sorted at every level, LF line endings, no
 * document marker, strings that YAML would read as numbers or booleans quoted ({@code "29500"},
 * {@code "true"}), multi-line strings as literal blocks. The only class that writes YAML.
 */
public final class YamlWriter {
  private static final ObjectMapper YAML =
      new ObjectMapper(
          YAMLFactory.builder()
              .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
              .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
              .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
              .stringQuotingChecker(new TimestampQuoting())
              .build());

  private YamlWriter() {}

  /**
   * Also quotes strings that a YAML 1.1 reader would take for a timestamp ({@code 2026-01-01T00:00:00Z}):
   * Go's YAML decoders (sops, kubectl) would turn them into times, and sops then rejects its own
   * {@code lastmodified}.
   */
  private static final class TimestampQuoting extends com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker.Default {
    private static final long serialVersionUID = 1L;
    private static final java.util.regex.Pattern TIMESTAMP =
        java.util.regex.Pattern.compile("^\\d{4}-\\d{1,2}-\\d{1,2}([Tt ].*)?$");

    @Override
    public boolean needToQuoteValue(String value) {
      return super.needToQuoteValue(value) || TIMESTAMP.matcher(value).matches();
    }
  }

  /** The YAML text of {@code node} with sorted keys, ending in one newline. */
  public static String write(JsonNode node) {
    try {
      String text = YAML.writeValueAsString(CanonicalJson.sorted(node));
      return text.endsWith("\n") ? text : text + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a JSON tree as YAML", e);
    }
  }
}
