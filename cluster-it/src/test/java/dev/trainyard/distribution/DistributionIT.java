package dev.trainyard.distribution;

import static java.util.stream.Collectors.toSet;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.trainyard.compiler.Compiler;
import dev.trainyard.distribution.Launch.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.CopyOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The installable distribution that {@code mvn package} of module cli writes ({@code
 * cli/target/trainyard-<version>.tar.gz} and {@code .zip}), unpacked with the real {@code tar} and
 * run the way a user runs it: through symlinks on PATH, with Java found through JAVA_HOME or PATH,
 * and with nothing on PATH but the launcher and the few tools it uses. Needs no cluster.
 */
class DistributionIT {
  static final Path TARBALL = Path.of(System.getProperty("trainyard.distribution.tar", "missing"));
  static final Path ZIP = Path.of(System.getProperty("trainyard.distribution.zip", "missing"));
  static final Path REPO = Path.of(System.getProperty("trainyard.repo.root", ".."));
  static final String VERSION = System.getProperty("trainyard.version", "missing");

  /** The tools bin/trainyard calls; PATH holds links to these and nothing else. */
  static final List<String> TOOLS =
      List.of(
          "bash",
          "dirname",
          "basename",
          "readlink",
          "sed",
          "head",
          "ls",
          "cksum",
          "cut",
          "mkdir",
          "mv",
          "rm",
          "grep");

  @TempDir static Path temp;
  static Path home;
  static Path tools;

  @BeforeAll
  static void unpack() throws IOException {
    assertTrue(Files.isRegularFile(TARBALL), "the cli build writes " + TARBALL);
    Path unpacked = Files.createDirectories(temp.resolve("opt"));
    Result tar =
        Launch.run(
            unpacked,
            Map.of("PATH", System.getenv("PATH")),
            List.of("tar", "-xzf", TARBALL.toString()));
    assertEquals(0, tar.exit(), tar.toString());
    home = unpacked.resolve("trainyard-" + VERSION);
    tools = Files.createDirectories(temp.resolve("tools"));
    for (String tool : TOOLS) {
      Files.createSymbolicLink(tools.resolve(tool), systemTool(tool));
    }
  }

  @Test
  @DisplayName(
      "the tarball holds bin/trainyard (mode 755), LICENSE and lib/ with the CLI jar and every runtime dependency")
  void layout() throws IOException {
    Path launcher = home.resolve("bin/trainyard");
    assertEquals(
        "rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(launcher)));
    assertTrue(Files.isRegularFile(home.resolve("LICENSE")));
    assertTrue(Files.isRegularFile(home.resolve("libexec/trainyard-server.sh")));
    Set<String> expected = names(REPO.resolve("cli/target/lib"));
    expected.add("trainyard-cli-" + VERSION + ".jar");
    assertTrue(expected.size() > 20, "runtime dependencies copied by the cli build: " + expected);
    assertEquals(expected, names(home.resolve("lib")));
  }

  @Test
  @DisplayName(
      "every tar entry carries project.build.outputTimestamp and owner root/root, and the zip holds the same files")
  void reproducibleEntries() throws IOException {
    Result listing =
        Launch.run(
            temp,
            Map.of("PATH", System.getenv("PATH"), "TZ", "UTC"),
            List.of("tar", "--full-time", "-tvzf", TARBALL.toString()));
    assertEquals(0, listing.exit(), listing.toString());
    String stamp =
        DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneOffset.UTC)
            .format(Instant.parse(System.getProperty("trainyard.output.timestamp")));
    Set<String> tarFiles = new TreeSet<>();
    for (String line : listing.out().split("\n")) {
      assertTrue(line.contains(" " + stamp + " "), "entry time: " + line);
      // plexus-archiver 4.10 (AbstractArchiver.configureReproducibleBuild): owner root/root, umask
      // 022.
      assertTrue(line.contains(" root/root "), "entry owner: " + line);
      String name = line.substring(line.lastIndexOf(' ') + 1);
      if (!name.endsWith("/")) {
        tarFiles.add(name);
      }
    }
    Set<String> zipFiles = new TreeSet<>();
    try (ZipFile zip = new ZipFile(ZIP.toFile())) {
      zip.stream().filter(e -> !e.isDirectory()).forEach(e -> zipFiles.add(e.getName()));
    }
    assertEquals(tarFiles, zipFiles);
  }

