package dev.trainyard.cluster;

import java.nio.file.Path;
import java.util.Map;

/**
 * A work tree of the GitOps repo made with the git CLI (a fresh clone each time), authenticated to
 * the test's git server through {@link GitCli#withBasicAuth}; seeds the repo as a platform team
 * does (platform.yaml at the root) before any run is submitted.
 */
final class GitOpsCheckout {

  private final Path dir;
  private final Map<String, String> env;

  private GitOpsCheckout(Path dir, Map<String, String> env) {
    this.dir = dir;
    this.env = env;
  }

  /** Clones {@code url} (it may be empty) into {@code dir}, on branch main. */
  static GitOpsCheckout clone(String url, GitHttpServer.Credentials credentials, Path dir) {
    Map<String, String> env =
        GitCli.withBasicAuth(GitCli.isolatedEnv(dir.getParent()), credentials);
    GitCli.run(dir.getParent(), env, "clone", "--quiet", url, dir.toString());
    GitCli.run(dir, env, "checkout", "--quiet", "-B", "main");
    return new GitOpsCheckout(dir, env);
  }

  Path dir() {
    return dir;
  }

  /**
   * Commits every change with {@code message} and pushes it to main; returns the new commit's SHA.
   */
  String commitAndPush(String message) {
    GitCli.run(dir, env, "add", "--all");
    GitCli.run(dir, env, "commit", "--quiet", "-m", message);
    GitCli.run(dir, env, "push", "--quiet", "origin", "HEAD:refs/heads/main");
    return GitCli.run(dir, env, "rev-parse", "HEAD").trim();
  }
}
