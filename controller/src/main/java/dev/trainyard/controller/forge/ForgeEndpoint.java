package dev.trainyard.controller.forge;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * One forge the controller may post to: the source repo prefix it serves (host, optionally followed
 * by path segments, as in platform.yaml {@code status.forges[].source}: {@code github.com}, {@code
 * github.com/acme}, {@code gitlab.example/group}), its kind, its API root (e.g. {@code
 * https://api.github.com}, {@code https://gitlab.com/api/v4}, {@code https://codeberg.org/api/v1})
 * and the credential: a token (commit statuses) or, for GitHub only, a GitHub App (check runs,
 * {@link GitHubChecks}); exactly one of {@code token} and {@code app} is set. The API root must be
 * {@code https://}: every call carries the credential, so {@code http://} is refused unless the
 * host is a loopback address (a forge on the same machine, a test's fake forge).
 */
public record ForgeEndpoint(String source, ForgeKind kind, URI api, Token token, GitHubApp app) {

  public ForgeEndpoint {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(api, "api");
    if ((token == null) == (app == null)) {
      throw new IllegalArgumentException("a forge needs exactly one of a token and a GitHub App");
    }
    if (app != null && kind != ForgeKind.GITHUB) {
      throw new IllegalArgumentException("a GitHub App posts to GitHub only, not " + kind);
    }
    String problem = insecure(api);
    if (!problem.isEmpty()) {
      throw new IllegalArgumentException(problem);
    }
  }

  /** A forge posting commit statuses with {@code token}. */
  public ForgeEndpoint(String source, ForgeKind kind, URI api, Token token) {
    this(source, kind, api, Objects.requireNonNull(token, "token"), null);
  }

  /**
   * The client for this endpoint: check runs for a GitHub App (its JWTs issued on {@code http}'s
   * clock), else the kind's status API.
   */
  public Forge client(RetryingTransport http) {
    return app != null
        ? new GitHubChecks(api, app, http, http.clock())
        : kind.client(api, token, http);
  }

  /**
   * Why {@code api} must not carry a token ("" when it may): a scheme other than https, or http to
   * a host that is not loopback ({@code localhost}, {@code 127.0.0.0/8}, {@code [::1]}).
   */
  public static String insecure(URI api) {
    String scheme = api.getScheme() == null ? "" : api.getScheme().toLowerCase(Locale.ROOT);
    String host = api.getHost() == null ? "" : api.getHost().toLowerCase(Locale.ROOT);
    if (scheme.equals("https") && !host.isEmpty()) {
      return "";
    }
    if (scheme.equals("http") && loopback(host)) {
      return "";
    }
    if (scheme.equals("http")) {
      return "api "
          + api
          + " would send the token in clear text: use https:// (http:// only for a loopback host:"
          + " localhost, 127.0.0.1, [::1])";
    }
    return "api " + api + " is not an https:// URL";
  }

  private static boolean loopback(String host) {
    return host.equals("localhost")
        || host.equals("[::1]")
        || host.equals("::1")
        || host.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
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
