package dev.trainyard.gitops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.trainyard.compiler.testing.GitCgiServer;
import dev.trainyard.compiler.testing.Wording;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GitOpsRepository} and {@link GitCredentials} against real repositories and an HTTP server
 * that asks for credentials.
 */
class GitOpsRepositoryTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;
  HttpServer server;
  final List<String> authorizations = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  /** Answers 401 + WWW-Authenticate until a Basic header arrives, then {@code afterAuth}. */
  String serve(int afterAuth) throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          String auth = exchange.getRequestHeaders().getFirst("Authorization");
          if (auth == null) {
            exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"git\"");
            exchange.sendResponseHeaders(401, -1);
          } else {
            authorizations.add(auth);
            exchange.sendResponseHeaders(afterAuth, -1);
          }
          exchange.close();
        });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/acme/gitops.git";
  }

  GitOpsException fetchFails(String url, Map<String, String> env) throws Exception {
    try (GitOpsRepository repo =
        GitOpsRepository.mirror(GitOpsLocation.parse(url, temp), temp.resolve("cache"), env)) {
      return assertThrows(GitOpsException.class, () -> repo.fetch("main"));
    }
  }

  Map<String, String> isolated(String gitconfig) throws Exception {
    Path config = Files.writeString(temp.resolve("gitconfig"), gitconfig);
    return Map.of(
        "GIT_CONFIG_GLOBAL",
        config.toString(),
        "GIT_CONFIG_NOSYSTEM",
        "1",
        "HOME",
        temp.toString());
  }

  static String basic(String user, String password) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName(
      "TRAINYARD_GITOPS_TOKEN answers the server's challenge as x-access-token; a 403 then says the token may not write")
  void tokenFromEnvironment() throws Exception {
    String url = serve(403);
    GitOpsException e = fetchFails(url, Map.of("TRAINYARD_GITOPS_TOKEN", "t0k3n"));
    assertEquals(List.of(basic("x-access-token", "t0k3n")), authorizations.subList(0, 1));
    assertTrue(e.getMessage().startsWith("cannot fetch main from " + url + ": "), e.getMessage());
    WORDING.approve(e.hint());
    assertFalse(e.getMessage().contains("t0k3n") || e.hint().contains("t0k3n"));
    assertFalse(e.isUsage());
  }

  @Test
  @DisplayName("without a token, git's credential helper answers (git credential fill)")
  void credentialHelper() throws Exception {
    String url = serve(403);
    fetchFails(
        url,
        isolated(
            "[credential]\n\thelper = \"!f() { echo username=ada; echo password=pw; }; f\"\n"));
    assertEquals(basic("ada", "pw"), authorizations.get(0));
  }

  @Test
  @DisplayName(
      "no credentials anywhere: the server's 401 says none were found and where, with the token hint")
  void noCredentials() throws Exception {
    String url = serve(403);
    GitOpsException e = fetchFails(url, isolated(""));
    assertEquals(List.of(), authorizations);
    assertEquals(
        "cannot fetch main from "
            + url
            + ": the server wants credentials and none were found: TRAINYARD_GITOPS_TOKEN is not"
            + " set and git credential fill gave none",
        e.getMessage());
    WORDING.approve(e.hint());
  }

  @Test
  @DisplayName("an unreachable server is an environment error that says to check the URL")
  void unreachable() throws Exception {
    GitOpsException e = fetchFails("http://127.0.0.1:9/x.git", Map.of());
    WORDING.approve(e.hint());
  }

  @Test
  @DisplayName(
      "a local repository is read by revision; an unknown revision (a usage error) or a folder without git is an error")
  void localSnapshots() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    GitCli.pushFiles(bare, temp.resolve("w"), Map.of("a/b.txt", "hi\n"), "one");
    try (GitOpsRepository repo = GitOpsRepository.local(bare)) {
      Snapshot s = repo.snapshot("main");
      assertEquals(Optional.of("hi\n"), s.read("a/b.txt"));
      assertEquals(Optional.of(GitCli.git(bare, "rev-parse", "main").strip()), s.commit());
      assertEquals(Map.of("b.txt", "hi\n"), s.folder("a"));
      GitOpsException e = assertThrows(GitOpsException.class, () -> repo.snapshot("nope"));
      assertTrue(e.getMessage().startsWith("no commit \"nope\" in "), e.getMessage());
      assertTrue(e.isUsage(), "the user's revision: exit 2, as --changed-since's");
    }
    Files.createDirectories(temp.resolve("plain"));
    assertThrows(GitOpsException.class, () -> GitOpsRepository.local(temp.resolve("plain")));
  }

  @Test
  @DisplayName(
      "a commit whose tree equals its base is not made; edits that change nothing give the same tree")
  void noEmptyCommits() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    GitCli.pushFiles(bare, temp.resolve("w"), Map.of("a/b.txt", "hi\n"), "one");
    try (GitOpsRepository repo =
        GitOpsRepository.mirror(
            GitOpsLocation.parse(bare.toString(), temp), temp.resolve("cache"), Map.of())) {
      Optional<Snapshot> base = repo.fetch("main");
      CommitText.Person p = new CommitText.Person("a", "a@b", Instant.EPOCH);
      CommitText text = new CommitText("s", "", List.of(), p, p);
      assertEquals(
          Optional.empty(),
          repo.commit(
              base, repo.apply(base, List.of(new TreeEdit.WriteFile("a/b.txt", "hi\n"))), text));
      Snapshot changed =
          repo.apply(
              base, List.of(new TreeEdit.ReplaceFolder("a", new TreeMap<>(Map.of("c.txt", "x")))));
      assertEquals(List.of("c.txt"), changed.children("a"));
      assertTrue(repo.commit(base, changed, text).isPresent());
      Snapshot emptied = repo.apply(base, List.of(new TreeEdit.DeleteFolder("a")));
      assertEquals(List.of(), emptied.children(""), "git keeps no empty folders");
    }
  }

  @Test
  @DisplayName("each GitOps URL has its own mirror in the cache")
  void mirrorPerUrl() throws Exception {
    Path one = GitCli.bare(temp.resolve("one.git"));
    Path two = GitCli.bare(temp.resolve("two.git"));
    GitOpsRepository.mirror(
            GitOpsLocation.parse(one.toString(), temp), temp.resolve("cache"), Map.of())
        .close();
    GitOpsRepository.mirror(
            GitOpsLocation.parse(two.toString(), temp), temp.resolve("cache"), Map.of())
        .close();
    try (var files = Files.list(temp.resolve("cache/gitops"))) {
      assertEquals(2, files.filter(f -> f.toString().endsWith(".git")).count());
    }
  }

  @Test
  @DisplayName(
      "a mirror that fails to open after its lock was taken (a leftover it cannot delete) says so and releases the lock: a resident server would otherwise hold it for every later call")
  void failedOpenReleasesTheLock() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    GitOpsLocation location = GitOpsLocation.parse(bare.toString(), temp);
    Path cache = temp.resolve("cache");
    GitOpsRepository.mirror(location, cache, Map.of()).close();
    Path mirror;
    Path lock;
    try (var files = Files.list(cache.resolve("gitops"))) {
      List<Path> all = files.toList();
      mirror = all.stream().filter(f -> f.toString().endsWith(".git")).findFirst().orElseThrow();
      lock = all.stream().filter(f -> f.toString().endsWith(".lock")).findFirst().orElseThrow();
    }
    Path stuck = mirror.resolve("refs/heads/stale.lock");
    Files.writeString(stuck, "x");
    assumeTrue(
        chattr("+i", stuck), "NOT RUN: chattr +i does not work here (needs root and ext4/xfs)");
    try {
      GitOpsException e =
          assertThrows(
              GitOpsException.class, () -> GitOpsRepository.mirror(location, cache, Map.of()));
      assertTrue(
          e.getMessage().startsWith("cannot use the GitOps cache " + mirror), e.getMessage());
      assertTrue(e.getMessage().contains("stale.lock"), e.getMessage());
      try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE);
          FileLock held = channel.tryLock()) {
        assertNotNull(held, "another process holds the lock");
      }
    } finally {
      chattr("-i", stuck);
    }
    GitOpsRepository.mirror(location, cache, Map.of()).close();
    assertFalse(Files.exists(stuck), "the leftover, once deletable");
  }

  private static boolean chattr(String flag, Path file) throws Exception {
    Process p =
        new ProcessBuilder("chattr", flag, file.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    return p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0;
  }

  @Test
  @DisplayName("a mirror locked by another process is waited for, then used")
  void waitsForLock() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    GitOpsLocation location = GitOpsLocation.parse(bare.toString(), temp);
    GitOpsRepository.mirror(location, temp.resolve("cache"), Map.of()).close();
    Path lock;
    try (var files = Files.list(temp.resolve("cache/gitops"))) {
      lock = files.filter(f -> f.toString().endsWith(".lock")).findFirst().orElseThrow();
    }
    FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE);
    FileLock held = channel.lock();
    Thread release =
        new Thread(
            () -> {
              try {
                Thread.sleep(300);
                held.release();
                channel.close();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    long start = System.nanoTime();
    release.start();
    GitOpsRepository.mirror(location, temp.resolve("cache"), Map.of()).close();
    release.join();
    assertTrue(System.nanoTime() - start >= 250_000_000L, "it waited for the lock");
  }

  @Test
  @DisplayName(
      "a push the server refuses for a held ref lock is a lost race (fetch and try again); one a hook declines is an error naming the branch and the server's words")
  void refusedPushes() throws Exception {
    Files.createDirectories(temp.resolve("git"));
    Path bare = GitCli.bare(temp.resolve("git/ops.git"));
    GitCli.pushFiles(bare, temp.resolve("w"), Map.of("a.txt", "hi\n"), "one");
    CommitText.Person p = new CommitText.Person("a", "a@b", Instant.EPOCH);
    CommitText text = new CommitText("s", "", List.of(), p, p);
    try (GitCgiServer server = new GitCgiServer(temp.resolve("git"));
        GitOpsRepository repo =
            GitOpsRepository.mirror(
                GitOpsLocation.parse(server.url("ops.git"), temp),
                temp.resolve("cache"),
                Map.of())) {
      Optional<Snapshot> base = repo.fetch("main");
      String commit =
          repo.commit(base, repo.apply(base, List.of(new TreeEdit.WriteFile("b.txt", "x\n"))), text)
              .orElseThrow();
      Path lock = Files.writeString(bare.resolve("refs/heads/main.lock"), "");
      assertEquals(GitOpsRepository.PushOutcome.RACED, repo.push(commit, "main", base));
      Files.delete(lock);
      Path hook = Files.writeString(bare.resolve("hooks/pre-receive"), "#!/bin/sh\nexit 1\n");
      assertTrue(hook.toFile().setExecutable(true));
      GitOpsException e =
          assertThrows(GitOpsException.class, () -> repo.push(commit, "main", base));
      assertTrue(
          e.getMessage()
              .startsWith(
                  "the GitOps repository " + server.url("ops.git") + " refused the push to main: "),
          e.getMessage());
      assertTrue(e.getMessage().contains("hook declined"), e.getMessage());
      Files.delete(hook);
      assertEquals(GitOpsRepository.PushOutcome.PUSHED, repo.push(commit, "main", base));
      assertEquals(commit, GitCli.git(bare, "rev-parse", "main").strip());
    }
  }

  @Test
  @DisplayName(
      "a push to the branch a local working copy has checked out is refused as git refuses it (receive.denyCurrentBranch), leaving the copy as it was; another branch, or the copy's own `ignore`, passes")
  void checkedOutBranchRefused() throws Exception {
    Path work = Files.createDirectories(temp.resolve("work"));
    GitCli.git(work, "init", "-q", "-b", "main");
    Files.writeString(work.resolve("a.txt"), "hi\n");
    GitCli.git(work, "add", "-A");
    GitCli.git(work, "commit", "-q", "-m", "one");
    String before = GitCli.git(work, "rev-parse", "main").strip();
    CommitText.Person p = new CommitText.Person("a", "a@b", Instant.EPOCH);
    CommitText text = new CommitText("s", "", List.of(), p, p);
    GitOpsLocation location = GitOpsLocation.parse(work.toString(), temp);
    try (GitOpsRepository repo =
        GitOpsRepository.mirror(location, temp.resolve("cache"), Map.of())) {
      Optional<Snapshot> base = repo.fetch("main");
      String commit =
          repo.commit(base, repo.apply(base, List.of(new TreeEdit.WriteFile("b.txt", "x\n"))), text)
              .orElseThrow();
      for (String deny : List.of("", "refuse", "updateInstead")) {
        if (!deny.isEmpty()) {
          GitCli.git(work, "config", "receive.denyCurrentBranch", deny);
        }
        GitOpsException e =
            assertThrows(GitOpsException.class, () -> repo.push(commit, "main", base), deny);
        assertTrue(e.isUsage(), "a usage error: exit 2");
        assertEquals(
            "--gitops "
                + location.shown()
                + " is a working copy with main checked out: a push would move main under its"
                + " files, and its next commit would undo the push (git refuses this push too:"
                + " receive.denyCurrentBranch)",
            e.getMessage());
        assertEquals(
            "submit to a bare repository (`git init --bare -b main`) or to the remote that working"
                + " copy pushes to",
            e.hint());
        assertEquals(before, GitCli.git(work, "rev-parse", "main").strip());
        assertEquals("", GitCli.git(work, "status", "--short"));
      }
      assertEquals(
          GitOpsRepository.PushOutcome.PUSHED, repo.push(commit, "runs", Optional.empty()));
      assertEquals(commit, GitCli.git(work, "rev-parse", "runs").strip());
      for (String allow : List.of("ignore", "Warn", "false")) {
        GitCli.git(work, "update-ref", "refs/heads/main", before);
        GitCli.git(work, "config", "receive.denyCurrentBranch", allow);
        assertEquals(GitOpsRepository.PushOutcome.PUSHED, repo.push(commit, "main", base), allow);
        assertEquals(commit, GitCli.git(work, "rev-parse", "main").strip());
      }
    }
  }

  @Test
  @DisplayName(
      "a mirror's leftovers from a killed git (*.lock, incoming_* files) are removed; other files and folders stay")
  void leftoversDropped() throws Exception {
    Path dir = temp.resolve("mirror.git");
    Files.createDirectories(dir.resolve("objects/pack/incoming_dir"));
    Files.writeString(dir.resolve("config"), "[core]\n");
    Files.writeString(dir.resolve("index.lock"), "");
    Files.writeString(dir.resolve("objects/pack/incoming_abc.pack"), "x");
    Files.writeString(dir.resolve("objects/pack/incoming_dir/keep.pack"), "x");
    Files.createDirectories(dir.resolve("refs/heads/stale.lock"));
    Files.writeString(dir.resolve("refs/heads/stale.lock/main"), "x");
    Files.writeString(dir.resolve("objects/pack/pack-1.pack"), "x");
    GitOpsRepository.dropLeftovers(dir);
    assertFalse(Files.exists(dir.resolve("index.lock")));
    assertFalse(Files.exists(dir.resolve("objects/pack/incoming_abc.pack")));
    assertTrue(Files.exists(dir.resolve("objects/pack/incoming_dir/keep.pack")), "a folder stays");
    assertTrue(Files.exists(dir.resolve("refs/heads/stale.lock/main")), "a folder stays");
    assertTrue(Files.exists(dir.resolve("objects/pack/pack-1.pack")));
    assertTrue(Files.exists(dir.resolve("config")));
  }

  @Test
  @DisplayName("a bare repository has no work tree; a clone's work tree is its folder")
  void workTree() throws Exception {
    Path bare = GitCli.bare(temp.resolve("ops.git"));
    GitCli.pushFiles(bare, temp.resolve("w"), Map.of("a.txt", "hi\n"), "one");
    try (GitOpsRepository repo = GitOpsRepository.local(bare)) {
      assertEquals(Optional.empty(), repo.workTree());
    }
    try (GitOpsRepository repo = GitOpsRepository.local(temp.resolve("w"))) {
      assertEquals(temp.resolve("w").toRealPath(), repo.workTree().orElseThrow().toRealPath());
    }
  }
}
