package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.Locale;
import java.util.Optional;

/**
 * The host and project path of a git remote, as written in {@code trainyard.dev/source-repo}:
 * {@code https://github.com/acme/llm.git}, {@code ssh://git@gitlab.example:2222/group/sub/proj.git}
 * or the scp form {@code git@codeberg.org:acme/llm.git} all give host and {@code owner/.../repo}
 * without ".git".
 */
public record RepoUrl(String host, String project) {

  /**
   * The parts of {@code url}; empty when it is not one of the three forms or has no project path.
   */
  public static Optional<RepoUrl> parse(String url) {
    if (url == null || url.isBlank()) {
      return Optional.empty();
    }
    String u = url.strip();
    int scp = u.indexOf(':');
    if (!u.contains("://") && scp > 0 && u.substring(0, scp).contains("@")) {
      return of(u.substring(u.indexOf('@') + 1, scp), u.substring(scp + 1));
    }
    try {
      URI uri = URI.create(u);
      return uri.getHost() == null ? Optional.empty() : of(uri.getHost(), uri.getPath());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Optional<RepoUrl> of(String host, String path) {
    String p = path.replaceAll("^/+", "").replaceAll("/+$", "");
    if (p.endsWith(".git")) {
      p = p.substring(0, p.length() - 4);
    }
    return p.isEmpty() || !p.contains("/") || host.isEmpty()
        ? Optional.empty()
        : Optional.of(new RepoUrl(host.toLowerCase(Locale.ROOT), p));
  }
}