  @Test
  @DisplayName(
      "bin/trainyard-controller (mode 755) runs --help through a symlink on PATH; share/controller holds controller.yaml and deploy's platform.yaml")
  void controllerLauncher() throws IOException {
    assertEquals(
        "rwxr-xr-x",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(home.resolve("bin/trainyard-controller"))));
    assertEquals(
        Files.readString(REPO.resolve("controller/deploy/platform.yaml")),
        Files.readString(home.resolve("share/controller/platform.yaml")));
    assertTrue(Files.isRegularFile(home.resolve("share/controller/controller.yaml")));
    Result help =
        Launch.run(
            temp, env(controllerOnPath(), javaHome()), command("trainyard-controller", "--help"));
    assertEquals(0, help.exit(), help.toString());
    assertTrue(help.out().startsWith("Usage: trainyard-controller "), help.out());
    assertTrue(help.out().contains("--config"), help.out());
  }

  @Test
  @DisplayName(
      "trainyard-controller reads share/controller's files from any working directory: a missing token file is exit 1 naming it; with the token, an unreachable cluster is exit 3")
  void controllerConfigCheck() throws IOException {
    Path conf = temp.resolve("my controller");
    copyTree(home.resolve("share/controller"), conf);
    Path elsewhere = Files.createDirectories(temp.resolve("elsewhere"));
    List<String> start =
        command(
            "trainyard-controller",
            "--config",
            conf.resolve("controller.yaml").toString(),
            "--kubeconfig",
            temp.resolve("no-kubeconfig").toString(),
            "--no-leader-election",
            "--port",
            "0");
    Result noToken = Launch.run(elsewhere, env(controllerOnPath(), javaHome()), start);
    assertEquals(1, noToken.exit(), noToken.toString());
    assertTrue(
        noToken
            .err()
            .contains(conf.resolve("tokens/trainyard-forge-tokens/github-token").toString()),
        noToken.err());
    Path token = conf.resolve("tokens/trainyard-forge-tokens/github-token");
    Files.createDirectories(token.getParent());
    Files.writeString(token, "ghp_not-a-real-token\n");
    Result noCluster = Launch.run(elsewhere, env(controllerOnPath(), javaHome()), start);
    assertEquals(3, noCluster.exit(), noCluster.toString());
    assertTrue(noCluster.err().contains("no-kubeconfig"), noCluster.err());
    assertFalse(noCluster.err().contains("ghp_not-a-real-token"), noCluster.err());
  }

  @Test
  @DisplayName("--version runs through a chain of symlinks on PATH, from any working directory")
  void versionThroughSymlinks() throws IOException {
    Path onPath = Files.createDirectories(temp.resolve("symlinks/bin"));
    Path relative =
        Files.createSymbolicLink(
            onPath.resolve("trainyard-relative"), onPath.relativize(home.resolve("bin/trainyard")));
    Files.createSymbolicLink(onPath.resolve("trainyard"), relative.toAbsolutePath());
    Result result = Launch.run(temp, env(onPath, javaHome()), trainyard("--version"));
    assertEquals(new Result(0, "trainyard " + Compiler.VERSION + "\n", ""), result);
  }

  @Test
  @DisplayName(
      "compile of an example through the symlink writes the JobSet, with spaces in paths kept")
  void compileExample() throws IOException {
    Path onPath = linkedLauncher("compile");
    Path repo = temp.resolve("my source repo");
    copyTree(REPO.resolve("examples/pytorch-ddp"), repo);
    Map<String, String> gitEnv =
        new HashMap<>(
            Map.of(
                "PATH",
                System.getenv("PATH"),
                "HOME",
                temp.toString(),
                "GIT_AUTHOR_NAME",
                "Ex",
                "GIT_AUTHOR_EMAIL",
                "ex@example.com",
                "GIT_COMMITTER_NAME",
                "Ex",
                "GIT_COMMITTER_EMAIL",
                "ex@example.com",
                "GIT_CONFIG_NOSYSTEM",
                "1"));
    for (List<String> git :
        List.of(
            List.of("git", "init", "-q", "-b", "main"),
            List.of("git", "remote", "add", "origin", "https://github.com/acme/pytorch-ddp.git"),
            List.of("git", "add", "."),
            List.of("git", "commit", "-q", "-m", "example"))) {
      Result r = Launch.run(repo, gitEnv, git);
      assertEquals(0, r.exit(), r.toString());
    }
    Result result =
        Launch.run(
            repo,
            env(onPath, javaHome()),
            trainyard(
                "compile",
                "train.yaml",
                "--platform",
                REPO.resolve("examples/platform.yaml").toString(),
                "--out",
                "gitops out"));
    assertEquals(0, result.exit(), result.toString());
    try (Stream<Path> files = Files.walk(repo.resolve("gitops out/clusters"))) {
      assertTrue(
          files.anyMatch(f -> f.getFileName().toString().startsWith("jobset-")), result.toString());
    }
  }

  @Test
  @DisplayName(
      "without JAVA_HOME, java on PATH is used, with the checkout launcher's JVM options and TRAINYARD_JAVA_OPTS")
  void javaFromPathAndOptions() throws IOException {
    Path onPath = linkedLauncher("path-java");
    Files.createSymbolicLink(onPath.resolve("java"), Path.of(javaHome(), "bin", "java"));
    Map<String, String> env = env(onPath, null);
    env.put("TRAINYARD_JAVA_OPTS", "-XX:+PrintCommandLineFlags -Dtrainyard.probe=1");
    Result result = Launch.run(temp, env, trainyard("--version"));
    assertEquals(0, result.exit(), result.toString());
    for (String flag :
        List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:+PrintCommandLineFlags")) {
      assertTrue(result.out().contains(flag), flag + " in " + result);
    }
    assertTrue(result.out().endsWith("trainyard " + Compiler.VERSION + "\n"), result.toString());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"trainyard", "trainyard-controller", "checkout"})
  @DisplayName(
      "from a deleted working directory: exit 3 and one line saying so (no JVM stack trace), for both launchers and the checkout's")
  void deletedWorkingDirectory(String launcher) throws IOException {
    Path dir = Files.createDirectories(temp.resolve("gone-" + launcher));
    String program =
        switch (launcher) {
          case "checkout" -> REPO.toAbsolutePath().normalize().resolve("trainyard").toString();
          default -> home.toAbsolutePath().resolve("bin/" + launcher).toString();
        };
    String name = launcher.equals("checkout") ? "trainyard" : launcher;
    Result result =
        Launch.run(
            dir,
            env(linkedLauncher("gone-" + launcher), javaHome()),
            List.of("/bin/bash", "-c", "/bin/rmdir \"$PWD\" && exec \"$0\" --version", program));
    // bash's own "shell-init: error retrieving current directory" line may come first.
    assertEquals(3, result.exit(), result.toString());
    assertEquals("", result.out(), result.toString());
    assertTrue(
        result
            .err()
            .endsWith(
                "\n"
                    + name
                    + ": error: the working directory no longer exists (deleted while this shell was"
                    + " in it): cd to an existing folder and run it again\n"),
        result.toString());
    assertFalse(result.err().contains("java.lang"), result.toString());
  }

  @Test
  @DisplayName("no Java on PATH and no JAVA_HOME: exit 3 and a message saying what to install")
  void noJava() throws IOException {
    Result result = Launch.run(temp, env(linkedLauncher("no-java"), null), trainyard("--version"));
    assertEquals(
        new Result(
            3,
            "",
            "trainyard: error: no Java found: install a JDK 17 or newer and put java on PATH, or set JAVA_HOME\n"),
        result);
  }

  @Test
  @DisplayName("JAVA_HOME without bin/java: exit 3 naming JAVA_HOME")
  void brokenJavaHome() throws IOException {
    Path empty = Files.createDirectories(temp.resolve("empty-jdk"));
    Result result =
        Launch.run(
            temp, env(linkedLauncher("broken-home"), empty.toString()), trainyard("--version"));
    assertEquals(3, result.exit(), result.toString());
    assertTrue(
        result.err().startsWith("trainyard: error: JAVA_HOME=" + empty + " has no bin/java"),
        result.toString());
  }

  @ParameterizedTest(name = "JAVA_VERSION=\"{0}\" -> Java {1}")
  @DisplayName("a Java older than 17 is refused with exit 3 and the version found")
  @CsvSource({"11.0.22, 11", "1.8.0_392, 8"})
  void oldJava(String release, String major) throws IOException {
    Path jdk = Files.createDirectories(temp.resolve("jdk-" + major + "/bin"));
    Files.createSymbolicLink(jdk.resolve("java"), Path.of(javaHome(), "bin", "java"));
    Files.writeString(
        jdk.getParent().resolve("release"),
        "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + release + "\"\n");
    Result result =
        Launch.run(
            temp,
            env(linkedLauncher("old-" + major), jdk.getParent().toString()),
            trainyard("--version"));
    assertEquals(
        new Result(
            3,
            "",
            "trainyard: error: Trainyard needs Java 17 or newer, but "
                + jdk.resolve("java")
                + " is Java "
                + major
                + "; set JAVA_HOME to a JDK 17+\n"),
        result);
  }

  @Test
  @DisplayName("a JDK without a release file: the version comes from java -version")
  void javaWithoutReleaseFile() throws IOException {
    Path jdk = Files.createDirectories(temp.resolve("jdk-no-release/bin"));
    Files.createSymbolicLink(jdk.resolve("java"), Path.of(javaHome(), "bin", "java"));
    Result result =
        Launch.run(
            temp,
            env(linkedLauncher("no-release"), jdk.getParent().toString()),
            trainyard("--version"));
    assertEquals(new Result(0, "trainyard " + Compiler.VERSION + "\n", ""), result);
  }

  @Test
  @DisplayName("the CLI's exit code comes through the launcher: an unknown option is exit 2")
  void exitCodeComesThrough() throws IOException {
    Result result =
        Launch.run(
            temp, env(linkedLauncher("exit-code"), javaHome()), trainyard("--no-such-option"));
    assertEquals(2, result.exit(), result.toString());
    assertTrue(result.err().contains("--no-such-option"), result.toString());
  }

  @Test
  @DisplayName(
      "on JDK 24+ (Temurin 25 when installed) the launcher adds the Unsafe-access option and runs")
  void newJdk() throws IOException {
    Path jdk25 =
        Path.of(System.getProperty("trainyard.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
    assumeTrue(Files.isExecutable(jdk25.resolve("bin/java")), "not run: no JDK 25 at " + jdk25);
    Map<String, String> env = env(linkedLauncher("jdk25"), jdk25.toString());
    env.put("TRAINYARD_JAVA_OPTS", "-XX:+PrintCommandLineFlags");
    Result result = Launch.run(temp, env, trainyard("--version"));
    assertEquals(0, result.exit(), result.toString());
    assertTrue(result.out().endsWith("trainyard " + Compiler.VERSION + "\n"), result.toString());
    assertTrue(result.err().isEmpty(), result.toString());
  }

  @Test
  @DisplayName(
      "the first call makes a start-up archive under $XDG_CACHE_HOME/trainyard/startup; later calls load the CLI's classes from it and do not remake it")
  void startupArchive() throws IOException {
    Path cache = temp.resolve("xdg cache");
    Map<String, String> env = env(linkedLauncher("archive"), javaHome());
    env.put("XDG_CACHE_HOME", cache.toString());
    Result first = Launch.run(temp, env, trainyard("--version"));
    assertEquals(0, first.exit(), first.toString());
    assertTrue(first.err().isEmpty(), first.toString());
    List<Path> archives = archives(cache.resolve("trainyard/startup"));
    assertEquals(1, archives.size(), archives.toString());
    var made = Files.getLastModifiedTime(archives.get(0));
    env.put("TRAINYARD_JAVA_OPTS", "-Xlog:class+load=info");
    Result second = Launch.run(temp, env, trainyard("--version"));
    assertEquals(0, second.exit(), second.toString());
    assertTrue(
        second.out().contains("dev.trainyard.cli.Main source: shared objects file"),
        "Main comes from the archive: "
            + second.out().lines().filter(l -> l.contains("dev.trainyard.cli.Main ")).toList());
    assertEquals(archives, archives(cache.resolve("trainyard/startup")));
    assertEquals(made, Files.getLastModifiedTime(archives.get(0)));
  }

  @Test
  @DisplayName(
      "a copy of the installation in another folder gets its own start-up archive and uses it (the JVM takes an archive only with the class path it was made with)")
  void copiedInstallationArchive() throws IOException {
    // No space in its path: Java 17's AppCDS loads no class from an archive whose class path has
    // one.
    Path copy = temp.resolve("copied-install");
    // As `cp -a` does: the same jars with the same times, so only the folder tells them apart.
    copyTree(home, copy, StandardCopyOption.COPY_ATTRIBUTES);
    Path cache = temp.resolve("copy xdg");
    assertEquals(
        0,
        Launch.run(temp, cachedEnv(home, "copy-original", cache), trainyard("--version")).exit());
    Map<String, String> copied = cachedEnv(copy, "copy", cache);
    assertEquals(0, Launch.run(temp, copied, trainyard("--version")).exit());
    assertEquals(2, archives(cache.resolve("trainyard/startup")).size());
    copied.put("TRAINYARD_JAVA_OPTS", "-Xlog:class+load=info");
    Result used = Launch.run(temp, copied, trainyard("--version"));
    assertTrue(
        used.out().contains("dev.trainyard.cli.Main source: shared objects file"),
        used.out().lines().filter(l -> l.contains("dev.trainyard.cli.Main ")).toList().toString());

    // With a character a file: URL escapes in its path (a space, a %), Java 17 would map the
    // archive and use none of it: none is made.
    Path from = copy;
    int expected = 2;
    for (String name : List.of("spaced install", "percent%20")) {
      Path moved = temp.resolve(name);
      Files.move(from, moved);
      from = moved;
      Result run =
          Launch.run(
              temp, cachedEnv(moved, "moved-" + name.hashCode(), cache), trainyard("--version"));
      assertEquals(new Result(0, "trainyard " + Compiler.VERSION + "\n", ""), run, name);
      expected += Runtime.version().feature() >= 25 ? 1 : 0;
      assertEquals(
          expected,
          archives(cache.resolve("trainyard/startup")).size(),
          name + ", Java " + Runtime.version().feature());
    }
  }

  @Test
  @DisplayName(
      "under CI the launcher makes no start-up archive (its warm-up costs a one-off job more than it saves) but uses one made in TRAINYARD_STARTUP_DIR with TRAINYARD_STARTUP_ARCHIVE=on, as the CI action and template do; a bad mode is exit 3")
  void startupArchiveUnderCi() throws IOException {
    Path startup = temp.resolve("ci cache/startup");
    Map<String, String> env = env(linkedLauncher("archive-ci"), javaHome());
    env.put("XDG_CACHE_HOME", temp.resolve("ci xdg").toString());
    env.put("CI", "true");
    Result plain = Launch.run(temp, env, trainyard("--version"));
    assertEquals(new Result(0, "trainyard " + Compiler.VERSION + "\n", ""), plain);
    assertFalse(Files.exists(temp.resolve("ci xdg")), "no archive made under CI");
    env.put("TRAINYARD_STARTUP_DIR", startup.toString());
    Map<String, String> existing = new HashMap<>(env);
    existing.remove("CI");
    existing.put("TRAINYARD_STARTUP_ARCHIVE", "existing");
    assertEquals(0, Launch.run(temp, existing, trainyard("--version")).exit());
    assertFalse(Files.exists(startup), "existing makes none either");

    Map<String, String> make = new HashMap<>(env);
    make.put("TRAINYARD_STARTUP_ARCHIVE", "on");
    assertEquals(0, Launch.run(temp, make, trainyard("--version")).exit());
    List<Path> archives = archives(startup);
    assertEquals(1, archives.size(), archives.toString());
    env.put("TRAINYARD_JAVA_OPTS", "-Xlog:class+load=info");
    Result used = Launch.run(temp, env, trainyard("--version"));
    assertTrue(
        used.out().contains("dev.trainyard.cli.Main source: shared objects file"),
        "under CI, the archive that is there is used: "
            + used.out().lines().filter(l -> l.contains("dev.trainyard.cli.Main ")).toList());
    assertFalse(Files.exists(temp.resolve("ci xdg")), "and nothing is made elsewhere");

    Map<String, String> notCi = new HashMap<>(env);
    notCi.put("CI", "false"); // as the resident server reads it
    notCi.put("TRAINYARD_STARTUP_DIR", temp.resolve("not ci").toString());
    notCi.remove("TRAINYARD_JAVA_OPTS");
    assertEquals(0, Launch.run(temp, notCi, trainyard("--version")).exit());
    assertEquals(1, archives(temp.resolve("not ci")).size(), "CI=false is not CI");

    Map<String, String> bad = new HashMap<>(env);
    bad.put("TRAINYARD_STARTUP_ARCHIVE", "yes");
    assertEquals(
        new Result(
            3,
            "",
            "trainyard: error: TRAINYARD_STARTUP_ARCHIVE must be on, existing or off, got 'yes'\n"),
        Launch.run(temp, bad, trainyard("--version")));
  }

  @Test
  @DisplayName(
      "TRAINYARD_SERVER=on: the first compile starts a resident server; later calls are served and print and exit as in their own JVM; CI=true starts none; removing the socket folder stops it")
  void residentServer() throws Exception {
    Path tools = Files.createDirectories(temp.resolve("tools-server"));
    for (String tool :
        Stream.concat(TOOLS.stream(), Stream.of("env", "sort", "nohup", "setsid")).toList()) {
      Files.createSymbolicLink(tools.resolve(tool), systemTool(tool));
    }
    Path sockets = temp.resolve("sockets");
    Map<String, String> env = env(linkedLauncher("server"), javaHome());
    env.put("PATH", temp.resolve("links-server") + ":" + tools);
    env.put("TRAINYARD_SERVER_DIR", sockets.toString());
    Path project = temp.resolve("served project");
    copyTree(REPO.resolve("examples/pytorch-ddp"), project);
    Files.writeString(project.resolve("bad.yaml"), "run: torchrun t.py\nnodes: \"010\"\n");
    Map<String, String> ci = new HashMap<>(env);
    ci.remove("TRAINYARD_SERVER");
    ci.put("CI", "true");
    assertEquals(0, Launch.run(project, ci, compile("ci")).exit());
    assertFalse(Files.exists(sockets), "no server under CI=true");

    env.put("TRAINYARD_SERVER", "on");
    Result first = Launch.run(project, env, compile("first"));
    assertEquals(0, first.exit(), first.toString());
    assertEquals(
        Set.of(),
        names(sockets).stream().filter(n -> !n.endsWith(".seen")).collect(toSet()),
        "the key's first call only marks it seen");
    // Starts the server, inside $(...): the call must end without waiting for the server, which
    // holds none of the caller's output (a leftover process did, for up to 30 minutes).
    List<String> starting =
        List.of(
            "/usr/bin/env",
            "bash",
            "-c",
            "out=$(\"$@\" 2>&1); echo \"exit $?\"",
            "bash",
            "trainyard");
    Result started =
        Launch.run(
            project,
            env,
            Stream.concat(starting.stream(), compile("first").stream().skip(2)).toList());
    assertEquals("exit 0\n", started.out(), started.toString());
    Path socket = awaitSocket(sockets);
    Result served = Launch.run(project, env, compile("second"));
    assertEquals(0, served.exit(), served.toString());
    assertEquals(first.out().replace("first/", "second/"), served.out());
    assertEquals(first.err(), served.err());
    assertEquals(tree(project.resolve("first")), tree(project.resolve("second")));
    Map<String, String> off = new HashMap<>(env);
    off.put("TRAINYARD_SERVER", "off");
    List<String> validate = trainyard("validate", "bad.yaml");
    Result badServed = Launch.run(project, env, validate);
    assertEquals(1, badServed.exit(), badServed.toString());
    assertEquals(Launch.run(project, off, validate).toString(), badServed.toString());
    assertEquals(0, Launch.run(project, env, trainyard("--version")).exit());
    Path log = Path.of(socket.toString().replace(".sock", ".log"));
    List<String> calls =
        Files.readAllLines(log).stream().filter(l -> l.contains(" (exit ")).toList();
    assertEquals(2, calls.size(), calls.toString()); // compile and validate; --version is not sent
    assertTrue(calls.get(0).startsWith("trainyard server: compile (exit 0) in "), calls.toString());
    assertTrue(
        calls.get(1).startsWith("trainyard server: validate (exit 1) in "), calls.toString());

    List<ProcessHandle> servers = servers(sockets);
    assertEquals(1, servers.size(), "one server for one socket");
    try (Stream<Path> files = Files.walk(sockets)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
    assertTrue(
        servers.get(0).onExit().get(30, TimeUnit.SECONDS) != null,
        "the server exits once its socket folder is gone");
  }

  private static List<String> compile(String out) {
    return trainyard(
        "compile",
        "train.yaml",
        "--platform",
        REPO.resolve("examples/platform.yaml").toString(),
        "--source-repo",
        "https://github.com/acme/pytorch-ddp.git",
        "--source-commit",
        "0123456789abcdef0123456789abcdef01234567",
        "--out",
        out);
  }

  /** The socket a server made in {@code sockets}, waiting at most a minute for it. */
  private static Path awaitSocket(Path sockets) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (Files.isDirectory(sockets)) {
        try (Stream<Path> files = Files.list(sockets)) {
          List<Path> found =
              files.filter(f -> f.getFileName().toString().endsWith(".sock")).toList();
          if (!found.isEmpty()) {
            return found.get(0);
          }
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no server socket in " + sockets + " after 60 s");
  }

  /**
   * The running {@code trainyard server} processes whose socket is in {@code sockets}, from Linux's
   * {@code /proc/PID/cmdline} (ProcessHandle's arguments are empty for a long class path).
   */
  private static List<ProcessHandle> servers(Path sockets) {
    return ProcessHandle.allProcesses()
        .filter(
            p -> {
              try {
                byte[] cmdline = Files.readAllBytes(Path.of("/proc/" + p.pid() + "/cmdline"));
                return new String(cmdline, StandardCharsets.UTF_8)
                    .replace('\0', ' ')
                    .contains(" server --socket " + sockets + "/");
              } catch (IOException e) {
                return false; // ended meanwhile, or not ours to read
              }
            })
        .toList();
  }

  private static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path f : walk.filter(Files::isRegularFile).toList()) {
        files.put(root.relativize(f).toString(), Files.readString(f));
      }
    }
    assertFalse(files.isEmpty(), "files under " + root);
    return files;
  }

  private static List<Path> archives(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(f -> f.getFileName().toString().matches("trainyard\\.(jsa|aot)"))
          .sorted()
          .toList();
    }
  }

  /**
   * {@code trainyard ARGS...} looked up on the child's PATH ({@code env} searches it; Java would
   * search ours).
   */
  private static List<String> trainyard(String... args) {
    return Stream.concat(Stream.of("/usr/bin/env", "trainyard"), Stream.of(args)).toList();
  }

  /** {@code NAME ARGS...} looked up on the child's PATH. */
  private static List<String> command(String name, String... args) {
    return Stream.concat(Stream.of("/usr/bin/env", name), Stream.of(args)).toList();
  }

  /** A folder holding only a symlink `trainyard-controller` to the unpacked launcher. */
  private static Path controllerOnPath() throws IOException {
    Path dir = temp.resolve("links-controller");
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir);
      Files.createSymbolicLink(
          dir.resolve("trainyard-controller"), home.resolve("bin/trainyard-controller"));
    }
    return dir;
  }

  /** A folder holding only a symlink `trainyard` to the unpacked launcher. */
  private static Path linkedLauncher(String name) throws IOException {
    return linkedLauncher(name, home);
  }

  /**
   * A folder links-NAME holding {@code trainyard}, a symlink to {@code installation}'s launcher.
   */
  private static Path linkedLauncher(String name, Path installation) throws IOException {
    Path dir = Files.createDirectories(temp.resolve("links-" + name));
    Files.createSymbolicLink(dir.resolve("trainyard"), installation.resolve("bin/trainyard"));
    return dir;
  }

  /**
   * The environment of a call of {@code installation}'s launcher with XDG_CACHE_HOME {@code cache}.
   */
  private static Map<String, String> cachedEnv(Path installation, String name, Path cache)
      throws IOException {
    Map<String, String> env = env(linkedLauncher(name, installation), javaHome());
    env.put("XDG_CACHE_HOME", cache.toString());
    return env;
  }

  private static Map<String, String> env(Path launcherDir, String javaHome) {
    Map<String, String> env = new HashMap<>();
    env.put("PATH", launcherDir + ":" + tools);
    env.put("HOME", temp.toString());
    env.put("TMPDIR", temp.toString());
    env.put("TRAINYARD_SERVER", "off"); // residentServer() turns it on
    if (javaHome != null) {
      env.put("JAVA_HOME", javaHome);
    }
    return env;
  }

  private static String javaHome() {
    return System.getProperty("java.home");
  }

  private static Path systemTool(String name) {
    for (String dir : List.of("/usr/bin", "/bin", "/usr/local/bin")) {
      Path tool = Path.of(dir, name);
      if (Files.isExecutable(tool)) {
        return tool;
      }
    }
    throw new IllegalStateException("no " + name + " in /usr/bin, /bin or /usr/local/bin");
  }

  private static Set<String> names(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return new TreeSet<>(files.map(f -> f.getFileName().toString()).toList());
    }
  }

  private static void copyTree(Path from, Path to, CopyOption... options) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path source : files.toList()) {
        Path target = to.resolve(from.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target, options);
        }
      }
    }
  }
}
