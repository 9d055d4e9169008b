package dev.trainyard.gitops.preview;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code metadata.annotations} of a JobSet straight from its lines when the file is laid out
 * as Trainyard writes it (block style, two-space indent, one {@code key: value} per line, values
 * plain or in double quotes without escapes), so that finding the latest of thousands of earlier
 * runs needs no YAML parse. Anything else (other quoting, block scalars, comments, flow style)
 * gives empty, and the caller parses the YAML instead: this is a fast path, never a second YAML
 * reader.
 */
final class AnnotationLines {
  private static final Pattern LINE =
      Pattern.compile("^    ([A-Za-z0-9./_-]+): (\"[^\"\\\\]*\"|[^\"'&*!|>%@`{\\[#\\s][^#]*?)$");

  private AnnotationLines() {}

  /** The annotations of a metadata block ({@code metadata:\n annotations:\n k: v\n…}), or empty. */
  static Optional<Map<String, String>> of(String metadataBlock) {
    int start = metadataBlock.indexOf("\n  annotations:\n");
    if (!metadataBlock.startsWith("metadata:\n") || start < 0) {
      return Optional.empty();
    }
    Map<String, String> out = new TreeMap<>();
    for (String line :
        metadataBlock.substring(start + "\n  annotations:\n".length()).split("\n", -1)) {
      if (!line.startsWith("    ")) {
        return line.isEmpty() || line.startsWith("  ") && !line.startsWith("   ")
            ? Optional.of(out)
            : Optional.empty();
      }
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        return Optional.empty();
      }
      String value = m.group(2);
      out.put(m.group(1), value.startsWith("\"") ? value.substring(1, value.length() - 1) : value);
    }
    return Optional.of(out);
  }
}
