package dev.trainyard.cluster;

import java.net.URI;
import java.nio.file.Path;

/**
 * Runs go into the GitOps repo through the product: {@code trainyard submit TRAIN_YAML --gitops URL
 * --branch main} (the GitOps repo's own platform.yaml decides the target) and {@code trainyard
 * prune --gitops URL RUN}, in-process. The GitOps server requires basic auth, so the URL carries
 * the user and token; neither stdout nor stderr of either command may contain the token.
 */
final class TrainyardCliPublisher {

  private final String url;
  private final GitHttpServer.Credentials credentials;

  TrainyardCliPublisher(String url, GitHttpServer.Credentials credentials) {
    this.url = url;
    this.credentials = credentials;
  }

  /**
   * Compiles {@code trainYaml} under the GitOps repo's platform.yaml, commits and pushes it;
   * returns the run name.
   */
  String submit(Path trainYaml) {
    TrainyardCli.Result result =
        checked(
            "trainyard submit",
            TrainyardCli.run(
                "submit",
                trainYaml.toString(),
                "--gitops",
                authenticatedUrl(),
                "--branch",
                "main"));
    return result
        .runName()
        .orElseThrow(
            () -> new AssertionError("submit printed no 'run <name>:' line:\n" + result.out()));
  }

  /** Removes run {@code run}'s folder from the GitOps repo in one pushed commit. */
  void prune(String run) {
    checked("trainyard prune", TrainyardCli.run("prune", "--gitops", authenticatedUrl(), run));
  }

  private TrainyardCli.Result checked(String what, TrainyardCli.Result result) {
    String token = credentials.token();
    if (result.out().contains(token) || result.err().contains(token)) {
      throw new AssertionError(
          what
              + " (exit "
              + result.exit()
              + ") printed the GitOps token; output, token masked:\n"
              + result.out().replace(token, "***")
              + "\n"
              + result.err().replace(token, "***"));
    }
    return result.requireSuccess(what);
  }

  /**
   * {@code http://user:token@127.0.0.1:PORT/repo}: JGit takes basic-auth credentials from the URL.
   */
  private String authenticatedUrl() {
    URI uri = URI.create(url);
    return uri.getScheme()
        + "://"
        + credentials.user()
        + ":"
        + credentials.token()
        + "@"
        + uri.getAuthority()
        + uri.getPath();
  }
}
