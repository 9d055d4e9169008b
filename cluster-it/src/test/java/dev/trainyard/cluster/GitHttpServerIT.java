package dev.trainyard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GitHttpServer} is a real git server: the git CLI and JGit clone, push and fetch through
 * {@code git http-backend}, and with credentials on it refuses what a forge's private repository
 * refuses (401 with {@code WWW-Authenticate: Basic}). Needs no cluster.
 */
class GitHttpServerIT {

  static final GitHttpServer.Credentials CREDENTIALS =
      new GitHttpServer.Credentials("ci", "tok-" + System.nanoTime());

  @Test
  @DisplayName("a commit pushed with the git CLI is in the bare repo and in a fresh clone")
  void pushAndCloneRoundTrip(@TempDir Path temp) throws Exception {
    try (GitHttpServer server = GitHttpServer.start(temp.resolve("server"), Optional.empty())) {
      Path bare = server.createBareRepo("it.git");
      Map<String, String> env = GitCli.isolatedEnv(temp);
      String sha = commitAndPush(temp.resolve("a"), server.url("it.git"), env);
      assertEquals(
          sha,
          GitCli.run(bare, env, "rev-parse", "refs/heads/main").trim(),
          "ref in the bare repo");
      GitCli.run(temp, env, "clone", "--quiet", server.url("it.git"), temp.resolve("b").toString());
      assertEquals(
          "hello\n", Files.readString(temp.resolve("b/file.txt")), "file in a fresh clone");
      assertEquals(sha, GitCli.run(temp.resolve("b"), env, "rev-parse", "HEAD").trim());
    }
  }

  @Test
  @DisplayName(
      "with credentials on, a push without them fails with 401 and changes nothing; with them it lands")
  void pushNeedsCredentials(@TempDir Path temp) throws Exception {
    try (GitHttpServer server =
        GitHttpServer.start(temp.resolve("server"), Optional.of(CREDENTIALS))) {
      Path bare = server.createBareRepo("private.git");
      Map<String, String> env = GitCli.isolatedEnv(temp);
      Path work = initWorkTree(temp.resolve("w"), server.url("private.git"), env);
      GitCli.Result refused = GitCli.attempt(work, env, "push", "origin", "main");
      assertNotEquals(0, refused.exit(), refused.output());
      // git asks for a username only after a 401 challenge; with prompts off that is where it
      // stops.
      assertTrue(
          refused.output().contains("could not read Username")
              || refused.output().contains("Authentication failed"),
          refused.output());
      assertEquals(
          "", GitCli.run(bare, env, "for-each-ref").trim(), "no ref may land without credentials");

      GitCli.run(work, GitCli.withBasicAuth(env, CREDENTIALS), "push", "--quiet", "origin", "main");
      assertEquals(
          GitCli.run(work, env, "rev-parse", "HEAD").trim(),
          GitCli.run(bare, env, "rev-parse", "refs/heads/main").trim());
    }
  }

  @Test
  @DisplayName(
      "with credentials on, a request without them or with a wrong token gets 401 and WWW-Authenticate: Basic")
  void rawRequestsAreChallenged(@TempDir Path temp) throws Exception {
    try (GitHttpServer server =
        GitHttpServer.start(temp.resolve("server"), Optional.of(CREDENTIALS))) {
      server.createBareRepo("private.git");
      String refs = server.url("private.git") + "/info/refs?service=git-upload-pack";
      HttpResponse<String> anonymous = get(refs, Optional.empty());
      assertEquals(401, anonymous.statusCode());
      assertTrue(
          anonymous.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic "),
          anonymous.headers().map().toString());
      var wrong = new GitHttpServer.Credentials(CREDENTIALS.user(), CREDENTIALS.token() + "x");
      assertEquals(401, get(refs, Optional.of(wrong.basicHeader())).statusCode(), "wrong token");
      HttpResponse<String> ok = get(refs, Optional.of(CREDENTIALS.basicHeader()));
      assertEquals(200, ok.statusCode(), ok.body());
      assertEquals(
          "application/x-git-upload-pack-advertisement",
          ok.headers().firstValue("Content-Type").orElse(""));
    }
  }

  @Test
  @DisplayName("a repository that does not exist is answered with the CGI's Status: 404")
  void unknownRepositoryIs404(@TempDir Path temp) throws Exception {
    try (GitHttpServer server = GitHttpServer.start(temp.resolve("server"), Optional.empty())) {
      HttpResponse<String> response =
          get(server.url("missing.git") + "/info/refs?service=git-upload-pack", Optional.empty());
      assertEquals(404, response.statusCode(), response.body());
    }
  }

  @Test
  @DisplayName("JGit pushes to it and clones from it with basic-auth credentials")
  void jgitRoundTrip(@TempDir Path temp) throws Exception {
    try (GitHttpServer server =
        GitHttpServer.start(temp.resolve("server"), Optional.of(CREDENTIALS))) {
      Path bare = server.createBareRepo("jgit.git");
      var login = new UsernamePasswordCredentialsProvider(CREDENTIALS.user(), CREDENTIALS.token());
      try (Git git =
          Git.init().setDirectory(temp.resolve("j").toFile()).setInitialBranch("main").call()) {
        Files.writeString(temp.resolve("j/run.yaml"), "kind: Run\n", StandardCharsets.UTF_8);
        git.add().addFilepattern(".").call();
        git.commit()
            .setMessage("run")
            .setAuthor("IT", "it@trainyard.dev")
            .setCommitter("IT", "it@trainyard.dev")
            .call();
        git.push()
            .setRemote(server.url("jgit.git"))
            .add("main")
            .setCredentialsProvider(login)
            .setTimeout((int) GitHttpServer.GIT_TIMEOUT.toSeconds())
            .call();
      }
      try (Git clone =
          Git.cloneRepository()
              .setURI(server.url("jgit.git"))
              .setDirectory(temp.resolve("c").toFile())
              .setCredentialsProvider(login)
              .setTimeout((int) GitHttpServer.GIT_TIMEOUT.toSeconds())
              .call()) {
        assertEquals("kind: Run\n", Files.readString(temp.resolve("c/run.yaml")));
      }
      assertEquals(
          "1",
          GitCli.run(bare, GitCli.isolatedEnv(temp), "rev-list", "--count", "main").trim(),
          "commits on main");
    }
  }

  /**
   * A work tree with one commit of {@code file.txt}, pushed to {@code url}; returns the commit SHA.
   */
  private static String commitAndPush(Path dir, String url, Map<String, String> env)
      throws Exception {
    Path work = initWorkTree(dir, url, env);
    GitCli.run(work, env, "push", "--quiet", "origin", "main");
    return GitCli.run(work, env, "rev-parse", "HEAD").trim();
  }

  private static Path initWorkTree(Path dir, String url, Map<String, String> env) throws Exception {
    Files.createDirectories(dir);
    GitCli.run(dir, env, "init", "--quiet", "--initial-branch=main");
    GitCli.run(dir, env, "remote", "add", "origin", url);
    Files.writeString(dir.resolve("file.txt"), "hello\n", StandardCharsets.UTF_8);
    GitCli.run(dir, env, "add", "file.txt");
    GitCli.run(dir, env, "commit", "--quiet", "-m", "first");
    return dir;
  }

  private static HttpResponse<String> get(String url, Optional<String> authorization)
      throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
    authorization.ifPresent(value -> request.header("Authorization", value));
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
