package dev.trainyard.gitops;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where the GitOps repository lives, as given to {@code --gitops} or {@code TRAINYARD_GITOPS}: a
 * URL ({@code https://}, {@code http://}, {@code file://}) or the path of a local repository (bare
 * or not), which is used as a {@code file://} URL. SSH URLs are refused with a hint (no SSH
 * transport is bundled).
 *
 * <pre>
 * GitOpsLocation.parse("https://github.com/acme/gitops.git", Path.of(""))   // as is
 * GitOpsLocation.parse("../gitops", Path.of("/src/app"))                    // file:///src/gitops
 * </pre>
 *
 * @param url the URL JGit fetches from and pushes to (may carry credentials the user put there)
 * @param shown the URL as printed: user info (credentials) removed, so a token in a URL never
 *     reaches output
 */
public record GitOpsLocation(String url, String shown) {
  private static final Pattern SCP_LIKE = Pattern.compile("^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:.*");
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*)://.*");

  /**
   * Parses {@code value}; a relative path is resolved against {@code workingDir}.
   *
   * @throws IllegalArgumentException with a message for the user (a usage error, exit 2) when the
   *     value is empty, has an unsupported scheme, a URL without a host or path, or names a local
   *     folder that does not exist or is not a git repository
   */
  public static GitOpsLocation parse(String value, Path workingDir) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          "--gitops is empty: give the GitOps repository's URL or path (or set TRAINYARD_GITOPS)");
    }
    String v = value.strip();
    var scheme = SCHEME.matcher(v);
    if (scheme.matches()) {
      return fromUrl(v, scheme.group(1).toLowerCase(Locale.ROOT));
    }
    if (SCP_LIKE.matcher(v).matches()) {
      throw sshUnsupported(v);
    }
    return fromPath(workingDir.resolve(v).toAbsolutePath().normalize(), v);
  }

  private static GitOpsLocation fromUrl(String v, String scheme) {
    if (scheme.equals("ssh")) {
      throw sshUnsupported(v);
    }
    if (!scheme.equals("https") && !scheme.equals("http") && !scheme.equals("file")) {
      throw new IllegalArgumentException(
          "--gitops \""
              + redact(v)
              + "\": scheme "
              + scheme
              + ":// is not supported (use https, http, file, or a path)");
    }
    URI uri;
    try {
      uri = new URI(v);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "--gitops \"" + redact(v) + "\" is not a valid URL: " + e.getReason());
    }
    if (scheme.equals("file")) {
      return fromPath(Path.of(uri.getPath() == null ? "" : uri.getPath()), v);
    }
    if (uri.getPort() > 65_535) {
      throw new IllegalArgumentException(
          "--gitops \"" + redact(v) + "\": port " + uri.getPort() + " is out of range (1-65535)");
    }
    if (uri.getHost() == null
        || uri.getPath() == null
        || uri.getPath().isEmpty()
        || uri.getPath().equals("/")) {
      throw new IllegalArgumentException(
          "--gitops \"" + redact(v) + "\" has no host or no repository path");
    }
    return new GitOpsLocation(v, redact(v));
  }

  private static GitOpsLocation fromPath(Path dir, String asGiven) {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new IllegalArgumentException(
          "--gitops \""
              + asGiven
              + "\" is a file, not a folder: give the GitOps repository's folder or URL");
    }
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--gitops \"" + asGiven + "\": no such folder " + dir);
    }
    if (!Files.isDirectory(dir.resolve(".git"))
        && !Files.isRegularFile(dir.resolve(".git"))
        && !Files.isRegularFile(dir.resolve("HEAD"))) {
      throw new IllegalArgumentException(
          "--gitops \""
              + asGiven
              + "\": "
              + dir
              + " is not a git repository (create one with `git init --bare -b main`: submit"
              + " pushes main unless --branch says otherwise)");
    }
    String url = dir.toUri().toString();
    return new GitOpsLocation(url, url);
  }

  private static IllegalArgumentException sshUnsupported(String v) {
    return new IllegalArgumentException(
        "--gitops \""
            + redact(v)
            + "\": SSH URLs are not supported; use the repository's https:// URL"
            + " with a token in TRAINYARD_GITOPS_TOKEN or a git credential helper");
  }

  /** The URL without user info: {@code https://user:token@host/x} → {@code https://host/x}. */
  public static String redact(String url) {
    return url.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)[^/@]*@", "$1");
  }

  /** For a {@code file://} location, the local folder; else empty. */
  public Optional<Path> localPath() {
    return url.startsWith("file:") ? Optional.of(Path.of(URI.create(url))) : Optional.empty();
  }
}
