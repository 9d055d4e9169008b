package dev.trainyard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.trainyard.compiler.manifest.CanonicalJson;
import dev.trainyard.compiler.testing.TrainProject;
import dev.trainyard.compiler.testing.Wording;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code compile} and {@code validate} print, whole, in text and in JSON ({@code
 * golden/wording/CompileOutputTest.txt}): the run's summary line, the files written, the JSON's
 * {@code run} and {@code files}, and a failed compile's diagnostics with no summary.
 */
class CompileOutputTest {
  @RegisterExtension static final Wording WORDING = new Wording();

  @TempDir Path temp;

  /**
   * Exit code, stdout and stderr; the run name's commit-derived suffix reads {@code <run>} (the
   * test repository's commit differs from run to run).
   */
  private static String shown(MainTest.Run r) {
    return ("exit " + r.exit() + "\nstdout:\n" + r.out() + "stderr:\n" + r.err())
        .replaceAll("\\bdemo-[0-9a-f]{6}\\b", "demo-<run>");
  }

  @Test
  @DisplayName(
      "compile --out: the run's summary line and every file written, on stdout; nothing on stderr")
  void compileText() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nnodes: 2\n");
    MainTest.Run r =
        MainTest.run("compile", p.trainYaml().toString(), "--out", temp.resolve("out").toString());
    assertEquals(0, r.exit(), r.err());
    assertEquals("", r.err());
    WORDING.approve(shown(r));
  }

  @Test
  @DisplayName(
      "compile --output json --out: diagnostics, the run's fields and the absolute paths of the files written")
  void compileJson() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nnodes: 2\n");
    Path out = temp.resolve("out");
    MainTest.Run r =
        MainTest.run(
            "compile", p.trainYaml().toString(), "--out", out.toString(), "--output", "json");
    assertEquals(0, r.exit(), r.err());
    JsonNode json = CanonicalJson.mapper().readTree(r.out());
    assertEquals(2, json.path("run").path("nodes").asInt());
    for (JsonNode f : json.path("files")) {
      assertTrue(Files.isRegularFile(Path.of(f.asText())), f.asText());
    }
    WORDING.approve(shown(r));
  }

  @Test
  @DisplayName("validate --output json of a valid train.yaml: the run's fields, no files")
  void validateJson() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    MainTest.Run r = MainTest.run("validate", p.trainYaml().toString(), "--output", "json");
    assertEquals(0, r.exit(), r.err());
    JsonNode json = CanonicalJson.mapper().readTree(r.out());
    assertTrue(json.path("files").isMissingNode(), r.out());
    WORDING.approve(shown(r));
  }

  @Test
  @DisplayName(
      "a failed compile: its diagnostics (text on stderr; JSON on stdout without run or files), exit 1")
  void failedCompile() throws Exception {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\nnodes: 0\n");
    Path out = temp.resolve("out");
    MainTest.Run text = MainTest.run("compile", p.trainYaml().toString(), "--out", out.toString());
    assertEquals(1, text.exit());
    assertEquals("", text.out());
    WORDING.approve(shown(text));
    MainTest.Run json =
        MainTest.run(
            "compile", p.trainYaml().toString(), "--out", out.toString(), "--output", "json");
    assertEquals(1, json.exit());
    JsonNode tree = CanonicalJson.mapper().readTree(json.out());
    assertTrue(tree.path("run").isMissingNode() && tree.path("files").isMissingNode(), json.out());
    WORDING.approve(shown(json));
    assertTrue(Files.notExists(out));
  }

  @Test
  @DisplayName("validate of a valid train.yaml prints the run's summary line only, exit 0")
  void validateText() {
    TrainProject p = TrainProject.create(temp, "run: torchrun train.py\n");
    MainTest.Run r = MainTest.run("validate", p.trainYaml().toString());
    assertEquals(0, r.exit(), r.err());
    WORDING.approve(shown(r));
  }

  @Test
  @DisplayName(
      "validate --cluster of a train.yaml with errors reports them (exit 1) and never contacts the cluster; a valid one against an unreachable API server is exit 3")
  void validateClusterOnlyWhenValid() throws Exception {
    Path kubeconfig =
        Files.writeString(
            temp.resolve("kubeconfig"),
            """
            apiVersion: v1
            kind: Config
            clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
            users: [{name: u, user: {token: t}}]
            contexts: [{name: c, context: {cluster: c, user: u}}]
            current-context: c
            """);
    TrainProject bad =
        TrainProject.create(temp.resolve("bad"), "run: torchrun train.py\nnodes: 0\n");
    MainTest.Run r =
        MainTest.run(
            "validate",
            bad.trainYaml().toString(),
            "--cluster",
            "--kubeconfig",
            kubeconfig.toString());
    assertEquals(1, r.exit(), r.err());
    assertTrue(r.err().contains("error[E204]"), r.err());
    TrainProject good = TrainProject.create(temp.resolve("good"), "run: torchrun train.py\n");
    MainTest.Run down =
        MainTest.run(
            "validate",
            good.trainYaml().toString(),
            "--cluster",
            "--kubeconfig",
            kubeconfig.toString());
    assertEquals(3, down.exit(), down.err());
  }

  @Test
  @DisplayName(
      "a broken --platform is named relative to the call's working directory when given absolute, and as typed when relative")
  void platformNamedFromWorkingDirectory() throws Exception {
    TrainProject p = TrainProject.create(temp.resolve("p"), "run: torchrun train.py\n");
    Path conf = Files.createDirectories(temp.resolve("conf"));
    Files.writeString(conf.resolve("platform.yaml"), "kind: Platform\nbogus: 1\n");
    for (String platform :
        new String[] {conf.resolve("platform.yaml").toString(), "conf/platform.yaml"}) {
      MainTest.Run r =
          SubmitCommandTest.runIn(
              temp, Map.of(), "validate", p.trainYaml().toString(), "--platform", platform);
      assertEquals(1, r.exit(), r.err());
      assertTrue(r.err().startsWith("conf/platform.yaml:"), platform + ": " + r.err());
    }
  }
}
