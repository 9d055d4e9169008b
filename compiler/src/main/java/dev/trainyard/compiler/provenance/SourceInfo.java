package dev.trainyard.compiler.provenance;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where the training code comes from: the source repo, the exact commit pods clone, and where
 * {@code train.yaml} sits in it. Read from git at the edge (remote and HEAD of the repo holding
 * train.yaml) or given on the command line by a CI system that knows them.
 *
 * @param repoUrl clone URL pods use ({@code https://github.com/acme/llm.git}); never a local path
 * @param commit full 40-hex commit SHA
 * @param trainYamlPath path of train.yaml relative to the repo root, with {@code /} separators
 *     ({@code examples/pytorch-ddp/train.yaml}; just {@code train.yaml} at the root)
 */
public record SourceInfo(String repoUrl, String commit, String trainYamlPath) {
  /**
   * One {@code replaceFirst} with its pattern compiled once (compiling them on every call was ~3 %
   * of a warm compile, issue #24).
   */
  private record Rewrite(Pattern pattern, String replacement) {
    static Rewrite of(String regex, String replacement) {
      return new Rewrite(Pattern.compile(regex), replacement);
    }

    static String all(List<Rewrite> rewrites, String text) {
      String out = text;
      for (Rewrite r : rewrites) {
        out = r.pattern().matcher(out).replaceFirst(r.replacement());
      }
      return out;
    }
  }

  private static final List<Rewrite> NO_CREDENTIALS =
      List.of(
          Rewrite.of("^(https?://)[^/@]+@", "$1"),
          Rewrite.of("^([a-zA-Z][a-zA-Z0-9+.-]*://[^/@:]*):[^/@]*@", "$1@"),
          Rewrite.of("^([^/@:]+):[^/@]*@(?=[^/@:]+:)", "$1@"),
          Rewrite.of("[?#].*$", ""));
  private static final List<Rewrite> OVER_HTTPS =
      List.of(
          Rewrite.of("^ssh://[^@/]+@([^/:]+)(:\\d+)?/", "https://$1/"),
          Rewrite.of("^ssh://([^/:]+)(:\\d+)?/", "https://$1/"),
          Rewrite.of("^[^/@:]+@([^/:]+):", "https://$1/"));
  private static final List<Rewrite> NORMALIZED =
      List.of(
          Rewrite.of("^[a-zA-Z][a-zA-Z0-9+.-]*://", ""),
          Rewrite.of("^[^@/]+@", ""),
          Rewrite.of("^([^/:]+):(?!\\d)", "$1/"),
          Rewrite.of("^([^/:]+):\\d+/", "$1/"),
          Rewrite.of("/+$", ""),
          Rewrite.of("\\.git$", ""));
  private static final Pattern SCP = Pattern.compile("^[^/@:]+@[^/:]+:(?!//).*");

  public SourceInfo {
    Objects.requireNonNull(repoUrl, "repoUrl");
    Objects.requireNonNull(commit, "commit");
    Objects.requireNonNull(trainYamlPath, "trainYamlPath");
  }

  /**
   * The same source with what may hold a secret removed, since the URL is written into the GitOps
   * repo and printed in diagnostics and previews: the whole {@code user:password@} of an http(s)
   * URL (CI systems put tokens there, GitLab CI's {@code CI_REPOSITORY_URL}), the password of any
   * other URL ({@code ssh://deploy:TOKEN@host/…} and scp-style {@code deploy:TOKEN@host:path} keep
   * {@code deploy@}), and every query and fragment ({@code ?token=…}), scp-style remotes included.
   * Private repos are cloned with the platform's credential Secret instead.
   */
  public SourceInfo withoutCredentials() {
    return new SourceInfo(Rewrite.all(NO_CREDENTIALS, repoUrl), commit, trainYamlPath);
  }

  /**
   * Whether the URL is an SSH one ({@code git@host:path} or {@code ssh://}), which pods cannot
   * clone without a key.
   */
  public boolean isSsh() {
    return repoUrl.startsWith("ssh://") || SCP.matcher(repoUrl).matches();
  }

  /**
   * The HTTPS form of an SSH URL: {@code git@github.com:acme/x.git} and {@code
   * ssh://git@github.com/acme/x.git} → {@code https://github.com/acme/x.git} (the form GitHub,
   * GitLab and Gitea serve for the same repo).
   */
  public SourceInfo overHttps() {
    return new SourceInfo(Rewrite.all(OVER_HTTPS, repoUrl), commit, trainYamlPath);
  }

  /** Whether {@link #repoUrl()} carries credentials, a query or a fragment. */
  public boolean hasCredentials() {
    return !withoutCredentials().repoUrl().equals(repoUrl);
  }

  /** The folder of train.yaml relative to the repo root, {@code ""} at the root. */
  public String trainYamlFolder() {
    return trainYamlPath.substring(0, Math.max(trainYamlPath.lastIndexOf('/'), 0));
  }

  /**
   * The repo URL without scheme, user, port or {@code .git}: {@code github.com/acme/llm}. Platform
   * {@code sources} patterns match against this form.
   */
  public String normalizedRepo() {
    return Rewrite.all(NORMALIZED, repoUrl.trim()).toLowerCase(Locale.ROOT);
  }
}
