package dev.trainyard.cluster;

import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Bare git repositories served over git's smart HTTP protocol on 127.0.0.1 (an ephemeral port) by
 * the real {@code git http-backend}, run as a CGI program per request ({@link GitHttpBackend}).
 * Clone, fetch and push work with any git client: the git CLI, JGit, go-git in Flux's
 * source-controller.
 *
 * <pre>
 * try (GitHttpServer git = GitHttpServer.start(workDir, Optional.of(new Credentials("flux", token)))) {
 *     git.createBareRepo("gitops.git");
 *     String url = git.url("gitops.git");   // http://127.0.0.1:PORT/gitops.git
 * }
 * </pre>
 *
 * <p>With credentials, every request needs HTTP basic auth with that user and token, as a forge's
 * private repository does (GitHub and GitLab answer 401 with {@code WWW-Authenticate: Basic} to a
 * git client without credentials); the user becomes the CGI {@code REMOTE_USER}. Repositories live
 * in {@code <workDir>/repos}; http-backend's stderr goes to {@code <workDir>/git-http-backend.log}.
 */
final class GitHttpServer implements AutoCloseable {

  /** How long one git request (one CGI process) may take before it is killed. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  static final Duration GIT_TIMEOUT = Duration.ofSeconds(30);
  private static final int STOP_DELAY_SECONDS = 1;

  /** A basic-auth user and its token (the password); {@link #toString()} never shows the token. */
  record Credentials(String user, String token) {
    /** The value of an {@code Authorization} header carrying these credentials. */
    String basicHeader() {
      return "Basic "
          + Base64.getEncoder()
              .encodeToString((user + ":" + token).getBytes(StandardCharsets.UTF_8));
    }

    boolean matches(String givenUser, String givenToken) {
      // constant-time comparisons, both always evaluated (&, not &&), as a forge compares tokens
      return MessageDigest.isEqual(bytes(user), bytes(givenUser))
          & MessageDigest.isEqual(bytes(token), bytes(givenToken));
    }

    private static byte[] bytes(String s) {
      return s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return "Credentials[user=" + user + ", token=***]";
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final GitHttpBackend backend;
  private final Path repos;

  private GitHttpServer(
      HttpServer server, ExecutorService executor, GitHttpBackend backend, Path repos) {
    this.server = server;
    this.executor = executor;
    this.backend = backend;
    this.repos = repos;
  }

  /** Starts serving {@code <workDir>/repos}; with {@code credentials}, only to that user. */
  static GitHttpServer start(Path workDir, Optional<Credentials> credentials) {
    Path repos = LocalCluster.mkdirs(workDir.resolve("repos"));
    GitHttpBackend backend =
        new GitHttpBackend(repos, workDir.resolve("git-http-backend.log"), REQUEST_TIMEOUT);
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(LoopbackPorts.LOOPBACK, 0), 16);
      HttpContext context = server.createContext("/", backend);
      credentials.ifPresent(c -> context.setAuthenticator(authenticator(c)));
      ExecutorService executor =
          Executors.newFixedThreadPool(
              4,
              runnable -> {
                Thread thread = new Thread(runnable, "git-http-server");
                thread.setDaemon(true);
                return thread;
              });
      server.setExecutor(executor);
      server.start();
      return new GitHttpServer(server, executor, backend, repos);
    } catch (IOException e) {
      backend.close();
      throw new UncheckedIOException("cannot start the git HTTP server on 127.0.0.1", e);
    }
  }

  private static BasicAuthenticator authenticator(Credentials credentials) {
    return new BasicAuthenticator("trainyard-it git", StandardCharsets.UTF_8) {
      @Override
      public boolean checkCredentials(String user, String password) {
        return credentials.matches(user, password);
      }
    };
  }

  /** {@code http://127.0.0.1:PORT/<repo>}, without credentials. */
  String url(String repo) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + repo;
  }

  /**
   * Creates an empty bare repository {@code <repos>/<name>} whose HEAD is {@code main}; returns its
   * path.
   */
  Path createBareRepo(String name) {
    Path dir = repos.resolve(name);
    GitCli.run(
        repos,
        GitCli.isolatedEnv(repos),
        "init",
        "--quiet",
        "--bare",
        "--initial-branch=main",
        dir.toString());
    return dir;
  }

  Path repo(String name) {
    return repos.resolve(name);
  }

  @Override
  public void close() {
    server.stop(STOP_DELAY_SECONDS);
    executor.shutdownNow();
    try {
      executor.awaitTermination(REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    backend.close();
  }
}
