package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.gitops.TreeWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code trainyard platform render [--check]}: what it writes and prints, and its exit codes. */
class PlatformCommandTest {
  static final String CQ = "clusters/local/_cluster/clusterqueue-ml.yaml";

  @TempDir Path temp;

  private Path gitops() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("gitops"));
    Files.copy(
        Path.of(System.getProperty("trainyard.repo.root", "..")).resolve("examples/platform.yaml"),
        dir.resolve("platform.yaml"));
    return dir;
  }

  /** {@code trainyard platform render OPTIONS DIR}. */
  private static MainTest.Run render(Path dir, String... options) {
    List<String> args = new ArrayList<>(List.of("platform", "render"));
    args.addAll(List.of(options));
    args.add(dir.toString());
    return MainTest.run(args.toArray(String[]::new));
  }

  /** {@code trainyard platform render DIR} exits 0. */
  private static void assertRenders(Path dir) {
    MainTest.Run render = render(dir);
    assertEquals(0, render.exit(), render.err());
  }

  /** {@code run} exited {@code exit} and its stderr begins with {@code errStart}. */
  private static void assertErr(MainTest.Run run, int exit, String errStart) {
    assertEquals(exit, run.exit(), run.err());
    assertTrue(run.err().startsWith(errStart), run.err());
  }

  @Test
  @DisplayName(
      "render writes the queue folders and roots and lists them; --check then exits 0 and writes nothing")
  void renderThenCheck() throws Exception {
    Path dir = gitops();
    MainTest.Run render = render(dir);
    assertEquals(0, render.exit(), render.err());
    assertEquals(
        "rendered from platform.yaml: changed 7 file(s):\n"
            + "  A clusters/local/_cluster/clusterqueue-ml.yaml\n"
            + "  A clusters/local/_cluster/kustomization.yaml\n"
            + "  A clusters/local/_cluster/resourceflavor-gpu-nodes.yaml\n"
            + "  A clusters/local/kustomization.yaml\n"
            + "  A clusters/local/ml/_queues/kustomization.yaml\n"
            + "  A clusters/local/ml/_queues/localqueue-ml.yaml\n"
            + "  A clusters/local/ml/kustomization.yaml\n"
            + "commit them with the platform.yaml change\n",
        render.out());
    assertTrue(Files.readString(dir.resolve(CQ)).contains("nominalQuota: \"32\""));
    MainTest.Run check = render(dir, "--check");
    assertEquals(0, check.exit(), check.err());
    assertEquals(
        "the queue objects are what platform.yaml gives: nothing to change\n", check.out());
    assertEquals("", check.err());
    MainTest.Run json = render(dir, "--check", "--output", "json");
    assertEquals(0, json.exit());
    assertTrue(
        json.out().contains("\"upToDate\" : true") && json.out().contains("\"files\" : [ ]"),
        json.out());
  }

  @Test
  @DisplayName(
      "a hand-written file in _queues/: --check names it hand-written (E811, exit 1); render removes it with W813 on stderr and exits 0")
  void handWrittenFileWarned() throws Exception {
    Path dir = gitops();
    assertRenders(dir);
    String file = "clusters/local/ml/_queues/limitrange.yaml";
    Files.writeString(
        dir.resolve(file),
        "apiVersion: v1\nkind: LimitRange\nmetadata: {name: disk, namespace: ml}\n",
        StandardCharsets.UTF_8);
    assertErr(
        render(dir, "--check"),
        1,
        file
            + ": error[E811]: hand-written file in a folder trainyard owns: `trainyard platform render` writes this folder whole from platform.yaml and would remove it\n"
            + "    hint: move it out of the folder: keep your own objects next to the folder");
    assertTrue(Files.exists(dir.resolve(file)), "--check writes nothing");
    MainTest.Run render = render(dir);
    assertErr(
        render,
        0,
        file
            + ": warning[W813]: removed a hand-written file: trainyard owns this folder and writes it whole from platform.yaml\n");
    assertEquals(
        "rendered from platform.yaml: changed 1 file(s):\n  D "
            + file
            + "\ncommit them with the platform.yaml change\n",
        render.out());
    assertFalse(Files.exists(dir.resolve(file)));
  }

  @Test
  @DisplayName(
      "--check after a quota change: exit 1, E811 at the stale file's line, nothing written; render fixes it")
  void staleCheck() throws Exception {
    Path dir = gitops();
    assertRenders(dir);
    String before = Files.readString(dir.resolve(CQ));
    Files.writeString(
        dir.resolve("platform.yaml"),
        Files.readString(dir.resolve("platform.yaml"))
            .replace("nvidia.com/gpu: \"32\"", "nvidia.com/gpu: \"8\""),
        StandardCharsets.UTF_8);
    MainTest.Run check = render(dir, "--check");
    assertErr(
        check,
        1,
        CQ
            + ":34:1: error[E811]: stale queue file: platform.yaml gives other text from this line on\n"
            + "    hint: run `trainyard platform render`");
    assertEquals("would change 1 file(s):\n  M " + CQ + "\n", check.out());
    assertEquals(before, Files.readString(dir.resolve(CQ)), "--check writes nothing");
    MainTest.Run json = render(dir, "--check", "--output", "json");
    assertEquals(1, json.exit());
    assertTrue(
        json.out().contains("\"code\" : \"E811\"")
            && json.out().contains("\"change\" : \"differs\"")
            && json.out().contains("\"upToDate\" : false"),
        json.out());
    assertRenders(dir);
    assertTrue(Files.readString(dir.resolve(CQ)).contains("nominalQuota: \"8\""));
    assertEquals(0, render(dir, "--check").exit());
  }

  @Test
  @DisplayName(
      "a folder that is no GitOps checkout, or a file, is a usage error (2); a broken platform.yaml is exit 1 with its diagnostics")
  void usageAndBrokenPlatform() throws Exception {
    Path empty = Files.createDirectories(temp.resolve("empty"));
    MainTest.Run none = render(empty);
    assertEquals(2, none.exit());
    assertTrue(none.err().contains("no platform.yaml and no clusters/ in " + empty), none.err());
    Path file = Files.writeString(temp.resolve("file"), "x");
    MainTest.Run notFolder = render(file);
    assertEquals(2, notFolder.exit());
    assertTrue(notFolder.err().contains("DIR " + file + " is not a folder"), notFolder.err());
    MainTest.Run here = MainTest.run("platform", "render", "--check");
    assertEquals(2, here.exit(), "the module folder is no GitOps checkout");
    assertTrue(
        here.err().contains("no platform.yaml and no clusters/ in the current folder"), here.err());
    Path dir = gitops();
    Files.writeString(dir.resolve("platform.yaml"), "kind: Platform\nbogus: 1\n");
    MainTest.Run broken = render(dir, "--check");
    assertEquals(1, broken.exit());
    assertTrue(broken.err().contains("platform.yaml (GitOps repo):"), broken.err());
    assertEquals("", broken.out());
    MainTest.Run brokenJson = render(dir, "--output", "json");
    assertEquals(1, brokenJson.exit());
    assertTrue(brokenJson.out().contains("\"upToDate\" : false"), brokenJson.out());
    assertFalse(Files.exists(dir.resolve("clusters")));
  }

  @Test
  @DisplayName(
      "a renamed platform.yaml, or a folder in its place: render and --check refuse (exit 1, E812) and change nothing; never the embedded default")
  void missingPlatformRefused() throws Exception {
    Path dir = gitops();
    assertRenders(dir);
    PreviewCommandTest.git(dir, "init", "-q");
    PreviewCommandTest.git(dir, "add", "-A");
    PreviewCommandTest.git(dir, "commit", "-q", "-m", "platform");
    PreviewCommandTest.git(dir, "mv", "platform.yaml", "platform.yml");
    for (String[] options : List.of(new String[0], new String[] {"--check"})) {
      MainTest.Run r = render(dir, options);
      assertErr(
          r,
          1,
          dir.resolve("platform.yaml")
              + ": error[E812]: "
              + dir.resolve("platform.yaml")
              + " does not exist: platform render renders the queues only from the GitOps repo's own platform.yaml, never from the embedded default");
      assertTrue(r.err().contains("hint: restore platform.yaml"), r.err());
      assertFalse(r.err().contains("W806"), r.err());
      assertEquals("", r.out());
    }
    assertEquals(
        "R  platform.yaml -> platform.yml\n",
        PreviewCommandTest.git(dir, "status", "--porcelain"),
        "no queue file removed, no clusters/local added");
    PreviewCommandTest.git(dir, "mv", "platform.yml", "platform.yaml");
    Files.createDirectories(dir.resolve("platform.yaml.d"));
    PreviewCommandTest.git(dir, "mv", "platform.yaml", "platform.yaml.d/platform.yaml");
    PreviewCommandTest.git(dir, "mv", "platform.yaml.d", "platform.yaml");
    MainTest.Run folder = render(dir, "--output", "json");
    assertEquals(1, folder.exit());
    assertTrue(
        folder.out().contains("\"code\" : \"E812\"")
            && folder.out().contains("is a folder, not a file"),
        folder.out());
    assertTrue(Files.isDirectory(dir.resolve("clusters/local/_cluster")));
    assertFalse(Files.exists(dir.resolve("clusters/local/_cluster/clusterqueue-default.yaml")));
  }

  @Test
  @DisplayName(
      "the render's shutdown hook stops the apply and says in one line whether anything was written")
  void interruptLine() throws Exception {
    StringWriter text = new StringWriter();
    TreeWriter.Interrupt staging = new TreeWriter.Interrupt();
    Thread apply =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < 3000 && !staging.requested(); i++) {
                  Thread.sleep(10);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                staging.settle();
              }
            });
    apply.start();
    PlatformCommand.RenderCommand.interrupted(
        staging, new PrintWriter(text), Duration.ofSeconds(30));
    apply.join(10_000);
    assertEquals(
        "trainyard: interrupted; nothing was written (the staged .trainyard-* folders were removed)\n",
        text.toString());
    StringWriter stuck = new StringWriter();
    PlatformCommand.RenderCommand.interrupted(
        new TreeWriter.Interrupt(), new PrintWriter(stuck), Duration.ofMillis(50));
    assertTrue(
        stuck
            .toString()
            .startsWith(
                "trainyard: interrupted while writing; run `trainyard platform render` again"),
        stuck.toString());
  }

  @Test
  @DisplayName("--help names --check and the exit codes; the top-level help lists the command")
  void help() {
    MainTest.Run help = MainTest.run("platform", "render", "--help");
    assertEquals(0, help.exit());
    assertTrue(help.out().contains("--check") && help.out().contains("Exit codes:"), help.out());
    assertTrue(MainTest.run("--help").out().contains("platform"));
  }

  /** {@code trainyard args} in-process in {@code dir} with an empty environment. */
  private static MainTest.Run in(Path dir, String... args) {
    return SubmitCommandTest.runIn(dir, Map.of(), args);
  }

  @Test
  @DisplayName(
      "without DIR render reads the working directory and names platform.yaml as typed; a relative DIR is read below the working directory and named as given")
  void workingDirectory() throws Exception {
    Path dir = gitops();
    MainTest.Run render = in(dir, "platform", "render");
    assertEquals(0, render.exit(), render.err());
    assertTrue(render.out().startsWith("rendered from platform.yaml: changed 7 file(s):\n"));
    assertTrue(Files.exists(dir.resolve(CQ)));
    Files.move(dir.resolve("platform.yaml"), temp.resolve("platform.yaml"));
    MainTest.Run here = in(dir, "platform", "render");
    assertEquals(1, here.exit(), here.err());
    assertTrue(
        here.err()
            .startsWith(
                "platform.yaml: error[E812]: platform.yaml does not exist: platform render renders"),
        "only clusters/ is left: the checkout is recognised and the missing file named: "
            + here.err());
    MainTest.Run relative = in(temp, "platform", "render", "--check", "gitops");
    assertEquals(1, relative.exit(), relative.err());
    assertTrue(
        relative.err().startsWith("gitops/platform.yaml: error[E812]: gitops/platform.yaml does"),
        relative.err());
    assertEquals("", relative.out());
  }

  @Test
  @DisplayName(
      "a folder with neither platform.yaml nor clusters/, or a file as DIR: exit 2 with one message naming it as typed (or `the current folder`) and the --help line")
  void usageMessages() throws Exception {
    Path empty = Files.createDirectories(temp.resolve("empty"));
    Files.writeString(temp.resolve("file"), "x");
    String help = "\nTry 'trainyard platform render --help' for more information.\n";
    MainTest.Run here = in(empty, "platform", "render");
    assertEquals(2, here.exit());
    assertEquals(
        "trainyard: no platform.yaml and no clusters/ in the current folder: run it at the root of"
            + " the GitOps repo checkout (or name it as DIR)"
            + help,
        here.err());
    MainTest.Run named = in(temp, "platform", "render", "empty");
    assertEquals(2, named.exit());
    assertEquals(
        "trainyard: no platform.yaml and no clusters/ in empty: run it at the root of the GitOps"
            + " repo checkout (or name it as DIR)"
            + help,
        named.err());
    MainTest.Run file = in(temp, "platform", "render", "file");
    assertEquals(2, file.exit());
    assertEquals(
        "trainyard: DIR file is not a folder; name the GitOps repo checkout" + help, file.err());
    Files.createDirectories(empty.resolve("clusters"));
    assertEquals(1, in(empty, "platform", "render").exit(), "clusters/ alone: E812, not usage");
  }
}
