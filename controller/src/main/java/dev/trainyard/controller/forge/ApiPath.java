package dev.trainyard.controller.forge;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * URIs under a forge's API base, every path segment and query value percent-encoded, so a GitLab
 * project path {@code group/project} becomes the single segment {@code group%2Fproject} it must be.
 */
final class ApiPath {

  private ApiPath() {}

  /** {@code base} + "/" + each encoded segment; {@code rawSegments} are appended as they are. */
  static URI of(URI base, String rawPrefix, Map<String, String> query, String... segments) {
    StringBuilder b = new StringBuilder(strip(base.toString())).append(rawPrefix);
    for (String s : segments) {
      b.append('/').append(encode(s));
    }
    if (!query.isEmpty()) {
      StringJoiner q = new StringJoiner("&", "?", "");
      new TreeMap<>(query).forEach((k, v) -> q.add(encode(k) + "=" + encode(v)));
      b.append(q);
    }
    return URI.create(b.toString());
  }

  /**
   * {@code owner/repo} as two encoded segments joined by "/"; REJECTED (nothing sent) for any other
   * shape, e.g. a {@code group/sub/project} path, which GitHub and Gitea do not have.
   */
  static String ownerRepo(String project) throws ForgeException {
    if (!isOwnerRepo(project)) {
      throw new ForgeException(
          ForgeException.Kind.REJECTED, 0, "expected owner/repo, got '" + project + "'");
    }
    int slash = project.indexOf('/');
    return "/" + encode(project.substring(0, slash)) + "/" + encode(project.substring(slash + 1));
  }

  /** Whether {@code project} is exactly two non-empty segments, {@code owner/repo}. */
  static boolean isOwnerRepo(String project) {
    int slash = project.indexOf('/');
    return slash > 0 && slash == project.lastIndexOf('/') && slash < project.length() - 1;
  }

  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String strip(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }
}
