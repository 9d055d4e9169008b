package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * One forge the controller may post to: the source repo prefix it serves (host, optionally followed
 * by path segments, as in platform.yaml {@code status.forges[].source}: {@code github.com}, {@code
 * github.com/acme}, {@code gitlab.example/group}), its kind, its API root (e.g. {@code
 * https://api.github.com}, {@code https://gitlab.com/api/v4}, {@code https://codeberg.org/api/v1})
 * and the token.
 */
public record ForgeEndpoint(String source, ForgeKind kind, URI api, Token token) {

  public ForgeEndpoint {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(api, "api");
    Objects.requireNonNull(token, "token");
  }

  /** The prefix as routes compare it: host lower-cased, no trailing slash. */
  public String prefix() {
    String s = source.strip().replaceAll("/+$", "");
    int slash = s.indexOf('/');
    return slash < 0
        ? s.toLowerCase(Locale.ROOT)
        : s.substring(0, slash).toLowerCase(Locale.ROOT) + s.substring(slash);
  }

  /**
   * Whether {@code repo} ({@code host/owner/.../name}) lies under this prefix, on a path-segment
   * boundary.
   */
  public boolean serves(String repo) {
    String p = prefix();
    return repo.equals(p) || repo.startsWith(p + "/");
  }
}
