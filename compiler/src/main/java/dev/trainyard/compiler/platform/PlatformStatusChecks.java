package dev.trainyard.compiler.platform;

import dev.trainyard.compiler.diagnostic.Diagnostic;
import dev.trainyard.compiler.source.ParsedDocument;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks of {@code status:} a schema cannot express: the target URL's placeholders are known and
 * its braces balanced (an unknown one would be posted literally on every commit status), no two
 * forges claim the same source prefix (which one got the statuses would depend on list order), and
 * {@code progress.failStalledAfter} is not shorter than {@code progress.stallAfter} (a run is
 * failed for a stall only after it was called stalled).
 */
final class PlatformStatusChecks {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^{}]*)}");

  private PlatformStatusChecks() {}

  static List<Diagnostic> check(Platform.StatusSettings status, ParsedDocument doc) {
    List<Diagnostic> out = new ArrayList<>(targetUrl(status.targetUrl(), doc));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < status.forges().size(); i++) {
      String source = normalised(status.forges().get(i).source());
      if (!seen.add(source)) {
        out.add(
            PlatformBinder.invalid(
                    doc,
                    "/status/forges/" + i + "/source",
                    "forge source \"" + status.forges().get(i).source() + "\" is listed twice")
                .withHint(
                    "one forge per source prefix; a longer prefix (github.com/acme) may refine a shorter one (github.com)"));
      }
    }
    Platform.ProgressSettings progress = status.progress();
    if (progress.failStalledAfter().isPresent()
        && progress.failStalledAfter().get().compareTo(progress.stallAfter()) < 0) {
      out.add(
          PlatformBinder.invalid(
                  doc,
                  "/status/progress/failStalledAfter",
                  "`status.progress.failStalledAfter` ("
                      + doc.root().at("/status/progress/failStalledAfter").asText()
                      + ") is shorter than `status.progress.stallAfter` ("
                      + progress.stallAfter().toMinutes()
                      + "m): a run is failed for a stall only after it was called stalled")
              .withHint("make failStalledAfter at least stallAfter, e.g. failStalledAfter: 2h"));
    }
    return out;
  }

  /** A source prefix as routes compare it: host lower-cased, no trailing slash. */
  static String normalised(String source) {
    String[] hostAndPath = source.replaceAll("/+$", "").split("/", 2);
    return hostAndPath[0].toLowerCase(Locale.ROOT)
        + (hostAndPath.length > 1 ? "/" + hostAndPath[1] : "");
  }

  private static List<Diagnostic> targetUrl(String template, ParsedDocument doc) {
    Set<String> unknown = new TreeSet<>();
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder rest = new StringBuilder();
    while (m.find()) {
      if (!Platform.StatusSettings.PLACEHOLDERS.contains(m.group(1))) {
        unknown.add("{" + m.group(1) + "}");
      }
      m.appendReplacement(rest, "");
    }
    m.appendTail(rest);
    List<Diagnostic> out = new ArrayList<>();
    String known = "{" + String.join("}, {", Platform.StatusSettings.PLACEHOLDERS) + "}";
    if (!unknown.isEmpty()) {
      out.add(
          PlatformBinder.invalid(
                  doc,
                  "/status/targetUrl",
                  "`status.targetUrl` uses unknown placeholder(s) " + String.join(", ", unknown))
              .withHint("known placeholders: " + known));
    }
    if (rest.toString().contains("{") || rest.toString().contains("}")) {
      out.add(
          PlatformBinder.invalid(
                  doc, "/status/targetUrl", "`status.targetUrl` has an unbalanced `{` or `}`")
              .withHint("placeholders are written {name}, e.g. {run}; known: " + known));
    }
    return out;
  }
}
