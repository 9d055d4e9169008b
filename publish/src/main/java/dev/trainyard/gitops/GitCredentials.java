package dev.trainyard.gitops;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.transport.CredentialItem;
import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.URIish;

/**
 * Credentials for the GitOps repository over HTTP(S), from git's usual places, never from a flag:
 *
 * <ol>
 *   <li>{@code TRAINYARD_GITOPS_TOKEN} (username {@code TRAINYARD_GITOPS_USERNAME}, default {@code
 *       x-access-token}, which GitHub accepts for installation and personal tokens; GitLab accepts
 *       any username with a personal, project or job token);
 *   <li>else {@code git credential fill} — the user's credential helpers, and {@code GIT_ASKPASS} —
 *       run with {@code GIT_TERMINAL_PROMPT=0} so CI never hangs on a prompt.
 * </ol>
 *
 * Credentials are handed to JGit only; they are never printed or written.
 */
final class GitCredentials extends CredentialsProvider {
  /** Environment variable holding a token for the GitOps repository. */
  static final String TOKEN_ENV = "TRAINYARD_GITOPS_TOKEN";

  static final String USERNAME_ENV = "TRAINYARD_GITOPS_USERNAME";
  private static final long HELPER_TIMEOUT_SECONDS = 30;
  private final Map<String, String> env;

  /** Where the credentials JGit asked for last came from. */
  enum Source {
    /** JGit has not asked: the server never challenged. */
    NOT_ASKED,
    /** {@value #TOKEN_ENV}. */
    TOKEN,
    /** {@code git credential fill}. */
    HELPER,
    /** Asked, and neither place had any. */
    NONE
  }

  private volatile Source served = Source.NOT_ASKED;
  private volatile String servedUser = "";

  GitCredentials(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  @Override
  public boolean isInteractive() {
    return false;
  }

  @Override
  public boolean supports(CredentialItem... items) {
    for (CredentialItem item : items) {
      if (!(item instanceof CredentialItem.Username)
          && !(item instanceof CredentialItem.Password)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean get(URIish uri, CredentialItem... items) {
    Optional<String[]> token = fromEnvironment();
    Optional<String[]> pair = token.or(() -> fromHelper(uri));
    served = token.isPresent() ? Source.TOKEN : pair.isPresent() ? Source.HELPER : Source.NONE;
    servedUser = pair.map(p -> p[0]).orElse("");
    if (pair.isEmpty()) {
      return false;
    }
    for (CredentialItem item : items) {
      if (item instanceof CredentialItem.Username u) {
        u.setValue(pair.get()[0]);
      } else if (item instanceof CredentialItem.Password p) {
        p.setValue(pair.get()[1].toCharArray());
      }
    }
    return true;
  }

  /** Where the credentials JGit asked for last came from. */
  Source served() {
    return served;
  }

  /**
   * Why a server refused a request with 401, naming where the credentials came from (never their
   * value), for "cannot fetch main from URL: ...".
   */
  String refusal() {
    return switch (served) {
      case TOKEN -> "the server refused the token from " + TOKEN_ENV + " (user " + servedUser + ")";
      case HELPER ->
          "the server refused the credentials git credential fill gave (user " + servedUser + ")";
      case NONE ->
          "the server wants credentials and none were found: "
              + TOKEN_ENV
              + " is not set and git credential fill gave none";
      case NOT_ASKED ->
          "the server refused the request (401)"
              + (fromEnvironment().isPresent() ? " with the token from " + TOKEN_ENV : "");
    };
  }

  /** What to check after {@link #refusal()}: the source that was used, or where to put a token. */
  String hint() {
    return switch (served) {
      case TOKEN ->
          "check that "
              + TOKEN_ENV
              + " holds a current token (not expired or revoked) that may read and push to this"
              + " repository, and "
              + USERNAME_ENV
              + " where the forge needs a user; the token is never printed";
      case HELPER ->
          "check the credential helper's entry for this host (git credential reject removes a"
              + " stale one), or set "
              + TOKEN_ENV;
      case NONE, NOT_ASKED ->
          "set " + TOKEN_ENV + " to a token that may push, or configure a git credential helper";
    };
  }

  private Optional<String[]> fromEnvironment() {
    String token = env.get(TOKEN_ENV);
    if (token == null || token.isBlank()) {
      return Optional.empty();
    }
    String user = env.getOrDefault(USERNAME_ENV, "");
    return Optional.of(new String[] {user.isBlank() ? "x-access-token" : user, token.strip()});
  }

  /**
   * Asks {@code git credential fill} (git-credential(1): key=value lines, a blank line ends the
   * input), in {@code env} (the process environment in production: HOME, GIT_CONFIG_GLOBAL and
   * GIT_ASKPASS decide).
   */
  private Optional<String[]> fromHelper(URIish uri) {
    StringBuilder in = new StringBuilder();
    in.append("protocol=")
        .append(uri.getScheme())
        .append('\n')
        .append("host=")
        .append(uri.getHost());
    if (uri.getPort() > 0) {
      in.append(':').append(uri.getPort());
    }
    in.append('\n').append("path=").append(uri.getPath().replaceFirst("^/", "")).append("\n\n");
    try {
      ProcessBuilder pb =
          new ProcessBuilder("git", "credential", "fill")
              .redirectError(ProcessBuilder.Redirect.DISCARD);
      pb.environment().putAll(env);
      pb.environment().put("GIT_TERMINAL_PROMPT", "0");
      folder(env).ifPresent(d -> pb.directory(d.toFile()));
      Process p = pb.start();
      p.getOutputStream().write(in.toString().getBytes(StandardCharsets.UTF_8));
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(HELPER_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return Optional.empty();
      }
      return p.exitValue() == 0 ? parse(out) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /**
   * The folder {@code git credential fill} runs in: the call's, {@code PWD} (a shell's; the
   * resident server sets it to its caller's working folder), so the repository-local config and
   * {@code includeIf "gitdir:..."} sections of the caller's folder apply as they would to git run
   * there; empty (this JVM's folder) when {@code PWD} is not an absolute path of a folder.
   */
  static Optional<Path> folder(Map<String, String> env) {
    String pwd = env.getOrDefault("PWD", "");
    try {
      Path dir = Path.of(pwd);
      return dir.isAbsolute() && Files.isDirectory(dir) ? Optional.of(dir) : Optional.empty();
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
  }

  static Optional<String[]> parse(String helperOutput) {
    String user = null;
    String password = null;
    for (String line : helperOutput.split("\n")) {
      if (line.startsWith("username=")) {
        user = line.substring("username=".length());
      } else if (line.startsWith("password=")) {
        password = line.substring("password=".length());
      }
    }
    return user == null || password == null || password.isEmpty()
        ? Optional.empty()
        : Optional.of(new String[] {user, password});
  }
}
