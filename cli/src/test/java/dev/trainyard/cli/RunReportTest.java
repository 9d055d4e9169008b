package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.trainyard.compiler.testing.Wording;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code trainyard run --local} prints around a run, whole ({@code
 * golden/wording/RunReportTest.txt}): the header (shape, framework, the clone or the work tree, the
 * rendezvous port), the checkpoint line, each node's lines, the world check and the summary; the
 * warnings it passes on and the one it leaves out; and that it leaves no scratch folder. Plain
 * runtime, shell commands only: no Python, a second or two a run.
 */
class RunReportTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path tmp;

  /**
   * The parts that change from run to run read as placeholders (the run name's suffix, ports,
   * seconds, the run id of the checkpoint folder), and the nodes' lines, which interleave as the
   * processes print, in sorted order where they stood, each node's in the order it printed them.
   */
  private static String stable(String text) {
    List<String> lines = new ArrayList<>(text.lines().toList());
    List<String> nodes =
        lines.stream()
            .filter(l -> l.startsWith("[node-"))
            .sorted(Comparator.comparing(l -> l.substring(0, l.indexOf(']'))))
            .toList();
    for (int i = 0, n = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("[node-")) {
        lines.set(i, nodes.get(n++));
      }
    }
    String joined = String.join("\n", lines) + (text.isEmpty() ? "" : "\n");
    Matcher id = Pattern.compile("checkpoints/([0-9a-f]{6})\\b").matcher(joined);
    return (id.find() ? joined.replace(id.group(1), "<run-id>") : joined)
        .replaceAll("\\bdemo-[0-9a-f]{6}\\b", "demo-<run>")
        .replaceAll("port \\d+", "port <port>")
        .replaceAll("MASTER_PORT=\\d+", "MASTER_PORT=<port>")
        .replaceAll("\\b\\d+\\.\\ds\\b", "<s>s");
  }

  private Path repo(String trainYaml) throws Exception {
    Path repo = Files.createDirectories(tmp.resolve("demo"));
    Files.writeString(repo.resolve("train.yaml"), trainYaml);
    git(repo, "init", "-q");
    git(repo, "add", "-A");
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "code");
    return repo;
  }

  private static void git(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
  }

  private static Set<Path> scratchFolders() throws IOException {
    try (Stream<Path> all = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return all.filter(p -> p.getFileName().toString().startsWith("trainyard-local-"))
          .collect(Collectors.toSet());
    }
  }

  @Test
  @DisplayName(
      "a 2-node plain run with checkpoint: header, checkpoint line, node lines, world check and summary, exit 0; no scratch folder left")
  void cloneRun() throws Exception {
    Path repo =
        repo(
            "runtime: plain\nnodes: 2\ncheckpoint: {}\n"
                + "run: echo \"rank $NODE_RANK of $NNODES saves in ${CHECKPOINT_DIR##*/}\"\n");
    Set<Path> before = scratchFolders();
    MainTest.Run r = MainTest.run("run", "--local", repo.resolve("train.yaml").toString());
    assertEquals(0, r.exit(), r.out() + r.err());
    assertEquals(before, scratchFolders(), "the run's scratch folder is deleted");
    WORDING.approve("stdout:\n" + stable(r.out()) + "stderr:\n" + stable(r.err()));
  }

  @Test
  @DisplayName(
      "--working-tree and --fresh: the header names the work tree, the checkpoint line says not resuming; a failing node's exit code is the run's")
  void workingTreeFresh() throws Exception {
    Path repo = repo("runtime: plain\ncheckpoint: {}\nrun: echo going; exit 7\n");
    MainTest.Run r =
        MainTest.run(
            "run", "--local", "--working-tree", "--fresh", repo.resolve("train.yaml").toString());
    assertEquals(7, r.exit(), r.out() + r.err());
    assertFalse(r.out().contains("clean clone"), r.out());
    WORDING.approve("stdout:\n" + stable(r.out()) + "stderr:\n" + stable(r.err()));
  }

  @Test
  @DisplayName(
      "mistakes before a run starts, each in its own words (approved): a train.yaml in no git repository (exit 1), a --timeout that is no duration (exit 2); --checkpoint-dir without checkpoint: is a warning and the run goes on")
  void mistakes() throws Exception {
    Path plain = Files.createDirectories(tmp.resolve("plain"));
    Files.writeString(plain.resolve("train.yaml"), "runtime: plain\nrun: echo hi\n");
    MainTest.Run noGit = MainTest.run("run", "--local", plain.resolve("train.yaml").toString());
    assertEquals(1, noGit.exit(), noGit.err());
    assertEquals("", noGit.out());
    WORDING.approve(stable(noGit.err()));
    Path repo = repo("runtime: plain\nrun: echo hi\n");
    String yaml = repo.resolve("train.yaml").toString();
    MainTest.Run timeout = MainTest.run("run", "--local", "--timeout", "soon", yaml);
    assertEquals(2, timeout.exit(), timeout.err());
    WORDING.approve(stable(timeout.err()));
    MainTest.Run dir =
        MainTest.run("run", "--local", "--checkpoint-dir", tmp.resolve("ck").toString(), yaml);
    assertEquals(0, dir.exit(), dir.out() + dir.err());
    assertTrue(dir.out().contains("[node-0] hi\n"), dir.out());
    assertTrue(Files.notExists(tmp.resolve("ck")), "no checkpoint folder made");
    WORDING.approve(stable(dir.err()));
  }
}
