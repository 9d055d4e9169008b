package dev.trainyard.controller;

import dev.trainyard.compiler.platform.Platform;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The commit status link, from a template with placeholders {@code {namespace}}, {@code {run}},
 * {@code {jobset}}, {@code {cluster}} and {@code {commit}} (values URL-encoded), e.g. {@code
 * https://grafana.example/d/trainyard?var-namespace={namespace}&var-run={run}}, from platform.yaml
 * {@code status.targetUrl} (whose loader already reports unknown placeholders at their line).
 * Strict here too: an unknown placeholder is refused, never rendered as empty.
 */
public final class TargetUrl {

  static final Set<String> NAMES = Set.copyOf(Platform.StatusSettings.PLACEHOLDERS);
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-zA-Z]+)}");
  private final String template;

  /**
   * @throws IllegalArgumentException naming the unknown placeholders
   */
  public TargetUrl(String template) {
    this.template = template == null ? "" : template.strip();
    Set<String> unknown = new TreeSet<>();
    Matcher m = PLACEHOLDER.matcher(this.template);
    while (m.find()) {
      if (!NAMES.contains(m.group(1))) {
        unknown.add(m.group(1));
      }
    }
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "targetUrl: unknown placeholder(s) "
              + List.copyOf(unknown)
              + "; known: "
              + new TreeSet<>(NAMES));
    }
  }

  /** The link for one run; "" when no template is configured. */
  public String render(RunKey key, RunProvenance p) {
    Map<String, String> values =
        Map.of(
            "namespace",
            key.namespace(),
            "run",
            p.run(),
            "jobset",
            key.name(),
            "cluster",
            p.cluster(),
            "commit",
            p.sourceCommit());
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          out,
          Matcher.quoteReplacement(
              URLEncoder.encode(values.get(m.group(1)), StandardCharsets.UTF_8)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
